package limits

import "unicode/utf8"

// EscapedSize is the measure of SPEC section 6: the length of text as a JSON
// string literal, quotes included, with only '"', '\' and bytes 0x00-0x1F
// escaped. \b \f \n \r \t take two bytes, the other 27 controls six
// (\u00XX); every other byte, DEL, C1 controls and U+2028/2029 included,
// counts as itself.
func EscapedSize[T ~string | ~[]byte](text T) int64 {
	n := int64(len(text)) + 2
	for i := 0; i < len(text); i++ {
		n += int64(escapeExtra[text[i]])
	}
	return n
}

// EscapedPrefix returns the length of the longest prefix of text whose
// escaped size without its quotes (EscapedSize less 2) is at most room,
// and that size. It reads no more of text than the prefix and the byte
// after it.
func EscapedPrefix(text []byte, room int64) (n int, escaped int64) {
	for i, c := range text {
		cost := 1 + int64(escapeExtra[c])
		if escaped+cost > room {
			return i, escaped
		}
		escaped += cost
	}
	return len(text), escaped
}

// escapeExtra is how many bytes beyond itself each byte adds when escaped.
var escapeExtra = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 5
	}
	for _, c := range []byte{'\b', '\f', '\n', '\r', '\t', '"', '\\'} {
		t[c] = 1
	}
	return t
}()

// AppendEscaped appends text to dst as the JSON string literal that
// EscapedSize measures: '"', '\' and the C0 controls escaped (\b \f \n \r
// \t in their short forms, the others as \u00XX), every other byte as it
// is. It is what RFC 8259 requires and no more.
func AppendEscaped[T ~string | ~[]byte](dst []byte, text T) []byte {
	dst = append(dst, '"')
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if escapeExtra[c] == 0 {
			continue
		}
		dst = append(dst, text[run:i]...)
		run = i + 1
		dst = AppendEscapedByte(dst, c)
	}
	dst = append(dst, text[run:]...)
	return append(dst, '"')
}

// AppendEscapedByte appends the escape of c, which must be '"', '\\' or a
// control byte (below 0x20), as encoding/json writes it: \b, \f, \n, \r
// and \t short, the others as \u00XX with lowercase hex digits.
func AppendEscapedByte(dst []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// AppendJSONString appends s to dst as the JSON string literal that
// json.Marshal writes (with escapeHTML) or a json.Encoder with
// SetEscapeHTML(false) writes (without): '"' and '\' escaped; \b, \f, \n,
// \r and \t short; the other control bytes, and with escapeHTML <, > and &,
// as \u00XX; U+2028 and U+2029 as \u2028 and \u2029; each byte of other
// invalid UTF-8 as \ufffd. Unlike those, it writes a surrogate in its
// 3-byte form (a lone surrogate escape that a client sent in a member name
// or path, decoded as in WTF-8) as its \uXXXX escape, so that the client
// gets back what it sent and two different lone surrogates never read
// alike.
func AppendJSONString(dst []byte, s string, escapeHTML bool) []byte {
	return appendJSONString(dst, s, escapeHTML, nil)
}

// AppendMeasured is AppendJSONString with escapeHTML, which also returns
// EscapedSize(s), counted in the same pass: a lookup's text is escaped once
// for the answer and measured for the budget by the one loop.
func AppendMeasured(dst []byte, s string) ([]byte, int64) {
	extra := int64(0)
	dst = appendJSONString(dst, s, true, &extra)
	return dst, int64(len(s)) + 2 + extra
}

// appendJSONString is AppendJSONString; with measure set it adds to it what
// EscapedSize counts beyond the text's own bytes and its quotes.
func appendJSONString(dst []byte, s string, escapeHTML bool, measure *int64) []byte {
	safe := &plainSafe
	if escapeHTML {
		safe = &htmlSafe
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if safe[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			if measure != nil {
				*measure += int64(escapeExtra[b]) // 0 for <, > and &
			}
			if b == '<' || b == '>' || b == '&' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			} else {
				dst = AppendEscapedByte(dst, b)
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			if i+2 < len(s) && b == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
				// A surrogate in its 3-byte form: written back as the
				// escape the client sent, not as U+FFFD.
				r := rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += 3
			} else {
				dst = append(dst, `\ufffd`...)
				i++
			}
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// htmlSafe and plainSafe are true for the bytes AppendJSONString writes as
// they are, with and without escapeHTML: ASCII but the control bytes, '"'
// and '\' (and <, > and & for htmlSafe). Bytes from 0x80 start a character
// that is checked as a whole.
var htmlSafe, plainSafe = func() (html, plain [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		html[c], plain[c] = true, true
	}
	for _, c := range `"\` {
		html[c], plain[c] = false, false
	}
	for _, c := range `<>&` {
		html[c] = false
	}
	return html, plain
}()
