package jsontape

import (
	"encoding/binary"
	"math/bits"
)

// The lexical level of RFC 8259: whitespace, strings, numbers and the three
// literals. Each scan takes 8 bytes at a time where a run is common
// (indentation, string bodies, digits): a word is tested for the bytes that
// end the run with a few additions and masks (SWAR), so that a run costs a
// step per word instead of a branch per byte.

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// load8 returns the 8 bytes at data[i:i+8] as a little-endian word, so that
// the lowest flagged byte of a mask is the first in the data.
func load8(data []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(data[i : i+8])
}

// firstFlagged returns the index in its word of the lowest byte whose high
// bit is set in m (m != 0).
func firstFlagged(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

// skipWS returns the offset of the first byte at or after i that is not
// JSON whitespace (RFC 8259 section 2: space, tab, line feed, carriage
// return): its first bytes one by one, then 8 bytes at a time, since
// indentation is a line feed and a run of spaces, mostly shorter than a
// word, and a member's value mostly follows one space.
func skipWS(data []byte, i int) int {
	// One space (after ':') or a line feed is the common run: bytes first.
	for range 2 {
		if i >= len(data) || data[i] != ' ' && data[i] != '\n' && data[i] != '\t' && data[i] != '\r' {
			return i
		}
		i++
	}
	for i+8 <= len(data) {
		w := load8(data, i)
		ws := zeroBytes(w^swarOnes*' ') | zeroBytes(w^swarOnes*'\n') | zeroBytes(w^swarOnes*'\t') | zeroBytes(w^swarOnes*'\r')
		if ws != swarHighs {
			return i + firstFlagged(^ws&swarHighs)
		}
		i += 8
	}
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// zeroBytes returns the high bit of each byte of w that is zero, exactly:
// no carry crosses a byte, since (b&0x7f)+0x7f <= 0xfe.
func zeroBytes(w uint64) uint64 {
	const lows = swarOnes * 0x7F
	return ^((w&lows + lows) | w | lows)
}

// skipSpace is skipWS for a document already accepted, where every byte up
// to ' ' outside strings is whitespace: the first byte at or after i above
// ' '. Per byte b, the high bit of (b&0x7f) + 0x5f is exact (no carry
// leaves a byte): b&0x7f >= 0x21.
func skipSpace(data []byte, i int) int {
	for i+8 <= len(data) {
		w := load8(data, i)
		if m := ((w &^ swarHighs) + swarOnes*(0x80-0x21) | w) & swarHighs; m != 0 {
			return i + firstFlagged(m)
		}
		i += 8
	}
	for i < len(data) && data[i] <= ' ' {
		i++
	}
	return i
}

// stringSpecial returns, for the 8 bytes of w, a mask whose high bits are
// set in each byte that is '"', '\\', a control character or not ASCII:
// every byte that a string scan must look at. Bytes above the lowest flagged
// one may be flagged wrongly (borrows), but the lowest flagged byte is
// always a true one, which is all the callers use.
func stringSpecial(w uint64) uint64 {
	q := w ^ (swarOnes * '"')
	b := w ^ (swarOnes * '\\')
	return (((q - swarOnes) &^ q) | ((b - swarOnes) &^ b) | ((w - swarOnes*0x20) &^ w) | w) & swarHighs
}

// strPlain marks the bytes that continue a string with no further check:
// printable ASCII except '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString scans a string from data[i], which lies inside the string
// body (just past the opening quote, or past bytes already checked), and
// returns the offset just past its closing quote. It checks what RFC 8259
// section 7 and SPEC section 4.3 require of a string: no unescaped control
// character, only the escapes \" \\ \/ \b \f \n \r \t and \uXXXX (a lone
// surrogate escape is grammatical), and valid UTF-8 (RFC 3629), unless
// lenient, which accepts raw invalid UTF-8. On failure the offset is the
// error's: the first byte of an invalid UTF-8 sequence, or len(data) when
// the string is cut off (a valid UTF-8 prefix included).
func scanString(data []byte, i int, lenient bool) (int, reason) {
	n := len(data)
	for {
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
			return n, errStringEOF
		}
	special:
		switch c := data[i]; {
		case c == '"':
			return i + 1, 0
		case c == '\\':
			if i++; i >= n {
				return n, errStringEOF
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= n {
						return n, errStringEOF
					}
					if HexDigit(data[i+k]) < 0 {
						return i + k, errHex
					}
				}
				i += 5
			default:
				return i, errEscape
			}
		case c < 0x20:
			return i, errControl
		case c >= 0x80:
			// Non-ASCII text comes in runs: take the run here, its two-
			// and three-byte characters (Latin, Greek, Cyrillic, most of
			// the BMP) inline, the rest by utf8Seq (RFC 3629 section 4).
			for {
				switch {
				case c >= 0xC2 && c < 0xE0 && i+1 < n && data[i+1]&0xC0 == 0x80:
					i += 2
				case c >= 0xE1 && c < 0xF0 && c != 0xED && i+2 < n && data[i+1]&0xC0 == 0x80 && data[i+2]&0xC0 == 0x80:
					i += 3
				default:
					switch size := utf8Seq(data, i); {
					case size > 0:
						i += size
					case lenient:
						i++
					case size < 0:
						return n, errStringEOF
					default:
						return i, errUTF8
					}
				}
				if i >= n || data[i] < 0x80 {
					break
				}
				c = data[i]
			}
		default:
			i++
		}
	}
}

// utf8Seq returns the length of the valid UTF-8 sequence that starts with
// data[i] >= 0x80: 0 if it is invalid (overlong, a surrogate, beyond
// U+10FFFF, a stray continuation byte or cut short), or -1 when it is a
// valid prefix cut off by the end of data. The ranges are those of RFC 3629
// section 4.
func utf8Seq(data []byte, i int) int {
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

// HexDigit returns the value of hex digit c (0-9, a-f, A-F), or -1: the
// one reader of hex digits, for JSON's \u escapes and, in selectors, a
// pointer's percent escapes.
func HexDigit(c byte) int {
	switch {
	case c-'0' < 10:
		return int(c - '0')
	case c|0x20-'a' < 6:
		return int(c|0x20-'a') + 10
	}
	return -1
}

// scanNumber scans the number that starts at data[i] (RFC 8259 section 6:
// an optional '-', then 0 or a digit 1-9 and more digits, an optional
// fraction and an optional exponent) and returns the offset just past it,
// or the offset of the failure.
func scanNumber(data []byte, i int) (int, reason) {
	n := len(data)
	if data[i] == '-' {
		if i++; i >= n {
			return n, errDigit
		}
	}
	switch c := data[i]; {
	case c == '0':
		if i++; i < n && data[i]-'0' < 10 {
			return i, errLeadingZero
		}
	case c-'1' < 9:
		i = skipDigits(data, i+1)
	default:
		return i, errDigit
	}
	if i < n && data[i] == '.' {
		if i++; i >= n || data[i]-'0' >= 10 {
			return i, errDigit
		}
		i = skipDigits(data, i+1)
	}
	if i < n && data[i]|0x20 == 'e' {
		if i++; i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n || data[i]-'0' >= 10 {
			return i, errDigit
		}
		i = skipDigits(data, i+1)
	}
	return i, 0
}

// skipDigits returns the offset of the first byte at or after i that is not
// an ASCII digit, looking at 8 bytes at a time.
func skipDigits(data []byte, i int) int {
	for i+8 <= len(data) {
		if m := nonDigits(load8(data, i)); m != 0 {
			return i + firstFlagged(m)
		}
		i += 8
	}
	for i < len(data) && data[i]-'0' < 10 {
		i++
	}
	return i
}

// nonDigits returns, for the 8 bytes of w, a mask whose lowest high bit is
// that of the first byte that is not an ASCII digit. A byte is a digit when
// its high nibble is 3 both as it is and after adding 6 (0x3A-0x3F carry
// into 4). Carries out of a byte come only from a lower byte >= 0xFA,
// itself a non-digit, so the lowest flagged byte is exact.
func nonDigits(w uint64) uint64 {
	z := (w&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030) | ((w+swarOnes*6)&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030)
	return (z | (z&^swarHighs + 0x7F7F7F7F7F7F7F7F)) & swarHighs
}

// scanLiteral scans lit (true, false or null) at data[i]; on failure the
// offset is that of the first byte that differs, or len(data).
func scanLiteral(data []byte, i int, lit string) (int, reason) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), 0
	}
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) {
			return len(data), errLiteral
		}
		if data[i+k] != lit[k] {
			return i + k, errLiteral
		}
	}
	return i + len(lit), 0 // not reached: the fast path took it
}

// The skips below find the end of a lexeme that a scan has already
// accepted, for the walks of a built Index: they check nothing that only
// validation needs.

// skipString returns the offset just past the closing quote of the valid
// string whose body continues at data[i]: the string ends at the first
// quote that no backslash escapes, and a backslash escapes exactly the next
// byte (the hex digits of a \u escape are neither). It returns len(data)+1
// when there is no closing quote.
func skipString(data []byte, i int) int {
	n := len(data)
	for i+8 <= n {
		w := load8(data, i)
		q := w ^ (swarOnes * '"')
		b := w ^ (swarOnes * '\\')
		qm, bm := (q-swarOnes)&^q&swarHighs, (b-swarOnes)&^b&swarHighs
		if bm != 0 && (qm == 0 || bm&-bm < qm&-qm) {
			i += firstFlagged(bm) + 2
			continue
		}
		if qm != 0 {
			return i + firstFlagged(qm) + 1
		}
		i += 8
	}
	for i < n {
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return n + 1
}

// skipNumber returns the offset of the first byte at or after i that
// cannot continue a valid number: whitespace, ',', ']', '}', or the end of
// data, the bytes that may follow a number in a valid document.
func skipNumber(data []byte, i int) int {
	for i+8 <= len(data) {
		// Per byte b, with l = b&0x7f, the high bit of each sum is exact
		// (no carry leaves a byte): l >= 0x2b, (l|0x20) > 0x65 (']' and
		// '}', but no byte of a number) and l != ','.
		w := load8(data, i)
		l := w &^ swarHighs
		ge2B := l + swarOnes*(0x80-0x2b)
		gt65 := (l | swarOnes*0x20) + swarOnes*(0x7f-0x65)
		ne2C := (l ^ swarOnes*',') + swarOnes*0x7f
		if m := (^ge2B | gt65 | ^ne2C | w) & swarHighs; m != 0 {
			return i + firstFlagged(m)
		}
		i += 8
	}
	for i < len(data) && numberByte[data[i]] {
		i++
	}
	return i
}

// numberByte marks the bytes that may continue a number: digits, '.', 'e',
// 'E', '+' and '-'.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789.eE+-") {
		t[c] = true
	}
	return t
}()
