package selectors

import (
	"encoding/binary"
	"math/bits"

	"github.com/loom-results/loom-results/errcode"
)

// DecodeJSONString returns the decoded text of string value v of data, for
// "as": "string" (SPEC section 4.3). A value of another type fails with
// not_a_string. An escape that decodes to a lone surrogate, which has no
// UTF-8 form, fails with invalid_json whose offset is that escape's
// backslash; a surrogate pair decodes to its code point.
//
// v should come from a lookup in data; a span that is not one valid string
// lexeme fails with invalid_json at the first offending byte, never with a
// panic.
func DecodeJSONString(data []byte, v JSONValue) (string, *errcode.Error) {
	if v.Type != JSONString {
		return "", errcode.New(errcode.NotAString,
			"value at %d-%d is a %s, not a string: \"as\": \"string\" needs a JSON string (\"as\": \"lexeme\" returns any value)",
			v.Start, v.End, v.Type)
	}
	if v.Start < 0 || v.End > len(data) || v.End-v.Start < 2 || data[v.Start] != '"' || data[v.End-1] != '"' {
		return "", errcode.Offset(errcode.InvalidJSON, int64(max(v.Start, 0)),
			"value at %d-%d is not a string lexeme of the %d-byte document", v.Start, v.End, len(data))
	}
	buf, off, why := jsonDecodeString(make([]byte, 0, v.End-v.Start-2), data, v.Start, v.End, true)
	switch why {
	case 0:
		return string(buf), nil
	case jsonErrLoneSurrogate:
		return "", errcode.Offset(errcode.InvalidJSON, int64(off),
			"escape %s at offset %d is a lone surrogate, which has no UTF-8 form: "+
				"\"as\": \"string\" needs a surrogate pair (\\ud800-\\udbff then \\udc00-\\udfff); \"as\": \"lexeme\" returns the raw text",
			data[off:off+6], off)
	case jsonErrEndQuote:
		return "", errcode.Offset(errcode.InvalidJSON, int64(off),
			"value at %d-%d is not one string: its closing '\"' is at offset %d", v.Start, v.End, off)
	}
	return "", jsonSyntaxError(data, off, why)
}

// jsonErrLoneSurrogate and jsonErrEndQuote are decoding failures that a
// scan of the whole document never reports.
const (
	jsonErrLoneSurrogate jsonReason = 200 + iota
	jsonErrEndQuote
)

// jsonDecodeString appends to dst the decoded content of the string lexeme
// data[start:end], quotes included. When strict, a lone surrogate escape
// fails (at its backslash) and so does raw invalid UTF-8; otherwise a lone
// surrogate is appended in its 3-byte generalized UTF-8 form (WTF-8) and
// invalid bytes as they are. It checks the lexeme as it goes and returns the
// offset and reason of the first failure, if any.
func jsonDecodeString(dst, data []byte, start, end int, strict bool) ([]byte, int, jsonReason) {
	last := end - 1 // the closing quote
	text := data[:last]
	for i := start + 1; i < last; {
		// Copy the run of plain bytes up to the next special one.
		j := i
		for j+8 <= last {
			if m := jsonStringSpecial(binary.LittleEndian.Uint64(data[j:])) & swarHighs; m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		for j < last && jsonStrPlain[data[j]] {
			j++
		}
		dst = append(dst, data[i:j]...)
		if i = j; i >= last {
			break
		}
		switch c := data[i]; {
		case c == '\\':
			if i+1 >= last {
				return dst, i + 1, jsonErrEscape
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
				r, off := jsonHex4(text, i+2)
				if off >= 0 {
					return dst, off, jsonErrHex
				}
				size := 6
				if r >= 0xD800 && r < 0xDC00 && i+7 < last && data[i+6] == '\\' && data[i+7] == 'u' {
					if lo, off := jsonHex4(text, i+8); off < 0 && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						size = 12
					}
				}
				if r >= 0xD800 && r < 0xE000 { // still a surrogate: a lone one
					if strict {
						return dst, i, jsonErrLoneSurrogate
					}
					dst = append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
				} else {
					dst = jsonAppendRune(dst, r)
				}
				i += size
				continue
			default:
				return dst, i + 1, jsonErrEscape
			}
			i += 2
		case c == '"':
			return dst, i, jsonErrEndQuote
		case c < 0x20:
			return dst, i, jsonErrControl
		default: // c >= 0x80
			switch size := jsonUTF8Seq(text, i); {
			case size > 0:
				dst = append(dst, data[i:i+size]...)
				i += size
			case strict:
				return dst, i, jsonErrUTF8
			default:
				dst = append(dst, c)
				i++
			}
		}
	}
	return dst, 0, 0
}

// jsonHex4 reads the 4 hex digits of a \u escape at text[i:]; off is the
// offset of the first bad digit (len(text) when cut short), or -1.
func jsonHex4(text []byte, i int) (r rune, off int) {
	for k := i; k < i+4; k++ {
		if k >= len(text) {
			return 0, len(text)
		}
		d := jsonHex(text[k])
		if d < 0 {
			return 0, k
		}
		r = r<<4 | rune(d)
	}
	return r, -1
}

// jsonAppendRune appends the UTF-8 form of r, which is not a surrogate.
func jsonAppendRune(dst []byte, r rune) []byte {
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
