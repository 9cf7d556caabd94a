package workspace

import (
	"io"
	"math"
	"slices"
)

// zeroSizeChunk is the first allocation for a file that reports size 0,
// such as most files in /proc, which have contents all the same.
const zeroSizeChunk = 512

// readBounded reads r to its end, but never more than maxBytes+1 bytes in
// total; over reports that it got more than maxBytes, and then data is
// unspecified. sizeHint (the fstat size) sizes the buffer: when the file
// has exactly that size, the buffer is allocated once, with one spare byte
// so that the end of the file is seen without growing it. A file that grows
// past the hint makes the buffer double, never beyond maxBytes+1; a file
// that shrinks returns what was there.
func readBounded(r io.Reader, sizeHint, maxBytes int64) (data []byte, over bool, err error) {
	limit := maxBytes + 1
	if maxBytes == math.MaxInt64 {
		limit = maxBytes
	}
	c := limit
	switch {
	case sizeHint <= 0:
		c = min(limit, zeroSizeChunk)
	case sizeHint < limit:
		c = sizeHint + 1
	}
	buf := make([]byte, 0, c)
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit-int64(len(buf)))))
		}
		// slices.Grow may round the capacity up: the window, not the
		// capacity, is what bounds the read.
		end := min(int64(cap(buf)), limit)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	return buf, int64(len(buf)) > maxBytes, nil
}
