// Package selectors selects from a stored result: half-open byte ranges,
// inclusive line ranges, RFC 6901 JSON pointers (over the index of package
// internal/engine/jsontape, which knows the JSON grammar), and the lines that
// match a pattern. Everything here is a pure function over the result's
// bytes (and the indexes built from them once); nothing copies or rescans a
// result to answer a lookup.
package selectors

// Span is a half-open byte range [Start, End) of a result.
type Span struct {
	Start, End int
}

// Len returns the number of bytes in the span.
func (s Span) Len() int { return s.End - s.Start }
