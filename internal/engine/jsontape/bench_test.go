package jsontape

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/instruments/benchdoc"
)

// benchInputs are the documents the benchmarks scan.
func benchInputs() []struct {
	name string
	data []byte
} {
	docs := benchdoc.Get()
	return []struct {
		name string
		data []byte
	}{{"indent", docs.Indent}, {"compact", docs.Compact}, {"records", docs.Records}}
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
		data := benchdoc.Records(size)
		b.Run(fmt.Sprintf("%dKiB/one", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				bl := newBuilder(len(data))
				sc := newScanner(data, false, bl)
				if st, _ := sc.run(); st != done {
					b.Fatal("invalid")
				}
				newIndex(data, sc.top, preorder(&bl.tape))
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
