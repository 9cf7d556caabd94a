package selectors

import (
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
)

// ByteRange checks the half-open range [start, end) of SPEC section 4.1
// against data: start's range, then its character boundary, then end's range,
// then its boundary. data must be valid UTF-8.
func ByteRange(data []byte, start, end int64) (Span, *errcode.Error) {
	size := int64(len(data))
	if start < 0 || start > size {
		return Span{}, rangeError(start, end, size)
	}
	if err := boundary(data, start); err != nil {
		return Span{}, err
	}
	if end < start || end > size {
		return Span{}, rangeError(start, end, size)
	}
	if err := boundary(data, end); err != nil {
		return Span{}, err
	}
	return Span{int(start), int(end)}, nil
}

func rangeError(start, end, size int64) *errcode.Error {
	return errcode.New(errcode.InvalidRange,
		"bytes %d-%d outside 0-%d: need 0 <= start <= end <= %d", start, end, size, size).
		With(errcode.Details{Size: new(size)})
}

// boundary fails with not_char_boundary when off lies inside a multi-byte
// UTF-8 sequence, giving the nearest boundaries before and after it.
func boundary(data []byte, off int64) *errcode.Error {
	if IsCharBoundary(data, int(off)) {
		return nil
	}
	before, after := int(off), int(off)
	for before > 0 && !utf8.RuneStart(data[before]) {
		before--
	}
	for after < len(data) && !utf8.RuneStart(data[after]) {
		after++
	}
	return errcode.New(errcode.NotCharBoundary,
		"offset %d is inside a multi-byte character; nearest boundaries are %d and %d", off, before, after).
		With(errcode.Details{Offset: new(off), Before: new(int64(before)), After: new(int64(after))})
}

// IsCharBoundary reports whether off (0 <= off <= len(data)) starts a
// character or ends the data.
func IsCharBoundary(data []byte, off int) bool {
	return off == len(data) || utf8.RuneStart(data[off])
}

// FloorCharBoundary returns the largest character boundary <= off.
func FloorCharBoundary(data []byte, off int) int {
	if off >= len(data) {
		return len(data)
	}
	for off > 0 && !utf8.RuneStart(data[off]) {
		off--
	}
	return off
}

// CeilCharBoundary returns the smallest character boundary >= off.
func CeilCharBoundary(data []byte, off int) int {
	for off < len(data) && !utf8.RuneStart(data[off]) {
		off++
	}
	return off
}
