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

// TestAdviseSliceKeepsContents is TestAdviseKeepsContents for a slice of
// 12-byte elements, advised up to its capacity.
func TestAdviseSliceKeepsContents(t *testing.T) {
	t.Parallel()
	type node struct{ a, b, c uint32 }
	for _, n := range []int{0, 10, MinAdvised / 12, MinAdvised/12 + 1, 5 * Size / 12} {
		s := make([]node, 0, n)
		AdviseSlice(s)
		s = s[:n]
		for i := range s {
			s[i] = node{uint32(i), uint32(i * 3), 7}
		}
		AdviseSlice(s)
		for i := range s {
			if s[i] != (node{uint32(i), uint32(i * 3), 7}) {
				t.Fatalf("element %d of %d changed: %v", i, n, s[i])
			}
		}
	}
}
