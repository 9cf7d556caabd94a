package selectors

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkScanText is the UTF-8 check and line index of a 16 MiB result:
// source-like lines with one two-byte character each, plain ASCII, and
// CJK text (three-byte characters).
func BenchmarkScanText(b *testing.B) {
	const size = 16 << 20
	texts := map[string]func(int) string{
		"source": func(i int) string { return fmt.Sprintf("\tx%07d := compute(a, b) // note é\n", i) },
		"ascii":  func(i int) string { return fmt.Sprintf("\tx%07d := compute(a, b) // note e\n", i) },
		"cjk":    func(i int) string { return fmt.Sprintf("%07d 中文文本的一行，用于测试。\n", i) },
	}
	for _, name := range []string{"source", "ascii", "cjk"} {
		var sb strings.Builder
		for i := 0; sb.Len() < size-100; i++ {
			sb.WriteString(texts[name](i))
		}
		data := []byte(sb.String())
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ScanText(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
