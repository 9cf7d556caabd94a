package briefing

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkInspectJSON16MiB is inspect of jsonBriefing's 16 MiB document
// (perfbench's records) end to end: read, SHA-256, UTF-8 and line index,
// and the JSON scan that builds the index. Each iteration uses a fresh
// briefing, so nothing is reused. BenchmarkSHA256JSON16MiB is its floor.
func BenchmarkInspectJSON16MiB(b *testing.B) {
	first, _ := jsonBriefing(b)
	b.SetBytes(16 << 20)
	for b.Loop() {
		br := New(first.opts)
		if e := br.inspectPaths([]string{"big.json"}); e[0].Err != nil {
			b.Fatal(e[0].Err)
		}
		br.Close()
	}
}

// BenchmarkSHA256JSON16MiB is the hashing limit of the inspect above: Go's
// SHA-256 over the same bytes, already in memory (SPEC section 3: every
// result has its digest).
func BenchmarkSHA256JSON16MiB(b *testing.B) {
	first, _ := jsonBriefing(b)
	data, err := os.ReadFile(filepath.Join(first.opts.Root.Dir(), "big.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sha256.Sum256(data)
	}
}
