package hugepage

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAdviseKeepsContents checks that advising changes nothing a buffer
// holds, before and after it is written, whatever its size and alignment.
func TestAdviseKeepsContents(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 1, MinAdvised - 1, MinAdvised, 4*Size + 12345} {
		for _, off := range []int{0, 1, 4095} {
			buf := make([]byte, size+off)
			b := buf[off:]
			Advise(b)
			assert.Equal(t, make([]byte, size), b, "fresh buffer of %d bytes at offset %d", size, off)
			for i := range b {
				b[i] = byte(i * 7)
			}
			want := bytes.Clone(b)
			Advise(b)
			assert.Equal(t, want, b, "written buffer of %d bytes at offset %d", size, off)
		}
	}
}
