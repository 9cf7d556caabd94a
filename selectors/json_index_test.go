package selectors

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestJSONIndexWalk(t *testing.T) {
	t.Parallel()
	data := []byte(` { "a" : [1, "two", {"x":null}] , "b\u0021":{} ,"a":true, "\ud800": "s" } `)
	ix, err := IndexJSON(data)
	require.Nil(t, err)

	root := ix.Root()
	assert.Equal(t, JSONObject, ix.Kind(root))
	start, end := ix.Span(root)
	assert.Equal(t, 1, start)
	assert.Equal(t, len(data)-1, end)
	assert.Equal(t, 4, ix.Len(root))

	type member struct {
		Name, NameLexeme, Value string
		Type                    JSONType
	}
	var got []member
	for m, v := range ix.Members(root) {
		s, e := ix.Span(v)
		got = append(got, member{m.Name, string(data[m.NameStart:m.NameEnd]), string(data[s:e]), ix.Kind(v)})
		assert.False(t, m.InvalidUTF8)
	}
	assert.Equal(t, []member{
		{"a", `"a"`, `[1, "two", {"x":null}]`, JSONArray},
		{"b!", `"b\u0021"`, `{}`, JSONObject},
		{"a", `"a"`, `true`, JSONBoolean},
		{"\xed\xa0\x80", `"\ud800"`, `"s"`, JSONString}, // a lone surrogate, in generalized UTF-8
	}, got)

	arr, lerr := ix.LookupNode(Pointer{}.Append("b!"))
	require.Nil(t, lerr)
	assert.Equal(t, 0, ix.Len(arr))

	var elems []JSONValue
	first := NodeID(0)
	for _, v := range ix.Members(root) {
		first = v // the first member's value, "a"'s array
		break
	}
	for i, v := range ix.Elements(first) {
		assert.Equal(t, len(elems), i)
		elems = append(elems, ix.Value(v))
	}
	assert.Equal(t, []JSONValue{
		{Start: 10, End: 11, Type: JSONNumber},
		{Start: 13, End: 18, Type: JSONString},
		{Start: 20, End: 30, Type: JSONObject},
	}, elems)
	assert.Equal(t, 3, ix.Len(first))

	// Walking a value of the other kind yields nothing.
	for range ix.Elements(root) {
		t.Fatal("an object has no elements")
	}
	for range ix.Members(first) {
		t.Fatal("an array has no members")
	}
	assert.Equal(t, 0, ix.Len(first+1))
	text, invalidAt := ix.StringText(first + 2)
	assert.Equal(t, "two", text)
	assert.Equal(t, -1, invalidAt)
	text, invalidAt = ix.StringText(first + 1)
	assert.Equal(t, "", text)
	assert.Equal(t, -1, invalidAt)
}

func TestIndexJSONAllowInvalidUTF8(t *testing.T) {
	t.Parallel()
	data := []byte("{\"a\xff\": \"x\xffy\", \"b\": \"\\ud800\", \"c\": \"ok\", \"d\": \"\xe2\x82\"}")

	_, err := IndexJSON(data)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidJSON, err.Code)
	assert.Equal(t, int64(3), err.Details["offset"])

	ix, err := IndexJSONWith(data, IndexJSONOptions{AllowInvalidUTF8: true})
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

	v, lerr := ix.Lookup(Pointer{}.Append("a\xff"))
	require.Nil(t, lerr)
	_, derr := DecodeJSONString(data, v)
	require.NotNil(t, derr, "the strict decoder still refuses raw invalid UTF-8")
	assert.Equal(t, int64(9), derr.Details["offset"])

	// Everything else stays strict.
	for _, in := range []string{`[1,]`, "\"\x01\"", `"\x"`, "[\xff]"} {
		_, err := IndexJSONWith([]byte(in), IndexJSONOptions{AllowInvalidUTF8: true})
		assert.NotNil(t, err, in)
	}
}

// TestIndexJSONMemory checks the tape's cost per value.
func TestIndexJSONMemory(t *testing.T) {
	t.Parallel()
	data := []byte(`[1,2,3,{"a":[true,false,null,"s"]}]`)
	ix, err := IndexJSON(data)
	require.Nil(t, err)
	assert.Len(t, ix.nodes, 10)
	assert.LessOrEqual(t, cap(ix.nodes), 12)
	assert.Equal(t, uintptr(12), jsonNodeSize)
	assert.Less(t, uint64(jsonDescSaturated), uint64(math.MaxUint32))
}
