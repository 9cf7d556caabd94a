package limits

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
