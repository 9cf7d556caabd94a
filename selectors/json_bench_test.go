package selectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/loom-results/loom-results/errcode"
)

// benchDocSize is the size of the generated documents: the default
// --max-result-bytes.
const benchDocSize = 16 << 20

// benchDoc is the generated document, indented and compact, with the
// lengths of its big array and its big object.
type benchDoc struct {
	indent, compact []byte
	items, members  int
}

var benchDocs = sync.OnceValue(newBenchDoc)

// newBenchDoc generates a realistic document of about benchDocSize bytes:
// records with nested objects and arrays, numbers, and strings with escapes
// and non-ASCII text.
func newBenchDoc() (docs benchDoc) {
	type geo struct {
		Lat, Lng float64
	}
	type address struct {
		Street string `json:"street"`
		City   string `json:"city"`
		Geo    geo    `json:"geo"`
	}
	type event struct {
		T int64   `json:"t"`
		V float64 `json:"v"`
		K string  `json:"k"`
	}
	type record struct {
		ID      int      `json:"id"`
		Name    string   `json:"name"`
		Email   string   `json:"email"`
		Active  bool     `json:"active"`
		Score   float64  `json:"score"`
		Tags    []string `json:"tags"`
		Address address  `json:"address"`
		History []event  `json:"history"`
		Note    *string  `json:"note"`
		Bio     string   `json:"bio"`
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "délta", "εψιλον", "zeta", "\"quoted\"", "tab\there", "line\nbreak", "<tag>", "back\\slash", "日本語", "emoji 😀", "plain"}
	text := func(n int) string {
		var b bytes.Buffer
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	newRecord := func(id int) record {
		r := record{
			ID: id, Name: text(2), Email: fmt.Sprintf("user%d@example.com", id), Active: rng.IntN(2) == 0,
			Score: rng.NormFloat64() * 1e3, Tags: []string{text(1), text(1)},
			Address: address{Street: text(3), City: text(1), Geo: geo{rng.Float64()*180 - 90, rng.Float64()*360 - 180}},
			Bio:     text(8 + rng.IntN(16)),
		}
		for range 3 + rng.IntN(6) {
			r.History = append(r.History, event{T: 1700000000 + rng.Int64N(1e8), V: rng.Float64() - 0.5, K: text(1)})
		}
		return r
	}
	// Two thirds of the bytes in a big array, one third in a big object.
	var items []record
	index := map[string]record{}
	size := 0
	for size < benchDocSize*2/3 {
		r := newRecord(len(items))
		b, _ := json.MarshalIndent(r, "    ", "  ")
		size += len(b)
		items = append(items, r)
	}
	for size < benchDocSize {
		r := newRecord(len(index))
		b, _ := json.MarshalIndent(r, "    ", "  ")
		size += len(b)
		index[fmt.Sprintf("id-%06d", len(index))] = r
	}
	doc := map[string]any{
		"meta":  map[string]any{"count": len(items), "generator": "json_bench_test.go", "tags": []string{"a", "b"}},
		"items": items,
		"index": index,
		"tail":  map[string]any{"last": []int{1, 2, 3}},
	}
	var err error
	if docs.indent, err = json.MarshalIndent(doc, "", "  "); err != nil {
		panic(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, docs.indent); err != nil {
		panic(err)
	}
	docs.compact = b.Bytes()
	docs.items, docs.members = len(items), len(index)
	return docs
}

// BenchmarkJSONValidate compares ValidateJSON and IndexJSON with
// encoding/json.Valid and jsontext (duplicate names allowed, as ours) on the
// same 16 MiB documents.
func BenchmarkJSONValidate(b *testing.B) {
	docs := benchDocs()
	for _, doc := range []struct {
		name string
		data []byte
	}{{"indent", docs.indent}, {"compact", docs.compact}} {
		b.Run(doc.name+"/ValidateJSON", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			for b.Loop() {
				if _, err := ValidateJSON(doc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(doc.name+"/IndexJSON", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			var ix *JSONIndex
			for b.Loop() {
				var err *errcode.Error
				if ix, err = IndexJSON(doc.data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(ix.nodes)), "values")
			b.ReportMetric(float64(len(ix.nodes))*float64(jsonNodeSize)/float64(len(doc.data)), "tape-bytes/doc-byte")
		})
		b.Run(doc.name+"/encoding_json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			for b.Loop() {
				if !json.Valid(doc.data) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run(doc.name+"/jsontext.Value.IsValid", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			for b.Loop() {
				if !jsontext.Value(doc.data).IsValid(jsontext.AllowDuplicateNames(true)) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkJSONIndexValid compares IndexValidJSON, which trusts an earlier
// ValidateJSON, with IndexJSON, which validates again, on the same 16 MiB
// documents; it first checks that both build the same tape.
func BenchmarkJSONIndexValid(b *testing.B) {
	docs := benchDocs()
	for _, doc := range []struct {
		name string
		data []byte
	}{{"indent", docs.indent}, {"compact", docs.compact}} {
		want, err := IndexJSON(doc.data)
		if err != nil {
			b.Fatal(err)
		}
		if got, ok := jsonBuildValid(doc.data); !ok || !slices.Equal(want.nodes, got) {
			b.Fatalf("%s: IndexValidJSON does not build IndexJSON's tape", doc.name)
		}
		_, split, verr := ValidateJSONSplit(doc.data)
		if verr != nil || split.Offset == 0 {
			b.Fatalf("%s: no split: %v", doc.name, verr)
		}
		splitIndex := func(data []byte) (*JSONIndex, *errcode.Error) { return IndexValidJSONSplit(data, split) }
		if ix, _ := splitIndex(doc.data); !slices.Equal(want.nodes, ix.nodes) {
			b.Fatalf("%s: IndexValidJSONSplit does not build IndexJSON's tape", doc.name)
		}
		for _, build := range []struct {
			name  string
			index func([]byte) (*JSONIndex, *errcode.Error)
		}{{"IndexJSON", IndexJSON}, {"IndexValidJSON", IndexValidJSON}, {"IndexValidJSONSplit", splitIndex}} {
			b.Run(doc.name+"/"+build.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc.data)))
				var ix *JSONIndex
				for b.Loop() {
					var err *errcode.Error
					if ix, err = build.index(doc.data); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(ix.nodes)), "values")
			})
		}
	}
}

// benchPointers are lookups at the start, the middle and the end of the
// document, deep inside its big array and its big object.
func benchPointers(items, members int) map[string]string {
	return map[string]string{
		"start":         "/meta/count",
		"middle-array":  fmt.Sprintf("/items/%d/history/2/v", items/2),
		"end-array":     fmt.Sprintf("/items/%d/address/geo/Lat", items-1),
		"middle-object": fmt.Sprintf("/index/id-%06d/tags/1", members/2),
		"end-object":    fmt.Sprintf("/index/id-%06d/name", members-1),
		"end":           "/tail/last/2",
	}
}

// BenchmarkJSONLookupCold indexes the document and makes one lookup that
// indexes the big array's children.
func BenchmarkJSONLookupCold(b *testing.B) {
	docs := benchDocs()
	p, err := ParsePointer(benchPointers(docs.items, docs.members)["middle-array"])
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(docs.indent)))
	for b.Loop() {
		ix, err := IndexJSON(docs.indent)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Lookup(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONLookupWarm looks up in an index that earlier lookups have
// warmed, including ParsePointer.
func BenchmarkJSONLookupWarm(b *testing.B) {
	docs := benchDocs()
	ix, ierr := IndexJSON(docs.indent)
	if ierr != nil {
		b.Fatal(ierr)
	}
	for name, pointer := range benchPointers(docs.items, docs.members) {
		b.Run(name, func(b *testing.B) {
			p, err := ParsePointer(pointer)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ix.Lookup(p); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				p, _ := ParsePointer(pointer)
				if _, err := ix.Lookup(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
