package briefing

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-results/loom-results/limits"
)

// BenchmarkGetRangeNearEnd is a warm get_range of about 800 bytes near the
// end of the 16 MiB result.
func BenchmarkGetRangeNearEnd(b *testing.B) {
	br, _ := benchBriefing(b)
	e := br.inspectPaths([]string{"big.go"})
	if e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	// 40-byte lines of ASCII and one "é" (2 bytes): a multiple of the line
	// length is a character boundary.
	size := e[0].Descriptor.Bytes
	lineLen := int64(len(fmt.Sprintf("\tx%07d := compute(a, b) // note é\n", 0)))
	start := (size/lineLen - 25) * lineLen
	end := start + 20*lineLen
	for b.Loop() {
		if _, err := br.getRange(Ref{Result: "r1"}, &start, &end); err != nil {
			b.Fatal(err)
		}
	}
}

// jsonBriefing writes a JSON document of about 16 MiB (just under
// --max-result-bytes) and returns a briefing whose root holds it, and the
// number of items in its "items" array.
func jsonBriefing(b *testing.B) (*Briefing, int) {
	b.Helper()
	var sb strings.Builder
	sb.WriteString(`{"meta":{"name":"bench","version":3},"items":[`)
	n := 0
	for sb.Len() < 16<<20-4096 {
		if n > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"item-%d","price":%d.25,"tags":["a","b\u00e9"],"ok":true}`, n, n, n%1000)
		n++
	}
	sb.WriteString(`]}`)
	return benchRoot(b, "big.json", sb.String()), n
}

// BenchmarkGetJSONCold is the first get_json on a fresh 16 MiB result: it
// includes the one scan that indexes the document. The inspect before it is
// not timed.
func BenchmarkGetJSONCold(b *testing.B) {
	first, n := jsonBriefing(b)
	ptr := "/items/" + strconv.Itoa(n-10) + "/name"
	b.SetBytes(16 << 20)
	for b.Loop() {
		b.StopTimer()
		br := New(first.opts)
		if e := br.inspectPaths([]string{"big.json"}); e[0].Err != nil {
			b.Fatal(e[0].Err)
		}
		b.StartTimer()
		if _, err := br.getJSON(Ref{Result: "r1"}, ptr, AsString); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		br.Close()
		b.StartTimer()
	}
}

// BenchmarkGetJSONWarm is a later get_json on the same 16 MiB result, at
// pointers spread over the document.
func BenchmarkGetJSONWarm(b *testing.B) {
	br, n := jsonBriefing(b)
	if e := br.inspectPaths([]string{"big.json"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	if _, err := br.getJSON(Ref{Result: "r1"}, "/meta", AsLexeme); err != nil {
		b.Fatal(err)
	}
	ptrs := make([]string, 64)
	for i := range ptrs {
		ptrs[i] = "/items/" + strconv.Itoa(i*(n/len(ptrs))) + "/tags/1"
	}
	i := 0
	for b.Loop() {
		if _, err := br.getJSON(Ref{Result: "r1"}, ptrs[i%len(ptrs)], AsString); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkListResults1024 lists pages of 16 from a catalogue of 1,024
// results (the --max-results default), first, middle and last pages.
func BenchmarkListResults1024(b *testing.B) {
	cfg := limits.Defaults()
	cfg.MaxLookups = 1 << 62
	cfg.MaxStepBytes = 1 << 62
	br := New(Options{Limits: cfg})
	for i := range 1024 {
		if _, err := br.retainOutput(Output{Label: "run " + strconv.Itoa(i), Text: "ok " + strconv.Itoa(i) + "\n"}); err != nil {
			b.Fatal(err)
		}
	}
	pages := []int64{0, 31, 63}
	i := 0
	for b.Loop() {
		p, err := br.listResults(pages[i%len(pages)], nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Results) != 16 {
			b.Fatalf("page has %d results, want 16", len(p.Results))
		}
		i++
	}
}
