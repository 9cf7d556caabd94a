package jsontape

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestValidateValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Type
	}{
		{`{}`, Object},
		{`[]`, Array},
		{`""`, String},
		{`"a"`, String},
		{`0`, Number},
		{`-0`, Number},
		{`-0.0e-10`, Number},
		{`1.000000000000000000001`, Number},
		{`123456789012345678901234567890`, Number},
		{`1E+2`, Number},
		{"9999999999999999999999999999999 ", Number},
		{`[12345678901234567890,1.12345678901234567890e12345678901234567,-9876543210.0123456789E-0123456789]`, Array},
		{`1e-2`, Number},
		{`0.5E7`, Number},
		{`true`, Boolean},
		{`false`, Boolean},
		{`null`, Null},
		{" \t\r\n{} \t\r\n", Object},
		{"                  [ 1 ,\n\t2 ]                 ", Array},
		{`{"a":[1,{"b":null}],"c":{"d":[true,false,"x"]}}`, Object},
		{`{"a":1,"a":2}`, Object}, // duplicates do not make a document invalid
		{`"\ud800"`, String},      // lone surrogate escapes are grammatical
		{`"\udc00x"`, String},
		{`"\ud800\u0041"`, String},
		{`"\uD83D\uDE00"`, String},
		{`"\u00e9\/\b\f\n\r\t\\\""`, String},
		{"\"é😀€\u07ff\U0010FFFF\"", String},
		{"\"\x7f\"", String}, // DEL is not a control character for JSON
		{`"a string longer than eight bytes, to take the word-at-a-time path \" still"`, String},
		{strings.Repeat("[", 1000) + strings.Repeat("]", 1000), Array},
		{strings.Repeat(`{"a":`, 999) + `[]` + strings.Repeat("}", 999), Object},
	}
	for _, tt := range tests {
		t.Run(testName(tt.in), func(t *testing.T) {
			t.Parallel()
			got, err := Validate([]byte(tt.in))
			require.Nil(t, err)
			assert.Equal(t, tt.want, got)

			ix, err := Build([]byte(tt.in), Options{})
			require.Nil(t, err)
			assert.Equal(t, tt.want, ix.Kind(ix.Root()))
		})
	}
}

func TestValidateInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64 // offset
	}{
		{``, 0},
		{`   `, 3},
		{"\xEF\xBB\xBF{}", 0}, // byte order mark
		{`{"a":1}x`, 7},
		{`{"a":1}}`, 7},
		{`[]]`, 2},
		{`[1,]`, 3},
		{`{"a":1,}`, 7},
		{`{"a":1,,}`, 7},
		{`[,1]`, 1},
		{`01`, 1},
		{`-01`, 2},
		{`[01]`, 2},
		{`00`, 1},
		{`1.`, 2},
		{`1.x`, 2},
		{`[1.e5]`, 3},
		{`.5`, 0},
		{`1e`, 2},
		{`1e+`, 3},
		{`1E-x`, 3},
		{`1e5.5`, 3},
		{`0x10`, 1},
		{`+1`, 0},
		{"1234567890123456789\xff", 19}, // digits are read 8 at a time
		{"123456789012345678:", 18},
		{"1.2345678901234567/", 18},
		{"1e23456789012345678\xfa", 19},
		{`-`, 1},
		{`-x`, 1},
		{`[-]`, 2},
		{`1 2`, 2},
		{`NaN`, 0},
		{`Infinity`, 0},
		{`-Infinity`, 1},
		{`'a'`, 0},
		{`['a']`, 1},
		{"// c\n{}", 0},
		{`{"a":1 /*c*/}`, 7},
		{`[`, 1},
		{`{`, 1},
		{`[1,2`, 4},
		{`[1,2,`, 5},
		{`{"a"`, 4},
		{`{"a":`, 5},
		{`{"a" 1}`, 5},
		{`{"a":1,"b"}`, 10},
		{`{"a":1 "b":2}`, 7},
		{`[1 2]`, 3},
		{`{1:2}`, 1},
		{`[}`, 1},
		{`{]`, 1},
		{`tru`, 3},
		{`trux`, 3},
		{`t`, 1},
		{`nul`, 3},
		{`nulL`, 3},
		{`fals`, 4},
		{`True`, 0},
		{"\x00", 0},
		{"\v{}", 0},       // vertical tab is not JSON whitespace
		{"\f{}", 0},       // neither is form feed
		{"\xC2\xA0{}", 0}, // nor a no-break space
		{`"abc`, 4},
		{`"\x"`, 2},
		{`"\x`, 2},
		{`"\`, 2},
		{`"\'"`, 2},
		{`"\u12G4"`, 5},
		{`"\u12"`, 5},
		{`"\u12`, 5},
		{`"\ud800`, 7},
		{"\"a\nb\"", 2},
		{"\"a\tb\"", 2},
		{"\"0123456789\x1f\"", 11},
		{"\"\xC0\x80\"", 1},         // overlong NUL
		{"\"\xE0\x80\xAF\"", 1},     // overlong '/'
		{"\"ab\xED\xA0\x80\"", 3},   // a surrogate encoded in UTF-8
		{"\"\xF4\x90\x80\x80\"", 1}, // beyond U+10FFFF
		{"\"\xF5\x80\x80\x80\"", 1},
		{"\"\xE2\x82\"", 1}, // cut short by the closing quote
		{"\"\xE2\x82", 3},   // cut short by the end of data: truncated document
		{"\"\xFF\"", 1},
		{"\"\x80\"", 1},         // a stray continuation byte
		{"\"abcdefgh\xFF\"", 9}, // found by the word-at-a-time path
		{`"a"` + "\x00", 3},
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), 1000},
		{strings.Repeat(`{"a":`, 1000) + `{}` + strings.Repeat("}", 1000), 5000},
		{strings.Repeat("[", 1000) + strings.Repeat("]", 999), 1999},
	}
	for _, tt := range tests {
		t.Run(testName(tt.in), func(t *testing.T) {
			t.Parallel()
			got, err := Validate([]byte(tt.in))
			require.NotNil(t, err, "type %q", got)
			assert.Equal(t, errcode.InvalidJSON, err.Code)
			assert.Equal(t, errcode.Details{Offset: new(tt.want)}, err.Details, err.Msg)
			assert.Equal(t, Type(""), got)

			ix, ierr := Build([]byte(tt.in), Options{})
			require.NotNil(t, ierr)
			assert.Nil(t, ix)
			assert.Equal(t, err, ierr, "Build must fail as Validate does")
		})
	}
}

func TestValidateMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{``, "empty document (end of input at offset 0): expected a JSON value (object, array, string, number, true, false or null)"},
		{`[1,]`, `invalid character ']' at offset 3: expected a value after ','; trailing commas are not allowed`},
		{`{"a":1}x`, `invalid character 'x' at offset 7: expected the end of input after the top-level value`},
		{`01`, `invalid character '1' at offset 1: a number's integer part has no leading zero (write 0, or start with 1-9)`},
		{`[`, `unexpected end of input at offset 1: expected a value or ']'`},
		{`"\x"`, `invalid character 'x' at offset 2: expected an escape after '\': \" \\ \/ \b \f \n \r \t or \uXXXX`},
		{"\"\n\"", `unescaped control character 0x0a in a string at offset 1: write it as \u000a`},
		{"\"\xff\"", `invalid UTF-8 byte 0xff in a string at offset 1: strings must be valid UTF-8`},
		{"\xEF\xBB\xBF{}", `invalid character byte 0xef at offset 0: expected a JSON value (object, array, string, number, true, false or null)`},
		{strings.Repeat("[", 1001), `nesting deeper than 1000 arrays and objects at offset 1000`},
	}
	for _, tt := range tests {
		t.Run(testName(tt.in), func(t *testing.T) {
			t.Parallel()
			_, err := Validate([]byte(tt.in))
			require.NotNil(t, err)
			assert.Equal(t, tt.want, err.Msg)
		})
	}
}

// TestValidateTopLevelType checks that the type comes from the first
// byte and that obviously foreign files fail at their first byte.
func TestValidateTopLevelType(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"package main\n", "<html>", "# title", "\x89PNG"} {
		_, err := Validate([]byte(in))
		require.NotNil(t, err, in)
		assert.Equal(t, errcode.Details{Offset: new(int64(0))}, err.Details, in)
	}
}

func TestValidateAllocs(t *testing.T) {
	data := []byte(`{"a":[1,2.5e3,"x\u00e9\n",true,false,null],"b":{"c":{}},"d":[]}`)
	got := testing.AllocsPerRun(100, func() {
		if _, err := Validate(data); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, got)
}

// testName shortens a test input for a subtest name.
func testName(in string) string {
	if len(in) > 40 {
		return in[:30] + "..." + in[len(in)-7:]
	}
	return in
}
