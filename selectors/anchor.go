package selectors

import (
	"crypto/sha256"
	"strconv"
)

// AnchorAlphabet is the lowercase RFC 4648 base32 alphabet whose characters
// make a line anchor's two characters (SPEC 4.4).
const AnchorAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// AnchorChars returns the two characters of the anchor of a line whose text,
// without its ending, is content: the first two characters of the lowercase
// base32 form of the content's SHA-256, that is its first ten bits.
func AnchorChars(content []byte) [2]byte {
	sum := sha256.Sum256(content)
	return [2]byte{AnchorAlphabet[sum[0]>>3], AnchorAlphabet[(sum[0]&7)<<2|sum[1]>>6]}
}

// LineAnchorChars returns the anchor characters of line n (1 <= n <=
// Count) of data, whose line index is l, from the stored bytes and the
// index alone: no scan beyond the line itself.
func (l Lines) LineAnchorChars(n int) [2]byte {
	c := l.Content(n)
	return AnchorChars(l.data[c.Start:c.End])
}

// AppendAnchor appends line n's anchor, "41#xy", to dst.
func AppendAnchor(dst []byte, n int, chars [2]byte) []byte {
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '#', chars[0], chars[1])
}

// AppendNumbered appends line n as numbered get_lines shows it (SPEC 5):
// its anchor, ": ", and the line's bytes as they are, its ending included.
func AppendNumbered(dst []byte, n int, line []byte) []byte {
	dst = AppendAnchor(dst, n, AnchorChars(TrimEnding(line)))
	dst = append(dst, ':', ' ')
	return append(dst, line...)
}

// Anchor returns the anchor of line n whose characters are chars: "41#xy".
func Anchor(n int, chars [2]byte) string {
	return string(AppendAnchor(make([]byte, 0, 24), n, chars))
}

// AnchorLen is the length of line n's anchor in bytes.
func AnchorLen(n int) int {
	return len(strconv.Itoa(n)) + 3
}

// AnchorPattern is the form of a line's anchor (its number from 1) as a
// JSON Schema pattern, for the schemas of answers that show anchors.
const AnchorPattern = "^[1-9][0-9]*#[a-z2-7]{2}$"

// ParseAnchor reads an anchor of exactly the form of SPEC 4.4: a decimal
// line number without leading zeros, '#', and two characters of
// AnchorAlphabet. ok is false for any other string. "0#xy" is well formed:
// that it names no line is a range error for the caller to give.
func ParseAnchor(s string) (n int64, chars [2]byte, ok bool) {
	hash := len(s) - 3
	if hash < 1 || s[hash] != '#' || s[0] == '0' && hash > 1 || hash > 18 {
		return 0, chars, false
	}
	for i := 0; i < hash; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, chars, false
		}
	}
	n, err := strconv.ParseInt(s[:hash], 10, 64)
	if err != nil {
		return 0, chars, false
	}
	for i, c := range []byte(s[hash+1:]) {
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return 0, chars, false
		}
		chars[i] = c
	}
	return n, chars, true
}
