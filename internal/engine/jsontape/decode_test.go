package jsontape

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestDecodeString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`"\u0041\u00e9\u20AC"`, "Aé€"},
		{`"\u0000"`, "\x00"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"\udbff\udfff"`, "\U0010FFFF"},
		{`"\ud800\udc00"`, "\U00010000"},
		{"\"é😀\u007f\"", "é😀\u007f"},
		{`"a longer string, to take the word-at-a-time path, with an escape \n here"`,
			"a longer string, to take the word-at-a-time path, with an escape \n here"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			data := []byte(` [` + tt.in + `] `)
			v := Value{Start: 2, End: 2 + len(tt.in), Type: String}
			got, err := DecodeString(data, v)
			require.Nil(t, err)
			assert.Equal(t, tt.want, got)

			ix, err := Build(data, Options{})
			require.Nil(t, err)
			elem, ok := ix.Element(ix.Root(), 0)
			require.True(t, ok)
			text, invalidAt := ix.StringText(elem)
			assert.Equal(t, tt.want, text)
			assert.Equal(t, -1, invalidAt)
		})
	}
}

func TestDecodeStringLoneSurrogate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in            string
		want          int64  // offset of the failing escape
		wantText      string // StringText's generalized UTF-8
		wantInvalidAt int
	}{
		{`"\ud800"`, 1, "\xed\xa0\x80", 0},
		{`"\udc00x"`, 1, "\xed\xb0\x80x", 0},
		{`"ab\udc00x"`, 3, "ab\xed\xb0\x80x", 2},
		{`"\ud800\u0041"`, 1, "\xed\xa0\x80A", 0}, // a high surrogate, then no low one
		{`"\ud800\ud800"`, 1, "\xed\xa0\x80\xed\xa0\x80", 0},
		{`"\ud800\n"`, 1, "\xed\xa0\x80\n", 0},
		{`"\u0041\udc00"`, 7, "A\xed\xb0\x80", 1},
		{`"\ud83d\ude00\ud800"`, 13, "😀\xed\xa0\x80", 4},
		{`"é\uDFFF"`, 3, "é\xed\xbf\xbf", 2},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			data := []byte(tt.in)
			typ, verr := Validate(data)
			require.Nil(t, verr, "lone surrogates are valid in the document")
			assert.Equal(t, String, typ)

			_, err := DecodeString(data, Value{Start: 0, End: len(data), Type: String})
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidJSON, err.Code)
			assert.Equal(t, errcode.Details{Offset: new(tt.want)}, err.Details, err.Msg)

			ix, ierr := Build(data, Options{})
			require.Nil(t, ierr)
			text, invalidAt := ix.StringText(ix.Root())
			assert.Equal(t, tt.wantText, text)
			assert.Equal(t, tt.wantInvalidAt, invalidAt)
			assert.False(t, ix.InvalidUTF8(ix.Root()), "an escape is not raw invalid UTF-8")
		})
	}

	_, err := DecodeString([]byte(`"x\ud800"`), Value{Start: 0, End: 9, Type: String})
	require.NotNil(t, err)
	assert.Equal(t, `escape \ud800 at offset 2 is a lone surrogate, which has no UTF-8 form: "as": "string" needs a surrogate pair (\ud800-\udbff then \udc00-\udfff); "as": "lexeme" returns the raw text`, err.Msg)
}

func TestDecodeStringNotAString(t *testing.T) {
	t.Parallel()
	data := []byte(`{"a": 12, "b": [1], "c": null, "d": true}`)
	ix, ierr := Build(data, Options{})
	require.Nil(t, ierr)
	for name, want := range map[string]Type{"a": Number, "b": Array, "c": Null, "d": Boolean} {
		n, count := ix.Member(ix.Root(), name)
		require.Equal(t, 1, count)
		_, err := DecodeString(data, ix.Value(n))
		require.NotNil(t, err)
		assert.Equal(t, errcode.NotAString, err.Code)
		assert.Contains(t, err.Msg, "is a "+string(want)+", not a string")
	}
	n, _ := ix.Member(ix.Root(), "a")
	_, err := DecodeString(data, ix.Value(n))
	assert.Equal(t, `value at 6-8 is a number, not a string: "as": "string" needs a JSON string ("as": "lexeme" returns any value)`, err.Msg)
}

// TestDecodeStringBadSpan checks that spans that do not come from a
// lookup fail cleanly.
func TestDecodeStringBadSpan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in         string
		start, end int
		want       int64
	}{
		{`"abc"`, 0, 9, 0},
		{`"abc"`, -1, 5, 0},
		{`"abc"`, 1, 5, 1},
		{`"a" "b"`, 0, 7, 2},
		{`"a\x"`, 0, 5, 3},
		{`"a\"`, 0, 4, 3},
		{`"\u12"`, 0, 6, 5},
		{"\"\x01\"", 0, 3, 1},
		{"\"\xff\"", 0, 3, 1},
		{"\"\xe2\x82\"", 0, 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeString([]byte(tt.in), Value{Start: tt.start, End: tt.end, Type: String})
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidJSON, err.Code)
			assert.Equal(t, errcode.Details{Offset: new(tt.want)}, err.Details, err.Msg)
		})
	}
}
