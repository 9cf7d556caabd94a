package editbench

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/loom-results/loom-results/limits"
)

// splitLines splits b into lines as SPEC section 4.2 defines them: each line
// keeps its "\n" (so a CRLF line keeps "\r\n"), and a final run without one
// is a line of its own. The lines alias b.
func splitLines(b []byte) [][]byte {
	var lines [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, b)
			break
		}
		lines = append(lines, b[:i+1])
		b = b[i+1:]
	}
	return lines
}

// content is a line without its ending ("\n" or "\r\n"): what find matches
// against (SPEC section 5.3).
func content(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// join concatenates lines.
func join(lines [][]byte) []byte {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b := make([]byte, 0, n)
	for _, l := range lines {
		b = append(b, l...)
	}
	return b
}

// isText reports whether b is a text file for the benchmark: valid UTF-8
// (the server refuses anything else) without NUL bytes (git's own test for
// binary content).
func isText(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

// cutPrefix returns the longest prefix of s of at most n bytes that ends on
// a character boundary.
func cutPrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// appendString appends s as a JSON string literal that escapes only what
// RFC 8259 requires, as a model generating compact JSON would write it: the
// measure of SPEC section 6.
func appendString(b []byte, s string) []byte { return limits.AppendEscaped(b, s) }

// escapedLen is the length of s as a JSON string literal (appendString),
// quotes included.
func escapedLen(s []byte) int {
	n := 2 + len(s)
	for _, c := range s {
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// obj builds one compact JSON object, members in the order they are added.
type obj struct{ b []byte }

func (o *obj) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = appendString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *obj) str(k, v string) *obj {
	o.key(k)
	o.b = appendString(o.b, v)
	return o
}

func (o *obj) int(k string, v int) *obj {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
	return o
}

func (o *obj) raw(k string, v []byte) *obj {
	o.key(k)
	o.b = append(o.b, v...)
	return o
}

func (o *obj) bytes() []byte {
	if len(o.b) == 0 {
		return []byte("{}")
	}
	return append(o.b, '}')
}
