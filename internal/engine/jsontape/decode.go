package jsontape

import (
	"bytes"

	"github.com/loom-results/loom-results/errcode"
)

// DecodeString returns the decoded text of string value v of data, for
// "as": "string" (SPEC section 4.3). A value of another type fails with
// not_a_string. An escape that decodes to a lone surrogate, which has no
// UTF-8 form, fails with invalid_json whose offset is that escape's
// backslash; a surrogate pair decodes to its code point (RFC 8259 section
// 7).
//
// v should come from an Index of data; a span that is not one valid string
// lexeme fails with invalid_json at the first offending byte, never with a
// panic.
func DecodeString(data []byte, v Value) (string, *errcode.Error) {
	if v.Type != String {
		return "", errcode.New(errcode.NotAString,
			"value at %d-%d is a %s, not a string: \"as\": \"string\" needs a JSON string (\"as\": \"lexeme\" returns any value)",
			v.Start, v.End, v.Type)
	}
	if v.Start < 0 || v.End > len(data) || v.End-v.Start < 2 || data[v.Start] != '"' || data[v.End-1] != '"' {
		return "", errcode.Offset(errcode.InvalidJSON, int64(max(v.Start, 0)),
			"value at %d-%d is not a string lexeme of the %d-byte document", v.Start, v.End, len(data))
	}
	buf, off, why := decodeString(make([]byte, 0, v.End-v.Start-2), data, v.Start, v.End, true)
	switch why {
	case 0:
		return string(buf), nil
	case errLoneSurrogate:
		return "", errcode.Offset(errcode.InvalidJSON, int64(off),
			"escape %s at offset %d is a lone surrogate, which has no UTF-8 form: "+
				"\"as\": \"string\" needs a surrogate pair (\\ud800-\\udbff then \\udc00-\\udfff); \"as\": \"lexeme\" returns the raw text",
			data[off:off+6], off)
	case errEndQuote:
		return "", errcode.Offset(errcode.InvalidJSON, int64(off),
			"value at %d-%d is not one string: its closing '\"' is at offset %d", v.Start, v.End, off)
	}
	return "", syntaxError(data, off, why, MaxDepth)
}

// errLoneSurrogate and errEndQuote are decoding failures that a scan of a
// whole document never reports.
const (
	errLoneSurrogate reason = 200 + iota
	errEndQuote
)

// decodeString appends to dst the decoded content of the string lexeme
// data[start:end], quotes included. When strict, a lone surrogate escape
// fails (at its backslash) and so does raw invalid UTF-8; otherwise a lone
// surrogate is appended in its 3-byte generalized UTF-8 form (WTF-8) and
// invalid bytes as they are. It checks the lexeme as it goes and returns
// the offset and reason of the first failure, if any.
func decodeString(dst, data []byte, start, end int, strict bool) ([]byte, int, reason) {
	dst, _, off, why := decode(dst, data, start, end, strict)
	return dst, off, why
}

// decodeLenient is decodeString, not strict, for a valid lexeme; invalidAt
// is the offset in the decoded text of its first byte that is not valid
// UTF-8 (a lone surrogate's 3-byte form, or a raw invalid byte), or -1.
func decodeLenient(dst, data []byte, start, end int) ([]byte, int) {
	base := len(dst)
	dst, invalidAt, _, _ := decode(dst, data, start, end, false)
	if invalidAt >= 0 {
		invalidAt -= base
	}
	return dst, invalidAt
}

// decode is decodeString that also returns where in dst the first byte
// that is not valid UTF-8 went, or -1. Escapes always decode to whole
// characters, which neither complete nor break the raw bytes around them,
// so that is the first invalid byte of the text.
func decode(dst, data []byte, start, end int, strict bool) (_ []byte, invalidAt, off int, why reason) {
	invalidAt = -1
	last := end - 1 // the closing quote
	text := data[:last]
	for i := start + 1; i < last; {
		// Copy the run of plain bytes up to the next special one.
		j := i
		for j+8 <= last {
			if m := stringSpecial(load8(data, j)); m != 0 {
				j += firstFlagged(m)
				break
			}
			j += 8
		}
		for j < last && strPlain[data[j]] {
			j++
		}
		dst = append(dst, data[i:j]...)
		if i = j; i >= last {
			break
		}
		switch c := data[i]; {
		case c == '\\':
			if i+1 >= last {
				return dst, invalidAt, i + 1, errEscape
			}
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, bad := hex4(text, i+2)
				if bad >= 0 {
					return dst, invalidAt, bad, errHex
				}
				size := 6
				// RFC 8259 section 7: a character outside the Basic
				// Multilingual Plane is a surrogate pair of escapes.
				if r >= 0xD800 && r < 0xDC00 && i+7 < last && data[i+6] == '\\' && data[i+7] == 'u' {
					if lo, bad := hex4(text, i+8); bad < 0 && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						size = 12
					}
				}
				if r >= 0xD800 && r < 0xE000 { // still a surrogate: a lone one
					if strict {
						return dst, invalidAt, i, errLoneSurrogate
					}
					if invalidAt < 0 {
						invalidAt = len(dst)
					}
					dst = append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
				} else {
					dst = appendRune(dst, r)
				}
				i += size
				continue
			default:
				return dst, invalidAt, i + 1, errEscape
			}
			i += 2
		case c == '"':
			return dst, invalidAt, i, errEndQuote
		case c < 0x20:
			return dst, invalidAt, i, errControl
		default: // c >= 0x80
			switch size := utf8Seq(text, i); {
			case size > 0:
				dst = append(dst, data[i:i+size]...)
				i += size
			case strict:
				return dst, invalidAt, i, errUTF8
			default:
				if invalidAt < 0 {
					invalidAt = len(dst)
				}
				dst = append(dst, c)
				i++
			}
		}
	}
	return dst, invalidAt, 0, 0
}

// hex4 reads the 4 hex digits of a \u escape at text[i:]; bad is the
// offset of the first bad digit (len(text) when cut short), or -1.
func hex4(text []byte, i int) (r rune, bad int) {
	for k := i; k < i+4; k++ {
		if k >= len(text) {
			return 0, len(text)
		}
		d := HexDigit(text[k])
		if d < 0 {
			return 0, k
		}
		r = r<<4 | rune(d)
	}
	return r, -1
}

// appendRune appends the UTF-8 form of r, which is not a surrogate.
func appendRune(dst []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(dst, byte(r))
	case r < 0x800:
		return append(dst, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r < 0x10000:
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return append(dst, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// String flags: what the walks must know of a string lexeme before they
// copy its body as it is.
const (
	strEscaped     = 1 << iota // the lexeme holds at least one backslash escape
	strInvalidUTF8             // the lexeme holds raw invalid UTF-8 (lenient scans only)
)

// stringFlags returns the flags of the valid string lexeme that starts at
// data[start], and the offset just past its closing quote: the end and the
// flags in one pass, as the walks need both of a member name.
func stringFlags(data []byte, start int) (end int, flags uint8) {
	n := len(data)
	for i := start + 1; ; {
		for i+8 <= n {
			if m := stringSpecial(load8(data, i)); m != 0 {
				i += firstFlagged(m)
				goto special
			}
			i += 8
		}
		for i < n && strPlain[data[i]] {
			i++
		}
		if i >= n {
			return n, flags // not reached on a valid lexeme
		}
	special:
		switch data[i] {
		case '"':
			return i + 1, flags
		case '\\':
			flags |= strEscaped
			i += 2
		default: // >= 0x80: a lexeme has no other special byte
			if size := utf8Seq(data, i); size > 0 {
				i += size
			} else {
				flags |= strInvalidUTF8
				i++
			}
		}
	}
}

// hasBackslash reports whether b holds a '\\'.
func hasBackslash(b []byte) bool { return bytes.IndexByte(b, '\\') >= 0 }
