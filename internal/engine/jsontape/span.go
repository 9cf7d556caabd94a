// Finding values in JSON that json.Valid, or this package's Validate, has
// accepted, without decoding or indexing it: where a value ends, the
// members of an object, how deep a value nests. Nothing here checks: on
// JSON that is not valid the answers mean nothing. The transport reads a
// JSON-RPC envelope with these, and the server the top level of a tool's
// arguments.

package jsontape

import (
	"bytes"
	"encoding/json"
)

// Span is a value's lexeme, b[Start:End] of the JSON it was found in.
type Span struct{ Start, End int }

// Present reports a span that was found (the zero Span is absent: no
// value ends at 0).
func (s Span) Present() bool { return s.End > 0 }

// Len is the lexeme's length.
func (s Span) Len() int { return s.End - s.Start }

// Members yields the decoded name and the value Span of each member of the
// object that starts at body[i], in order, duplicates included. A name is
// decoded as encoding/json decodes it (invalid UTF-8 and lone surrogates
// read as U+FFFD), so it equals a JSON-RPC member name exactly when
// encoding/json would match it without folding case.
func Members(body []byte, i int) func(yield func(string, Span) bool) {
	return func(yield func(string, Span) bool) {
		for name, v := range MemberSpans(body, i) {
			if !yield(MemberName(body[name.Start:name.End]), v) {
				return
			}
		}
	}
}

// MemberSpans yields the Span of each member's name (its lexeme, quotes
// included) and of its value, for the object that starts at body[i].
func MemberSpans(body []byte, i int) func(yield func(name, value Span) bool) {
	return func(yield func(name, value Span) bool) {
		i := SkipSpace(body, i+1)
		for body[i] != '}' {
			nameEnd := StringEnd(body, i)
			vs := SkipSpace(body, SkipSpace(body, nameEnd)+1) // past ':'
			ve := ValueEnd(body, vs)
			if !yield(Span{i, nameEnd}, Span{vs, ve}) {
				return
			}
			i = SkipSpace(body, ve)
			if body[i] == ',' {
				i = SkipSpace(body, i+1)
			}
		}
	}
}

// DeeperThan reports whether the value b nests more than limit arrays and
// objects.
func DeeperThan(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			i = StringEnd(b, i)
			continue
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
		i++
	}
	return false
}

// MemberName decodes a member name's lexeme, quotes included.
func MemberName(lex []byte) string {
	inner := lex[1 : len(lex)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	json.Unmarshal(lex, &s) // valid: json.Valid has accepted the message
	return s
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index just past the string that starts at b[i]
// (its opening quote): the first quote after i not preceded by an odd
// number of backslashes.
func StringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		q := bytes.IndexByte(b[j:], '"') + j
		k := q
		for k > i+1 && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// ValueEnd returns the index just past the value that starts at b[i].
func ValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = StringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	// A number or a literal: it ends at the first delimiter.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
