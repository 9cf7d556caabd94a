package jsontape

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/loom-results/loom-results/errcode"
)

// benchDocSize is the size of the generated documents: the default
// --max-result-bytes.
const benchDocSize = 16 << 20

// benchDoc is the generated documents: the realistic one indented and
// compact, with the lengths of its big array and its big object, and
// perfbench's records (small records in one array, as the README's
// Performance rows use).
type benchDoc struct {
	indent, compact []byte
	items, members  int
	records         []byte
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
	docs.records = records(benchDocSize)
	return docs
}

// records is perfbench's get_json document of size bytes.
func records(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"meta":{"name":"bench","version":3},"items":[`)
	for n := 0; b.Len() < size-256; n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","price":%d.25,"tags":["a","b\u00e9"],"ok":true}`, n, n, n%1000)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// benchInputs are the documents the benchmarks scan.
func benchInputs() []struct {
	name string
	data []byte
} {
	docs := benchDocs()
	return []struct {
		name string
		data []byte
	}{{"indent", docs.indent}, {"compact", docs.compact}, {"records", docs.records}}
}

// BenchmarkValidate compares Validate and Build with encoding/json.Valid
// and jsontext (duplicate names allowed, as ours) on the same 16 MiB
// documents, and with the hash that inspect computes over the same bytes
// (crypto/sha256, in memory): inspect can hide the scan behind the hash
// only where Build, on the core the hash leaves free, keeps up with it.
func BenchmarkValidate(b *testing.B) {
	for _, doc := range benchInputs() {
		b.Run(doc.name+"/Validate", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			for b.Loop() {
				if _, err := Validate(doc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(doc.name+"/Build", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			var ix *Index
			for b.Loop() {
				var err *errcode.Error
				if ix, err = Build(doc.data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(ix.tape)), "entries")
			b.ReportMetric(float64(len(ix.tape))*float64(unsafe.Sizeof(entry{}))/float64(len(doc.data)), "tape-bytes/doc-byte")
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
		b.Run(doc.name+"/crypto_sha256", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			for b.Loop() {
				sha256.Sum256(doc.data)
			}
		})
	}
}

// BenchmarkBuildSplit compares the one-scan build with the two-half one
// on perfbench's records from 64 KiB to 16 MiB: splitMin is where the
// second goroutine starts to pay.
func BenchmarkBuildSplit(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20, 2 << 20, 4 << 20, 16 << 20} {
		data := records(size)
		b.Run(fmt.Sprintf("%dKiB/one", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				bl := newBuilder(len(data))
				sc := newScanner(data, false, bl)
				if st, _ := sc.run(); st != done {
					b.Fatal("invalid")
				}
				newIndex(data, sc.top, preorder(bl.tape))
			}
		})
		b.Run(fmt.Sprintf("%dKiB/two", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := buildSplit(data, Options{}, len(data)/2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
