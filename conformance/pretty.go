package conformance

import (
	"bytes"
	"encoding/json"
	"strings"
)

// prettyWidth is how wide a line of a server section may grow to keep an
// object or array that holds other objects or arrays on one line.
const prettyWidth = 100

// pretty renders one JSON value for a server section: indented with tabs,
// an object or array of scalars on one line (a budget, a selection), any
// other on one line when it fits in prettyWidth columns, else one member a
// line. Strings and numbers keep their bytes exactly as the server wrote
// them, escapes included. Not JSON is returned as it is.
func pretty(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return raw
	}
	v, _ := parseRaw(raw, 0)
	var buf bytes.Buffer
	v.write(&buf, 0)
	return buf.Bytes()
}

// rawValue is a JSON value split into its members without decoding them.
type rawValue struct {
	kind    byte     // '{', '[' or 0 for a scalar
	scalar  []byte   // a scalar's bytes
	keys    [][]byte // an object's member names, as written
	members []rawValue
}

// parseRaw parses the valid JSON value at data[i:] (after white space) and
// returns it and the offset after it.
func parseRaw(data []byte, i int) (rawValue, int) {
	i = skipSpace(data, i)
	switch data[i] {
	case '{', '[':
		v := rawValue{kind: data[i]}
		closer := byte('}')
		if v.kind == '[' {
			closer = ']'
		}
		i = skipSpace(data, i+1)
		if data[i] == closer {
			return v, i + 1
		}
		for {
			if v.kind == '{' {
				end := scanString(data, i)
				v.keys = append(v.keys, data[i:end])
				i = skipSpace(data, end) + 1 // the ':'
			}
			var m rawValue
			m, i = parseRaw(data, i)
			v.members = append(v.members, m)
			i = skipSpace(data, i)
			if data[i] == closer {
				return v, i + 1
			}
			i = skipSpace(data, i+1) // the ','
		}
	case '"':
		end := scanString(data, i)
		return rawValue{scalar: data[i:end]}, end
	default:
		end := i
		for end < len(data) && !strings.ContainsRune(" \t\r\n,]}", rune(data[end])) {
			end++
		}
		return rawValue{scalar: data[i:end]}, end
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// scanString returns the offset after the string literal at data[i].
func scanString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// oneLine renders v on one line.
func (v rawValue) oneLine(buf *bytes.Buffer) {
	if v.kind == 0 {
		buf.Write(v.scalar)
		return
	}
	buf.WriteByte(v.kind)
	for i, m := range v.members {
		if i > 0 {
			buf.WriteString(", ")
		}
		if v.kind == '{' {
			buf.Write(v.keys[i])
			buf.WriteString(": ")
		}
		m.oneLine(buf)
	}
	buf.WriteByte(closing(v.kind))
}

func closing(kind byte) byte {
	if kind == '{' {
		return '}'
	}
	return ']'
}

// flat reports whether v holds no objects or arrays.
func (v rawValue) flat() bool {
	for _, m := range v.members {
		if m.kind != 0 {
			return false
		}
	}
	return true
}

// write renders v at the given depth; the caller has written the line's
// indentation and any member name.
func (v rawValue) write(buf *bytes.Buffer, depth int) {
	var line bytes.Buffer
	v.oneLine(&line)
	// The line's start is not known here; the depth's indentation and a
	// member name are about what precedes a value.
	if v.kind == 0 || len(v.members) == 0 || v.flat() || 4*depth+line.Len() <= prettyWidth {
		buf.Write(line.Bytes())
		return
	}
	buf.WriteByte(v.kind)
	for i, m := range v.members {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
		buf.WriteString(strings.Repeat("\t", depth+1))
		if v.kind == '{' {
			buf.Write(v.keys[i])
			buf.WriteString(": ")
		}
		m.write(buf, depth+1)
	}
	buf.WriteByte('\n')
	buf.WriteString(strings.Repeat("\t", depth))
	buf.WriteByte(closing(v.kind))
}
