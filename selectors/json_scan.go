package selectors

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/loom-results/loom-results/errcode"
)

// JSONType is the type of a JSON value, spelled as in a descriptor's "json"
// field (SPEC section 3) and get_json's "type".
type JSONType string

// The six JSON types. true and false are both JSONBoolean.
const (
	JSONObject  JSONType = "object"
	JSONArray   JSONType = "array"
	JSONString  JSONType = "string"
	JSONNumber  JSONType = "number"
	JSONBoolean JSONType = "boolean"
	JSONNull    JSONType = "null"
)

// MaxJSONDepth is the deepest nesting of arrays and objects that a document
// may have (SPEC section 4.3); the outermost container is level 1.
const MaxJSONDepth = 1000

// ValidateJSON reports whether data is exactly one strict RFC 8259 JSON value,
// optionally surrounded by JSON whitespace, under the rules of SPEC section
// 4.3, and returns its type. It does not allocate unless it fails.
//
// On failure the error is invalid_json and its "offset" is the 0-based offset
// of the first byte that cannot continue a valid document: len(data) when the
// document is truncated, and the first byte of the sequence for raw invalid
// UTF-8 inside a string (or len(data) when that sequence is a valid prefix cut
// off by the end of data). Escaped lone surrogates such as "\ud800" are valid
// here; only DecodeJSONString rejects them.
func ValidateJSON(data []byte) (JSONType, *errcode.Error) {
	top, off, why := jsonValidate(data, -1, nil)
	if why != 0 {
		return "", jsonSyntaxError(data, off, why)
	}
	return top, nil
}

// A JSONSplit is a point in the middle of a valid document where an index
// build can start without scanning what comes before: the offset right
// after a ',' (and its whitespace) and the containers open there, outermost
// first (true for an object, whose next member's name starts at Offset; an
// array's next element does). IndexValidJSONSplit builds the two halves on
// two cores. The zero JSONSplit is none.
type JSONSplit struct {
	Offset  int
	Objects []bool
}

// jsonSplitMin is the smallest document ValidateJSONSplit finds a split
// for: below it a second goroutine costs more than it saves.
const jsonSplitMin = 1 << 20

// ValidateJSONSplit is ValidateJSON that also returns a split near the
// middle of a valid document of at least 1 MiB (the first ',' at or after
// its middle, if any).
func ValidateJSONSplit(data []byte) (JSONType, JSONSplit, *errcode.Error) {
	if len(data) < jsonSplitMin {
		t, err := ValidateJSON(data)
		return t, JSONSplit{}, err
	}
	return validateSplitAt(data, len(data)/2)
}

// validateSplitAt validates data and records the split at the first ','
// at or after offset at.
func validateSplitAt(data []byte, at int) (JSONType, JSONSplit, *errcode.Error) {
	var split JSONSplit
	top, off, why := jsonValidate(data, at, &split)
	if why != 0 {
		return "", JSONSplit{}, jsonSyntaxError(data, off, why)
	}
	return top, split, nil
}

// jsonValidate is the allocation-free grammar walk behind ValidateJSON. It
// keeps one bit per open container (set for objects) instead of a stack of
// states, so the whole state is 128 bytes on the Go stack.
//
// The grammar has four states, written as labels: value (a value must start
// at i), next (a value just ended at i), name (a member name must start at
// i) and the end of input. jsonBuild in json_index.go has the same shape;
// both must accept and reject exactly the same inputs.
//
// With split set, it records there the first ',' at or after offset
// splitAt (see JSONSplit).
func jsonValidate(data []byte, splitAt int, split *JSONSplit) (top JSONType, off int, why jsonReason) {
	var (
		objs    [(MaxJSONDepth + 63) / 64]uint64 // bit d: level d+1 is an object
		depth   int
		n       = len(data)
		i       = jsonSkipWS(data, 0)
		c       byte
		inObj   bool
		nameWhy jsonReason // why a missing name fails: after '{' or after ','
	)
	if i < n {
		top = jsonTypeOfFirst(data[i])
	}

value:
	if i >= n {
		return "", n, jsonErrValue
	}
	c = data[i]
	switch {
	case c == '"':
		if i, _, why = jsonScanString(data, i, false); why != 0 {
			return "", i, why
		}
	case c == '-' || c-'0' < 10:
		if i, why = jsonScanNumber(data, i); why != 0 {
			return "", i, why
		}
	case c == '{' || c == '[':
		if depth == MaxJSONDepth {
			return "", i, jsonErrDepth
		}
		inObj = c == '{'
		if inObj {
			objs[depth>>6] |= 1 << (depth & 63)
		} else {
			objs[depth>>6] &^= 1 << (depth & 63)
		}
		depth++
		if i = jsonSkipWS(data, i+1); i < n {
			if inObj && data[i] == '}' || !inObj && data[i] == ']' {
				i++
				depth--
				goto next
			}
		}
		if inObj {
			nameWhy = jsonErrNameOrEnd
			goto name
		}
		if i >= n {
			return "", n, jsonErrValueOrEnd
		}
		goto value
	case c == 't':
		if i, why = jsonScanLiteral(data, i, "true"); why != 0 {
			return "", i, why
		}
	case c == 'f':
		if i, why = jsonScanLiteral(data, i, "false"); why != 0 {
			return "", i, why
		}
	case c == 'n':
		if i, why = jsonScanLiteral(data, i, "null"); why != 0 {
			return "", i, why
		}
	default:
		return "", i, jsonErrValue
	}

next:
	if i < n && data[i] <= ' ' {
		i = jsonSkipWS(data, i)
	}
	if depth == 0 {
		if i != n {
			return "", i, jsonErrAfterTop
		}
		return top, 0, 0
	}
	inObj = objs[(depth-1)>>6]&(1<<((depth-1)&63)) != 0
	if i >= n {
		if inObj {
			return "", n, jsonErrAfterMember
		}
		return "", n, jsonErrAfterElement
	}
	c = data[i]
	if c == ',' {
		if i++; i < n && data[i] <= ' ' {
			i = jsonSkipWS(data, i)
		}
		if split != nil && i > splitAt && split.Offset == 0 {
			split.Offset = i
			split.Objects = make([]bool, depth)
			for d := range depth {
				split.Objects[d] = objs[d>>6]&(1<<(d&63)) != 0
			}
		}
		if inObj {
			nameWhy = jsonErrNameAfterComma
			goto name
		}
		if i < n && data[i] == ']' {
			return "", i, jsonErrTrailingComma
		}
		goto value
	}
	if inObj && c == '}' || !inObj && c == ']' {
		i++
		depth--
		goto next
	}
	if inObj {
		return "", i, jsonErrAfterMember
	}
	return "", i, jsonErrAfterElement

name:
	if i >= n {
		return "", n, nameWhy
	}
	if data[i] != '"' {
		if data[i] == '}' && nameWhy == jsonErrNameAfterComma {
			return "", i, jsonErrTrailingComma
		}
		return "", i, nameWhy
	}
	if i, _, why = jsonScanString(data, i, false); why != 0 {
		return "", i, why
	}
	if i < n && data[i] <= ' ' {
		i = jsonSkipWS(data, i)
	}
	if i >= n || data[i] != ':' {
		return "", i, jsonErrColon
	}
	if i++; i < n && data[i] <= ' ' {
		i = jsonSkipWS(data, i)
	}
	goto value
}

// jsonTypeOfFirst returns the type of the value that starts with byte c, or
// "" when no value starts with c.
func jsonTypeOfFirst(c byte) JSONType {
	switch {
	case c == '{':
		return JSONObject
	case c == '[':
		return JSONArray
	case c == '"':
		return JSONString
	case c == '-' || c-'0' < 10:
		return JSONNumber
	case c == 't' || c == 'f':
		return JSONBoolean
	case c == 'n':
		return JSONNull
	}
	return ""
}

// jsonSkipWS returns the offset of the first byte at or after i that is not
// JSON whitespace (RFC 8259: space, tab, line feed, carriage return).
func jsonSkipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\n', '\t', '\r':
			i++
		default:
			return i
		}
		// Indentation comes in runs of spaces; take them 8 at a time.
		for i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == 0x2020202020202020 {
			i += 8
		}
	}
	return i
}

// String scan flags, kept in index nodes.
const (
	jsonStrEscaped     = 1 << iota // the lexeme holds at least one backslash escape
	jsonStrInvalidUTF8             // the lexeme holds raw invalid UTF-8 (lenient scans only)
)

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// jsonStringSpecial returns, for the 8 bytes of w (little endian), a mask
// whose high bits (after masking with swarHighs) are set in each byte that is '"', '\\', a control character
// or not ASCII. Bytes above the lowest flagged one may be flagged wrongly
// (borrows), but the lowest flagged byte is always a true one, which is all
// the callers use.
func jsonStringSpecial(w uint64) uint64 {
	q := w ^ (swarOnes * '"')
	b := w ^ (swarOnes * '\\')
	return ((q - swarOnes) &^ q) | ((b - swarOnes) &^ b) | ((w - swarOnes*0x20) &^ w) | w
}

// jsonStrPlain marks the bytes that continue a string with no further check:
// printable ASCII except '"' and '\\'.
var jsonStrPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// jsonScanString scans the string whose opening quote is at data[i] and
// returns the offset just past its closing quote and its flags. When lenient
// is set, raw invalid UTF-8 is accepted and flagged; otherwise it fails at
// the first byte of the invalid sequence. On failure the returned offset is
// the error's.
func jsonScanString(data []byte, i int, lenient bool) (int, uint8, jsonReason) {
	n := len(data)
	var flags uint8
	i++
	for {
		for i+8 <= n {
			if m := jsonStringSpecial(binary.LittleEndian.Uint64(data[i:])) & swarHighs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < n && jsonStrPlain[data[i]] {
			i++
		}
		if i >= n {
			return n, flags, jsonErrStringEOF
		}
	special:
		switch c := data[i]; {
		case c == '"':
			return i + 1, flags, 0
		case c == '\\':
			flags |= jsonStrEscaped
			if i++; i >= n {
				return n, flags, jsonErrStringEOF
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= n {
						return n, flags, jsonErrStringEOF
					}
					if jsonHex(data[i+k]) < 0 {
						return i + k, flags, jsonErrHex
					}
				}
				i += 5
			default:
				return i, flags, jsonErrEscape
			}
		case c < 0x20:
			return i, flags, jsonErrControl
		case c >= 0x80:
			// Two-byte characters (Latin, Greek, Cyrillic...) are the
			// common case; take them without a call.
			if c >= 0xC2 && c < 0xE0 && i+1 < n && data[i+1]&0xC0 == 0x80 {
				i += 2
				continue
			}
			size := jsonUTF8Seq(data, i)
			switch {
			case size > 0:
				i += size
			case lenient:
				flags |= jsonStrInvalidUTF8
				i++
			case size < 0:
				return n, flags, jsonErrStringEOF
			default:
				return i, flags, jsonErrUTF8
			}
		default:
			i++
		}
	}
}

// jsonUTF8Seq returns the length of the valid UTF-8 sequence that starts
// with data[i] >= 0x80: 0 if it is invalid (overlong, a surrogate, beyond
// U+10FFFF, a stray continuation byte or cut short), or -1 when it is a valid
// prefix cut off by the end of data. The ranges are those of RFC 3629
// section 4.
func jsonUTF8Seq(data []byte, i int) int {
	c := data[i]
	lo, hi := byte(0x80), byte(0xBF)
	var size int
	switch {
	case c < 0xC2:
		return 0
	case c < 0xE0:
		size = 2
	case c < 0xF0:
		size = 3
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c < 0xF5:
		size = 4
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 0
	}
	for k := 1; k < size; k++ {
		if i+k >= len(data) {
			return -1
		}
		if b := data[i+k]; b < lo || b > hi {
			return 0
		}
		lo, hi = 0x80, 0xBF
	}
	return size
}

// jsonHex returns the value of hex digit c, or -1.
func jsonHex(c byte) int {
	switch {
	case c-'0' < 10:
		return int(c - '0')
	case c|0x20-'a' < 6:
		return int(c|0x20-'a') + 10
	}
	return -1
}

// jsonScanNumber scans the number that starts at data[i] (RFC 8259 section
// 6) and returns the offset just past it, or the offset of the failure.
func jsonScanNumber(data []byte, i int) (int, jsonReason) {
	n := len(data)
	if data[i] == '-' {
		if i++; i >= n {
			return n, jsonErrDigit
		}
	}
	switch c := data[i]; {
	case c == '0':
		if i++; i < n && data[i]-'0' < 10 {
			return i, jsonErrLeadingZero
		}
	case c-'1' < 9:
		i = jsonDigits(data, i+1)
	default:
		return i, jsonErrDigit
	}
	if i < n && data[i] == '.' {
		if i++; i >= n || data[i]-'0' >= 10 {
			return i, jsonErrDigit
		}
		i = jsonDigits(data, i+1)
	}
	if i < n && data[i]|0x20 == 'e' {
		if i++; i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n || data[i]-'0' >= 10 {
			return i, jsonErrDigit
		}
		i = jsonDigits(data, i+1)
	}
	return i, 0
}

// jsonDigits returns the offset of the first byte at or after i that is not
// an ASCII digit, looking at 8 bytes at a time.
func jsonDigits(data []byte, i int) int {
	for i+8 <= len(data) {
		w := binary.LittleEndian.Uint64(data[i:])
		// A byte is a digit when its high nibble is 3 both as it is and
		// after adding 6 (0x3A-0x3F carry into 4). Carries out of a byte
		// come only from a lower byte >= 0xFA, itself a non-digit, so the
		// lowest flagged byte is exact.
		z := (w&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030) | ((w+swarOnes*6)&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030)
		if m := (z | (z&^swarHighs + 0x7F7F7F7F7F7F7F7F)) & swarHighs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(data) && data[i]-'0' < 10 {
		i++
	}
	return i
}

// jsonScanLiteral scans lit (true, false or null) at data[i].
func jsonScanLiteral(data []byte, i int, lit string) (int, jsonReason) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), 0
	}
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) {
			return len(data), jsonErrLiteral
		}
		if data[i+k] != lit[k] {
			return i + k, jsonErrLiteral
		}
	}
	return i + len(lit), 0 // not reached: the fast path took it
}

// jsonReason says why a scan failed; 0 means it did not.
type jsonReason uint8

const (
	_ jsonReason = iota
	jsonErrValue
	jsonErrValueOrEnd
	jsonErrAfterTop
	jsonErrAfterElement
	jsonErrAfterMember
	jsonErrNameOrEnd
	jsonErrNameAfterComma
	jsonErrTrailingComma
	jsonErrColon
	jsonErrDepth
	jsonErrStringEOF
	jsonErrControl
	jsonErrEscape
	jsonErrHex
	jsonErrUTF8
	jsonErrDigit
	jsonErrLeadingZero
	jsonErrLiteral
)

// jsonExpected says, per reason, what would have been valid at the offset.
var jsonExpected = [...]string{
	jsonErrValue:          "expected a JSON value (object, array, string, number, true, false or null)",
	jsonErrValueOrEnd:     "expected a value or ']'",
	jsonErrAfterTop:       "expected the end of input after the top-level value",
	jsonErrAfterElement:   "expected ',' or ']' after an array element",
	jsonErrAfterMember:    "expected ',' or '}' after an object member",
	jsonErrNameOrEnd:      "expected a member name (a string) or '}'",
	jsonErrNameAfterComma: "expected a member name (a string) after ','",
	jsonErrTrailingComma:  "expected a value after ','; trailing commas are not allowed",
	jsonErrColon:          "expected ':' after a member name",
	jsonErrDepth:          "",
	jsonErrStringEOF:      "expected the rest of the string and its closing '\"'",
	jsonErrControl:        "",
	jsonErrEscape:         "expected an escape after '\\': \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX",
	jsonErrHex:            "expected a hex digit in a \\uXXXX escape",
	jsonErrUTF8:           "",
	jsonErrDigit:          "expected a digit in a number",
	jsonErrLeadingZero:    "a number's integer part has no leading zero (write 0, or start with 1-9)",
	jsonErrLiteral:        "expected true, false or null",
}

// jsonSyntaxError builds the invalid_json error for a failed scan.
func jsonSyntaxError(data []byte, off int, why jsonReason) *errcode.Error {
	var msg string
	switch {
	case why == jsonErrDepth:
		msg = fmt.Sprintf("nesting deeper than %d arrays and objects at offset %d", MaxJSONDepth, off)
	case off >= len(data) && len(data) == 0:
		msg = "empty document: " + jsonExpected[jsonErrValue]
	case off >= len(data):
		msg = fmt.Sprintf("unexpected end of input at offset %d: %s", off, jsonExpected[why])
	case why == jsonErrControl:
		msg = fmt.Sprintf("unescaped control character 0x%02x in a string at offset %d: write it as \\u%04x", data[off], off, data[off])
	case why == jsonErrUTF8:
		msg = fmt.Sprintf("invalid UTF-8 byte 0x%02x in a string at offset %d: strings must be valid UTF-8", data[off], off)
	default:
		msg = fmt.Sprintf("invalid character %s at offset %d: %s", jsonQuoteByte(data[off]), off, jsonExpected[why])
	}
	return errcode.Offset(errcode.InvalidJSON, int64(off), "%s", msg)
}

// jsonQuoteByte shows one byte of a document in a message.
func jsonQuoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
