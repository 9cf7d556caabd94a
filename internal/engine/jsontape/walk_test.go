package jsontape

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestIndexWalk(t *testing.T) {
	t.Parallel()
	data := []byte(` { "a" : [1, "two", {"x":null}] , "b\u0021":{} ,"a":true, "\ud800": "s" } `)
	ix, err := Build(data, Options{})
	require.Nil(t, err)

	root := ix.Root()
	assert.Equal(t, Object, ix.Kind(root))
	start, end := ix.Span(root)
	assert.Equal(t, 1, start)
	assert.Equal(t, len(data)-1, end)
	assert.Equal(t, 4, ix.Len(root))

	type member struct {
		Name, NameLexeme, Value string
		Type                    Type
	}
	var got []member
	for m, v := range ix.Members(root) {
		s, e := ix.Span(v)
		got = append(got, member{m.Name, string(data[m.NameStart:m.NameEnd]), string(data[s:e]), ix.Kind(v)})
		assert.False(t, m.InvalidUTF8)
	}
	assert.Equal(t, []member{
		{"a", `"a"`, `[1, "two", {"x":null}]`, Array},
		{"b!", `"b\u0021"`, `{}`, Object},
		{"a", `"a"`, `true`, Boolean},
		{"\xed\xa0\x80", `"\ud800"`, `"s"`, String}, // a lone surrogate, in generalized UTF-8
	}, got)

	obj, count := ix.Member(root, "b!")
	require.Equal(t, 1, count)
	assert.Equal(t, 0, ix.Len(obj))
	_, count = ix.Member(root, "a")
	assert.Equal(t, 2, count, "a duplicate name")
	_, count = ix.Member(root, "b")
	assert.Equal(t, 0, count)

	var elems []Value
	var first Node
	for _, v := range ix.Members(root) {
		first = v // the first member's value, "a"'s array
		break
	}
	for i, v := range ix.Elements(first) {
		assert.Equal(t, len(elems), i)
		elems = append(elems, ix.Value(v))
	}
	assert.Equal(t, []Value{
		{Start: 10, End: 11, Type: Number},
		{Start: 13, End: 18, Type: String},
		{Start: 20, End: 30, Type: Object},
	}, elems)
	assert.Equal(t, 3, ix.Len(first))

	// Walking a value of the other kind yields nothing.
	for range ix.Elements(root) {
		t.Fatal("an object has no elements")
	}
	for range ix.Members(first) {
		t.Fatal("an array has no members")
	}
	one, _ := ix.Element(first, 0)
	two, _ := ix.Element(first, 1)
	assert.Equal(t, 0, ix.Len(one))
	text, invalidAt := ix.StringText(two)
	assert.Equal(t, "two", text)
	assert.Equal(t, -1, invalidAt)
	text, invalidAt = ix.StringText(one)
	assert.Equal(t, "", text)
	assert.Equal(t, -1, invalidAt)
	_, ok := ix.Element(first, 3)
	assert.False(t, ok)
	_, ok = ix.Element(root, 0)
	assert.False(t, ok, "an object has no elements")
}

func TestBuildAllowInvalidUTF8(t *testing.T) {
	t.Parallel()
	data := []byte("{\"a\xff\": \"x\xffy\", \"b\": \"\\ud800\", \"c\": \"ok\", \"d\": \"\xe2\x82\"}")

	_, err := Build(data, Options{})
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidJSON, err.Code)
	assert.Equal(t, errcode.Details{Offset: new(int64(3))}, err.Details)

	ix, err := Build(data, Options{AllowInvalidUTF8: true})
	require.Nil(t, err)
	type member struct {
		Name        string
		NameInvalid bool
		Text        string
		InvalidAt   int
		Raw         bool
	}
	var got []member
	for m, v := range ix.Members(ix.Root()) {
		text, invalidAt := ix.StringText(v)
		got = append(got, member{m.Name, m.InvalidUTF8, text, invalidAt, ix.InvalidUTF8(v)})
	}
	assert.Equal(t, []member{
		{"a\xff", true, "x\xffy", 1, true},
		{"b", false, "\xed\xa0\x80", 0, false},
		{"c", false, "ok", -1, false},
		{"d", false, "\xe2\x82", 0, true},
	}, got)

	v, count := ix.Member(ix.Root(), "a\xff")
	require.Equal(t, 1, count)
	_, derr := DecodeString(data, ix.Value(v))
	require.NotNil(t, derr, "the strict decoder still refuses raw invalid UTF-8")
	assert.Equal(t, errcode.Details{Offset: new(int64(9))}, derr.Details)

	// Everything else stays strict.
	for _, in := range []string{`[1,]`, "\"\x01\"", `"\x"`, "[\xff]"} {
		_, err := Build([]byte(in), Options{AllowInvalidUTF8: true})
		assert.NotNil(t, err, in)
	}
}
