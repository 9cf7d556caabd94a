package selectors

import (
	"bytes"
	"math"
	"sort"
	"unicode/utf8"

	"loom-results/errcode"
)

// MaxSize is the largest result the indexes can address: offsets are
// uint32 to keep a line index at four bytes a line.
const MaxSize = math.MaxUint32

// Lines is the line index of a result (SPEC section 4.2): a line is a
// maximal run of bytes that ends with '\n', '\n' included, or the final run
// when the result does not end with '\n'. A lone '\r' does not end a line.
type Lines struct {
	starts []uint32 // starts[i] is the offset of line i+1
	size   int
}

// appendStarts appends the starts of the lines that begin in data[from:to].
// A line begins at from when from is 0 or data[from-1] is '\n'.
func appendStarts(starts []uint32, data []byte, from, to int) []uint32 {
	if from == 0 && to > 0 {
		starts = append(starts, 0)
	}
	for i := from; i < to; {
		j := bytes.IndexByte(data[i:to], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(data) {
			starts = append(starts, uint32(i))
		}
	}
	return starts
}

// scanChunk is the size of the blocks ScanText validates and indexes
// together, so that the second pass over a block reads it from cache.
const scanChunk = 64 << 10

// ScanText checks that data is valid UTF-8 and builds its line index in the
// same pass, block by block. Invalid UTF-8 fails with not_utf8, whose offset
// is the start of the first invalid sequence.
func ScanText(data []byte) (Lines, *errcode.Error) {
	if len(data) > MaxSize {
		return Lines{}, errcode.New(errcode.TooLarge, "%d bytes is over the %d bytes a result can hold", len(data), int64(MaxSize))
	}
	l := Lines{size: len(data), starts: make([]uint32, 0, len(data)/32+1)}
	for from := 0; from < len(data); {
		to := min(from+scanChunk, len(data))
		if to < len(data) {
			// End the block on a character start so no sequence is split; a
			// sequence is at most 4 bytes, so this moves back at most 3.
			for k := 0; k < utf8.UTFMax-1 && !utf8.RuneStart(data[to]); k++ {
				to--
			}
		}
		if !utf8.Valid(data[from:to]) {
			return Lines{}, errcode.Offset(errcode.NotUTF8, int64(firstInvalid(data, from)),
				"not valid UTF-8 at byte %d", firstInvalid(data, from))
		}
		l.starts = appendStarts(l.starts, data, from, to)
		from = to
	}
	return l, nil
}

// firstInvalid returns the offset of the first invalid UTF-8 sequence at or
// after from.
func firstInvalid(data []byte, from int) int {
	for i := from; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// Count returns the number of lines.
func (l Lines) Count() int { return len(l.starts) }

// Line returns the span of line n (1 <= n <= Count), its newline included.
func (l Lines) Line(n int) Span {
	end := l.size
	if n < len(l.starts) {
		end = int(l.starts[n])
	}
	return Span{int(l.starts[n-1]), end}
}

// Start returns the offset where line n starts; n = Count()+1 gives the size.
func (l Lines) Start(n int) int {
	if n > len(l.starts) {
		return l.size
	}
	return int(l.starts[n-1])
}

// Content returns the span of line n without its ending ("\n" or "\r\n").
func (l Lines) Content(data []byte, n int) Span {
	s := l.Line(n)
	if s.End > s.Start && data[s.End-1] == '\n' {
		s.End--
		if s.End > s.Start && data[s.End-1] == '\r' {
			s.End--
		}
	}
	return s
}

// LineAt returns the number of the line that holds offset off
// (0 <= off < size), in O(log lines).
func (l Lines) LineAt(off int) int {
	return sort.Search(len(l.starts), func(i int) bool { return int(l.starts[i]) > off })
}

// Range checks the inclusive line range of SPEC section 4.2 and returns the
// bytes of those lines, newlines included: 1 <= first <= last <= lines, else
// invalid_range with the result's line count in "lines".
func (l Lines) Range(first, last int64) (Span, *errcode.Error) {
	n := int64(len(l.starts))
	if first < 1 || first > n || last < first || last > n {
		return Span{}, l.rangeError(first, last)
	}
	return Span{int(l.starts[first-1]), l.Start(int(last) + 1)}, nil
}

func (l Lines) rangeError(first, last int64) *errcode.Error {
	n := int64(len(l.starts))
	if n == 0 {
		return errcode.New(errcode.InvalidRange, "lines %d-%d outside an empty result: it has no lines", first, last).
			With("lines", n)
	}
	return errcode.New(errcode.InvalidRange, "lines %d-%d outside 1-%d", first, last, n).With("lines", n)
}
