package selectors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestParsePointer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in         string
		want       []string
		wantString string
	}{
		{"", nil, ""},
		{"/", []string{""}, "/"},
		{"//", []string{"", ""}, "//"},
		{"/a", []string{"a"}, "/a"},
		{"/a/b", []string{"a", "b"}, "/a/b"},
		{"/a/", []string{"a", ""}, "/a/"},
		{"/a~1b", []string{"a/b"}, "/a~1b"},
		{"/m~0n", []string{"m~n"}, "/m~0n"},
		{"/~01", []string{"~1"}, "/~01"}, // ~1 is decoded before ~0
		{"/~10", []string{"/0"}, "/~10"},
		{"/~0~0~1", []string{"~~/"}, "/~0~0~1"},
		{"/ ", []string{" "}, "/ "},
		{"/c%d", []string{"c%d"}, "/c%d"}, // the plain form has no percent escapes
		{"/é/😀", []string{"é", "😀"}, "/é/😀"},
		{"/0/-", []string{"0", "-"}, "/0/-"},
		{"#", nil, ""},
		{"#/", []string{""}, "/"},
		{"#/a%20b", []string{"a b"}, "/a b"},
		{"#/%7E0", []string{"~"}, "/~0"}, // %7E0 decodes to ~0, which then means ~
		{"#/%7e1", []string{"/"}, "/~1"},
		{"#/a%2Fb", []string{"a", "b"}, "/a/b"}, // percent-decoded first, then split
		{"#%2Fa", []string{"a"}, "/a"},
		{"#/%C3%A9", []string{"é"}, "/é"},
		{"#/%25", []string{"%"}, "/%"},
		{"#/a~1b", []string{"a/b"}, "/a~1b"},
		{"#/ a", []string{" a"}, "/ a"}, // read leniently: a raw space is taken as it is
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePointer(tt.in)
			require.Nil(t, err)
			assert.Equal(t, tt.want, nilIfEmpty(got.Tokens()))
			assert.Equal(t, len(tt.want), got.Len())
			assert.Equal(t, tt.wantString, got.String())

			again, err := ParsePointer(got.String())
			require.Nil(t, err)
			assert.Equal(t, got, again, "ParsePointer(p.String()) must give p back")
		})
	}
}

func TestParsePointerInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		wantMsg string
	}{
		{"a", `pointer "a" must be "" or start with "/" (or be a URI fragment starting with "#")`},
		{"a/b", ""},
		{"#a", `pointer "a" (decoded from the URI fragment "#a") must be "" or start with "/" (or be a URI fragment starting with "#")`},
		{"~", ""},
		{"/~", `pointer "/~": "~" at offset 1 must be followed by 0 or 1 ("~0" is "~", "~1" is "/")`},
		{"/~2", ""},
		{"/a~", ""},
		{"/ok/b~x", `pointer "/ok/b~x": "~" at offset 5 must be followed by 0 or 1 ("~0" is "~", "~1" is "/")`},
		{"#/~2", ""},
		{"#/%7E2", ""}, // decodes to ~2
		{"#/%", `pointer "#/%": malformed percent escape "%" at offset 2: "%" must be followed by two hex digits ("%25" is "%")`},
		{"#/%2", ""},
		{"#/%zz", ""},
		{"#/%G0", ""},
		{"#/%FF", `pointer "#/%FF" decodes to "/\xff", which is not valid UTF-8: percent escapes must spell whole UTF-8 characters`},
		{"#/%C3", ""},       // a cut-short sequence
		{"#/%ED%A0%80", ""}, // a surrogate
		{"#/%C0%AF", ""},    // overlong
		{"/\xff", `pointer "/\xff" is not valid UTF-8 (byte 0xff at offset 1)`},
		{"#/\xc3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePointer(tt.in)
			require.NotNil(t, err, "tokens %q", got.Tokens())
			assert.Equal(t, errcode.InvalidPointer, err.Code)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, err.Msg)
			}
		})
	}
}

func TestPointerAppend(t *testing.T) {
	t.Parallel()
	base, err := ParsePointer("/a")
	require.Nil(t, err)
	got := base.Append("b/c", "~")
	assert.Equal(t, "/a/b~1c/~0", got.String())
	assert.Equal(t, "/a", base.String(), "Append must not change its receiver")
	assert.Equal(t, "", Pointer{}.String())

	// Appending to a shared prefix twice must not alias.
	x, y := base.Append("x"), base.Append("y")
	assert.Equal(t, "/a/x", x.String())
	assert.Equal(t, "/a/y", y.String())
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
