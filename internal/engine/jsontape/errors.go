package jsontape

import (
	"fmt"

	"github.com/loom-results/loom-results/errcode"
)

// reason says why a scan failed; 0 means it did not.
type reason uint8

const (
	_ reason = iota
	errValue
	errValueOrEnd
	errAfterTop
	errAfterElement
	errAfterMember
	errNameOrEnd
	errNameAfterComma
	errTrailingComma
	errColon
	errDepth
	errStringEOF
	errControl
	errEscape
	errHex
	errUTF8
	errDigit
	errLeadingZero
	errLiteral
)

// expected says, per reason, what would have been valid at the offset.
var expected = [...]string{
	errValue:          "expected a JSON value (object, array, string, number, true, false or null)",
	errValueOrEnd:     "expected a value or ']'",
	errAfterTop:       "expected the end of input after the top-level value",
	errAfterElement:   "expected ',' or ']' after an array element",
	errAfterMember:    "expected ',' or '}' after an object member",
	errNameOrEnd:      "expected a member name (a string) or '}'",
	errNameAfterComma: "expected a member name (a string) after ','",
	errTrailingComma:  "expected a value after ','; trailing commas are not allowed",
	errColon:          "expected ':' after a member name",
	errDepth:          "",
	errStringEOF:      "expected the rest of the string and its closing '\"'",
	errControl:        "",
	errEscape:         "expected an escape after '\\': \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX",
	errHex:            "expected a hex digit in a \\uXXXX escape",
	errUTF8:           "",
	errDigit:          "expected a digit in a number",
	errLeadingZero:    "a number's integer part has no leading zero (write 0, or start with 1-9)",
	errLiteral:        "expected true, false or null",
}

// syntaxError builds the invalid_json error of a failed scan: its offset is
// SPEC section 4.3's, the first byte that cannot continue a valid document
// (len(data) when the document is cut off); depth is the scan's nesting
// limit.
func syntaxError(data []byte, off int, why reason, depth int) *errcode.Error {
	var msg string
	switch {
	case why == errDepth:
		msg = fmt.Sprintf("nesting deeper than %d arrays and objects at offset %d", depth, off)
	case off >= len(data) && len(data) == 0:
		msg = "empty document (end of input at offset 0): " + expected[errValue]
	case off >= len(data):
		msg = fmt.Sprintf("unexpected end of input at offset %d: %s", off, expected[why])
	case why == errControl:
		msg = fmt.Sprintf("unescaped control character 0x%02x in a string at offset %d: write it as \\u%04x", data[off], off, data[off])
	case why == errUTF8:
		msg = fmt.Sprintf("invalid UTF-8 byte 0x%02x in a string at offset %d: strings must be valid UTF-8", data[off], off)
	default:
		msg = fmt.Sprintf("invalid character %s at offset %d: %s", quoteByte(data[off]), off, expected[why])
	}
	return errcode.Offset(errcode.InvalidJSON, int64(off), "%s", msg)
}

// quoteByte shows one byte of a document in a message.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
