package briefing

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feed writes data to a fresh capture of the given limit in chunks of at
// most size bytes, and finishes it.
func feed(limit int64, data string, size int) (c *capture, text string, dropped, replaced int64) {
	c = newCapture(limit)
	for i := 0; i < len(data); i += size {
		c.write([]byte(data[i:min(i+size, len(data))]))
	}
	kept, dropped, replaced := c.finish()
	return c, string(kept), dropped, replaced
}

func TestCaptureReplacesInvalidUTF8(t *testing.T) {
	t.Parallel()
	const r = "\ufffd"
	tests := []struct {
		name, in, want string
		replaced       int64
	}{
		{"valid", "abc é 😀\n", "abc é 😀\n", 0},
		{"a lone byte", "a\xffb", "a" + r + "b", 1},
		{"two bytes never valid", "\xff\xfe", r + r, 2},
		{"a truncated sequence is one subpart", "\xe2\x82A", r + "A", 2},
		{"a truncated sequence at the end", "ok\xf0\x9f\x98", "ok" + r, 3},
		{"a lone continuation byte", "\x80x", r + "x", 1},
		{"an overlong encoding", "\xc0\xaf", r + r, 2},
		{"a surrogate", "\xed\xa0\x80", r + r + r, 3},
		{"above U+10FFFF", "\xf4\x90\x80\x80", r + r + r + r, 4},
		{"E0 needs A0 at least", "\xe0\x9f\x80", r + r + r, 3},
		{"a lead byte cut by another", "\xe2\xe2\x82\xac", r + "€", 1},
		{"only a replacement character already", "\ufffd", "\ufffd", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// However the stream is cut into chunks, the text is the same.
			for size := 1; size <= len(tt.in); size++ {
				_, got, dropped, replaced := feed(1<<20, tt.in, size)
				assert.Equal(t, tt.want, got, "chunks of %d", size)
				assert.Equal(t, tt.replaced, replaced, "chunks of %d", size)
				assert.Zero(t, dropped)
			}
		})
	}
}

func TestCaptureKeepsTheTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		limit   int64
		in      string
		want    string
		dropped int64
	}{
		{"under the limit", 10, "0123", "0123", 0},
		{"at the limit", 10, "0123456789", "0123456789", 0},
		{"over the limit", 10, "0123456789abcdef", "6789abcdef", 6},
		{"many times over", 3, strings.Repeat("x", 100) + "end", "end", 100},
		{"the cut inside a character moves to the next", 4, "aé€", "€", 3},
		{"measured after replacement", 4, "ab\xff", "b\ufffd", 1},
		{"a limit of 0 keeps nothing", 0, "abc", "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for size := 1; size <= len(tt.in); size++ {
				_, got, dropped, _ := feed(tt.limit, tt.in, size)
				assert.Equal(t, tt.want, got, "chunks of %d", size)
				assert.Equal(t, tt.dropped, dropped, "chunks of %d", size)
			}
		})
	}
}

// TestCaptureFloodIsBounded: whatever a command prints, the capture holds
// at most its limit: a ring of the tail.
func TestCaptureFloodIsBounded(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	c := newCapture(limit)
	chunk := bytes.Repeat([]byte("0123456789abcde\n"), 4096) // 64 KiB
	for range 1024 {                                         // 64 MiB
		c.write(chunk)
		require.LessOrEqual(t, cap(c.buf), limit)
	}
	c.write([]byte("the end\n"))
	kept, dropped, replaced := c.finish()
	assert.Len(t, kept, limit)
	assert.Equal(t, int64(64<<20+8-limit), dropped)
	assert.Zero(t, replaced)
	assert.True(t, bytes.HasSuffix(kept, []byte("0123456789abcde\nthe end\n")))
	assert.True(t, bytes.HasPrefix(kept, []byte("89abcde\n0123456789abcde\n")), "the last 1 MiB, exactly")
}

func TestCaptureProgress(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200)
	tests := []struct {
		name   string
		chunks []string
		line   string
		ok     bool
	}{
		{"no line yet", []string{"partial"}, "", false},
		{"the last complete line", []string{"one\ntwo\nthr"}, "two", true},
		{"a line across chunks", []string{"ab", "c", "def\nxyz"}, "abcdef", true},
		{"an empty line", []string{"a\n\n"}, "", true},
		{"CRLF", []string{"a\r\n"}, "a", true},
		{"cut to 120 bytes", []string{long + "\n"}, long[:120], true},
		{"cut on a character boundary", []string{long[:119] + "é" + long + "\n"}, long[:119], true},
		{"a long line across chunks", []string{long, long, "\n"}, long[:120], true},
		{"replaced bytes", []string{"a\xffb\n"}, "a\ufffdb", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCapture(1 << 20)
			var n int64
			for _, s := range tt.chunks {
				c.write([]byte(s))
				n += int64(len(s))
			}
			read, line, ok := c.progress()
			assert.Equal(t, n, read)
			assert.Equal(t, tt.line, line)
			assert.Equal(t, tt.ok, ok)
		})
	}
}
