// Package benchdoc generates the JSON documents that the benchmarks of
// jsontape, selectors and briefing scan and look up in, so that their
// figures are measured on the same bytes.
package benchdoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Size is the size of the generated documents: the default
// --max-result-bytes.
const Size = 16 << 20

// Docs is the generated documents: the realistic one indented and
// compact, with the lengths of its big array ("items") and its big object
// ("index"), and perfbench's records.
type Docs struct {
	Indent, Compact []byte
	Items, Members  int
	Records         []byte
}

// Get returns the documents, generated on first use (a second or so).
var Get = sync.OnceValue(generate)

// generate makes a realistic document of about Size bytes: records with
// nested objects and arrays, numbers, and strings with escapes and
// non-ASCII text.
func generate() (docs Docs) {
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
	for size < Size*2/3 {
		r := newRecord(len(items))
		b, _ := json.MarshalIndent(r, "    ", "  ")
		size += len(b)
		items = append(items, r)
	}
	for size < Size {
		r := newRecord(len(index))
		b, _ := json.MarshalIndent(r, "    ", "  ")
		size += len(b)
		index[fmt.Sprintf("id-%06d", len(index))] = r
	}
	doc := map[string]any{
		"meta":  map[string]any{"count": len(items), "generator": "benchdoc", "tags": []string{"a", "b"}},
		"items": items,
		"index": index,
		"tail":  map[string]any{"last": []int{1, 2, 3}},
	}
	var err error
	if docs.Indent, err = json.MarshalIndent(doc, "", "  "); err != nil {
		panic(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, docs.Indent); err != nil {
		panic(err)
	}
	docs.Compact = b.Bytes()
	docs.Items, docs.Members = len(items), len(index)
	docs.Records = Records(Size)
	return docs
}

// Records is perfbench's get_json document of at most size bytes: small
// records in one big array, as docs/performance.md's rows use.
func Records(size int) []byte {
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
