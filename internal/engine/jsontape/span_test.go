package jsontape

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMembers(t *testing.T) {
	t.Parallel()
	body := []byte(` { "a" : [1, {"x": "}"}] , "b\"c":"q\\"  ,"\u0064":-1.5e3,"a":null,"\ud800":{} } `)
	require.True(t, json.Valid(body))
	var names, values []string
	for name, v := range Members(body, SkipSpace(body, 0)) {
		names = append(names, name)
		values = append(values, string(body[v.Start:v.End]))
	}
	assert.Equal(t, []string{"a", `b"c`, "d", "a", "\ufffd"}, names)
	assert.Equal(t, []string{`[1, {"x": "}"}]`, `"q\\"`, "-1.5e3", "null", "{}"}, values)

	var lexemes []string
	for name := range MemberSpans(body, SkipSpace(body, 0)) {
		lexemes = append(lexemes, string(body[name.Start:name.End]))
	}
	assert.Equal(t, []string{`"a"`, `"b\"c"`, `"\u0064"`, `"a"`, `"\ud800"`}, lexemes)

	for range Members([]byte("{}"), 0) {
		t.Fatal("an empty object has no members")
	}
}

func TestValueEnd(t *testing.T) {
	t.Parallel()
	for in, end := range map[string]int{
		`"a\\"` + `,`:   5,
		`"a\"b",`:       6,
		`[[],{"]":1}],`: 12,
		`123}`:          3,
		`true`:          4,
		"-0\t":          2,
	} {
		assert.Equal(t, end, ValueEnd([]byte(in), 0), "%s", in)
	}
}

func TestDeeperThan(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 5) + strings.Repeat("]", 5)
	assert.False(t, DeeperThan([]byte(deep), 5))
	assert.True(t, DeeperThan([]byte(deep), 4))
	assert.False(t, DeeperThan([]byte(`["[[[[[[", {"a": "{{{{"}]`), 2), "brackets in strings do not nest")
	assert.Equal(t, 3, SkipSpace([]byte(" \t\nx"), 0))
	assert.False(t, Span{}.Present())
	assert.Equal(t, 4, Span{2, 6}.Len())
}
