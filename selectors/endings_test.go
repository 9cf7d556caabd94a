package selectors

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCRLF: a text is CRLF when it has a line ending and every one is
// "\r\n" (SPEC section 5.2); a last line without an ending does not count,
// and a lone '\r' ends no line. Fed in two chunks at every split, the
// answer is the same, a "\r\n" cut between them included.
func TestCRLF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want bool
	}{
		{"", false},
		{"a", false},
		{"a\n", false},
		{"\n", false},
		{"\r\n", true},
		{"a\r\nb\r\n", true},
		{"a\r\nb", true},          // a last line without an ending does not count
		{"a\r\nb\r", true},        // nor does a last line ending in a lone '\r'
		{"a\r\nb\n", false},       // mixed endings
		{"a\nb\r\n", false},       // mixed, the bare one first
		{"a\r\n\n", false},        // an empty line with a bare ending
		{"a\rb\r\n", true},        // a lone '\r' inside a line
		{"a\r\r\n", true},         // the first '\r' is inside the line
		{"a\r", false},            // no line ending at all
		{"a\rb\rc", false},        // lone '\r's end no line
		{"x\r\n\r\n\r\n", true},   // empty lines
		{"é\r\n日本\r\n", true},     // multi-byte text
		{"\r\n\n\r\n\r\n", false}, // one bare ending among many
		{"a\r\nb\r\nc\nd", false}, // the bare ending on the last ended line
		{"a\r\n\r\r\n\r", true},   // a line of one lone '\r'
		{"\n\r\n\r\n\r\n\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, CRLF([]byte(tt.text)))
			for i := 0; i <= len(tt.text); i++ {
				var s EndingScan
				s.Write([]byte(tt.text[:i]))
				s.Write([]byte(tt.text[i:]))
				assert.Equal(t, tt.want, s.CRLF(), "split at %d", i)
			}
			var s EndingScan
			for i := range len(tt.text) {
				s.Write([]byte{tt.text[i]})
			}
			assert.Equal(t, tt.want, s.CRLF(), "a byte at a time")
		})
	}
}

func TestFinalNewline(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{"": true, "\n": true, "a\n": true, "a\r\n": true, "a": false, "a\r": false, "a\n ": false} {
		assert.Equal(t, want, FinalNewline([]byte(text)), "%q", text)
	}
}

// BenchmarkCRLF is the line-ending check that inspect adds to each result
// (SPEC section 3's crlf), over 16 MiB of 40-byte lines: a CRLF text is
// searched to its end, an LF text only to its first line ending.
func BenchmarkCRLF(b *testing.B) {
	for _, ending := range []string{"\n", "\r\n"} {
		line := []byte("\tx0000000 := compute(a, b) // note é" + ending)
		data := bytes.Repeat(line, 16<<20/len(line))
		name := "LF"
		if ending == "\r\n" {
			name = "CRLF"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if CRLF(data) != (ending == "\r\n") {
					b.Fatal("wrong answer")
				}
			}
		})
	}
}
