package selectors

import (
	"fmt"
	"testing"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/internal/instruments/benchdoc"
)

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

// BenchmarkLookupCold indexes the indented 16 MiB document and makes one
// lookup, which indexes the big array's checkpoints on the way.
func BenchmarkLookupCold(b *testing.B) {
	docs := benchdoc.Get()
	p, err := ParsePointer(benchPointers(docs.Items, docs.Members)["middle-array"])
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(docs.Indent)))
	for b.Loop() {
		ix, err := jsontape.Build(docs.Indent, jsontape.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Lookup(ix, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupFirst is the first lookup in an index that Build has just
// made, as the first get_json after inspect: the big containers on the way
// are indexed, nothing is scanned again.
func BenchmarkLookupFirst(b *testing.B) {
	docs := benchdoc.Get()
	p, err := ParsePointer(benchPointers(docs.Items, docs.Members)["middle-array"])
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		ix, err := jsontape.Build(docs.Indent, jsontape.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Lookup(ix, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupWarm looks up in an index that earlier lookups have
// warmed, including ParsePointer.
func BenchmarkLookupWarm(b *testing.B) {
	docs := benchdoc.Get()
	ix, ierr := jsontape.Build(docs.Indent, jsontape.Options{})
	if ierr != nil {
		b.Fatal(ierr)
	}
	for name, pointer := range benchPointers(docs.Items, docs.Members) {
		b.Run(name, func(b *testing.B) {
			p, err := ParsePointer(pointer)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Lookup(ix, p); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				p, _ := ParsePointer(pointer)
				if _, err := Lookup(ix, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
