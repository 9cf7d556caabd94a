package selectors

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnchorChars(t *testing.T) {
	// Expected values: the first two characters of the lowercase base32
	// form of the SHA-256 of the text, computed independently.
	for _, tc := range []struct{ text, want string }{
		{"", "4o"},
		{"\tif err != nil {", "y7"},
		{"a", "zk"},
		{"héllo", "hr"},
	} {
		c := AnchorChars([]byte(tc.text))
		assert.Equal(t, tc.want, string(c[:]), "%q", tc.text)
	}
}

func TestLineAnchorChars(t *testing.T) {
	// The ending is not part of the hashed text: "a\n", "a\r\n" and a last
	// "a" without one share the characters of "a"; an empty line is "".
	data := []byte("a\na\r\n\n\tif err != nil {\r\na")
	lines, err := ScanText(data)
	require.Nil(t, err)
	require.Equal(t, 5, lines.Count())
	want := []string{"1#zk", "2#zk", "3#4o", "4#y7", "5#zk"}
	for n := 1; n <= 5; n++ {
		assert.Equal(t, want[n-1], Anchor(n, lines.LineAnchorChars(n)))
		assert.Equal(t, len(want[n-1]), AnchorLen(n))
	}
}

func TestParseAnchor(t *testing.T) {
	n, c, ok := ParseAnchor("41#xy")
	require.True(t, ok)
	assert.Equal(t, int64(41), n)
	assert.Equal(t, "xy", string(c[:]))
	n, c, ok = ParseAnchor("1#27")
	require.True(t, ok)
	assert.Equal(t, int64(1), n)
	assert.Equal(t, "27", string(c[:]))
	n, _, ok = ParseAnchor("0#xy")
	require.True(t, ok, "well formed; naming no line is the caller's range error")
	assert.Equal(t, int64(0), n)
	for _, bad := range []string{"", "#xy", "041#xy", "00#xy", "41#x", "41#xyz", "41xy", "41#XY",
		"41#x1", "41#x8", "-1#xy", "+1#xy", "4 1#xy", "41##y", "99999999999999999999#xy", " 41#xy", "41#xy "} {
		_, _, ok := ParseAnchor(bad)
		assert.False(t, ok, "%q", bad)
	}
}

func TestAppendNumbered(t *testing.T) {
	// The anchor is of the text without its ending; the row keeps the
	// line's bytes as they are, ending included.
	for _, tc := range []struct{ line, want string }{
		{"a\n", "7#zk: a\n"},
		{"a\r\n", "7#zk: a\r\n"},
		{"a", "7#zk: a"},
		{"\n", "7#4o: \n"},
		{"\tif err != nil {\n", "7#y7: \tif err != nil {\n"},
	} {
		assert.Equal(t, tc.want, string(AppendNumbered([]byte("x"), 7, []byte(tc.line)))[1:], "%q", tc.line)
	}
	assert.Equal(t, "a\r", string(TrimEnding([]byte("a\r"))), "a lone \\r is no ending")
	assert.Equal(t, "", string(TrimEnding([]byte("\r\n"))))
}

// TestAnchorPattern: the schemas' pattern takes every anchor a line has
// and what ParseAnchor refuses or names no line.
func TestAnchorPattern(t *testing.T) {
	re := regexp.MustCompile(AnchorPattern)
	for _, n := range []int{1, 9, 10, 41, 123456} {
		a := Anchor(n, AnchorChars([]byte("line "+strconv.Itoa(n))))
		assert.True(t, re.MatchString(a), a)
	}
	for _, s := range []string{"0#xy", "041#xy", "41#x", "41#xyz", "41#X2", "41#18", "#xy", "41xy"} {
		assert.False(t, re.MatchString(s), s)
	}
}
