package workspace

import (
	"io"
	"math"
	"slices"

	"github.com/loom-results/loom-results/internal/engine/hugepage"
)

// readWindow is the most one read takes when a watcher works beside it.
const readWindow = 1 << 20

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
//
// With watch set, the file is read readWindow bytes at a time and watch is
// called with the bytes read so far after every read that added some, so
// that a consumer (a digest, say) can work beside the reading. Bytes that
// watch has been given never change, but the buffer holding them may be
// replaced when the file grows past its hint.
func readBounded(r io.Reader, sizeHint, maxBytes int64, watch func(filled []byte)) (data []byte, over bool, err error) {
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
	hugepage.Advise(buf[:c])
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit-int64(len(buf)))))
		}
		// slices.Grow may round the capacity up: the window, not the
		// capacity, is what bounds the read.
		end := min(int64(cap(buf)), limit)
		if watch != nil {
			end = min(end, int64(len(buf))+readWindow)
		}
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if watch != nil && n > 0 {
			watch(buf)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	return buf, int64(len(buf)) > maxBytes, nil
}
