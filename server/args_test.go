package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

type testArgs struct {
	Name  string           `arg:"name"`
	Text  *string          `arg:"text,not_utf8"`
	N     *int64           `arg:"n"`
	Flag  *bool            `arg:"flag"`
	Paths []string         `arg:"paths"`
	Raw   *json.RawMessage `arg:"raw"`
}

func TestDecodeArgs(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	raw := func(s string) *json.RawMessage { r := json.RawMessage(s); return &r }
	yes := true
	tests := []struct {
		name string
		raw  string
		want testArgs
		code errcode.Code
	}{
		{"all", `{"name":"a","text":"b","n":3,"flag":true,"paths":["x","y"],"raw":{"k":[1,2]}}`,
			testArgs{Name: "a", Text: str("b"), N: num(3), Flag: &yes, Paths: []string{"x", "y"}, Raw: raw(`{"k":[1,2]}`)}, ""},
		{"nulls are omitted", `{"name":"a","text":null,"n":null,"flag":null,"paths":[]}`,
			testArgs{Name: "a", Paths: []string{}}, ""},
		{"escapes decode", `{"name":"a\u00e9\ud83d\ude00\n\"","paths":[]}`, testArgs{Name: "aé😀\n\"", Paths: []string{}}, ""},
		{"integral float", `{"name":"a","n":3.0,"paths":[]}`, testArgs{Name: "a", N: num(3), Paths: []string{}}, ""},
		{"exponent", `{"name":"a","n":12e2,"paths":[]}`, testArgs{Name: "a", N: num(1200), Paths: []string{}}, ""},
		{"fraction times exponent", `{"name":"a","n":1.5e1,"paths":[]}`, testArgs{Name: "a", N: num(15), Paths: []string{}}, ""},
		{"huge saturates", `{"name":"a","n":1e400,"paths":[]}`, testArgs{Name: "a", N: num(1<<63 - 1), Paths: []string{}}, ""},
		{"huge negative saturates", `{"name":"a","n":-99999999999999999999,"paths":[]}`, testArgs{Name: "a", N: num(-1 << 63), Paths: []string{}}, ""},
		{"negative zero", `{"name":"a","n":-0.0,"paths":[]}`, testArgs{Name: "a", N: num(0), Paths: []string{}}, ""},
		{"fraction", `{"name":"a","n":1.5,"paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"tiny exponent", `{"name":"a","n":1e-400,"paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"string for integer", `{"name":"a","n":"3","paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"integer for string", `{"name":3,"paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"string for bool", `{"name":"a","flag":"true","paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"unknown name", `{"name":"a","paths":[],"extra":1}`, testArgs{}, errcode.InvalidArgument},
		{"repeated name", `{"name":"a","name":"b","paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"missing required", `{"paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"required null", `{"name":null,"paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"no arguments at all", ``, testArgs{}, errcode.InvalidArgument},
		{"not an object", `[1]`, testArgs{}, errcode.InvalidArgument},
		{"array item not a string", `{"name":"a","paths":["x",1]}`, testArgs{}, errcode.InvalidArgument},
		{"lone surrogate in a string", `{"name":"\ud800","paths":[]}`, testArgs{}, errcode.InvalidArgument},
		{"raw invalid byte in a string", "{\"name\":\"a\xffb\",\"paths\":[]}", testArgs{}, errcode.InvalidArgument},
		{"raw invalid byte in an array item", "{\"name\":\"a\",\"paths\":[\"\xc0\"]}", testArgs{}, errcode.InvalidArgument},
		{"not_utf8 field: raw byte", "{\"name\":\"a\",\"text\":\"ab\xff\",\"paths\":[]}", testArgs{}, errcode.NotUTF8},
		{"raw value keeps invalid bytes", "{\"name\":\"a\",\"paths\":[],\"raw\":\"\xff\"}",
			testArgs{Name: "a", Paths: []string{}, Raw: raw("\"\xff\"")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got testArgs
			err := decodeArgs([]byte(tt.raw), &got)
			if tt.code != "" {
				require.NotNil(t, err)
				assert.Equal(t, tt.code, err.Code, err.Msg)
			} else {
				require.Nil(t, err)
				assert.Equal(t, tt.want, got)
			}
			sameShallow(t, []byte(tt.raw))
		})
	}
}

// sameShallow requires decodeShallow, where it answers, to answer raw as
// decodeIndexed does: the same error (code and message) or the same
// arguments.
func sameShallow(t *testing.T, raw []byte) {
	t.Helper()
	var shallow, indexed testArgs
	plan := planOf(reflect.TypeFor[testArgs]())
	done, serr := decodeShallow(raw, reflect.ValueOf(&shallow).Elem(), plan)
	if !done {
		return
	}
	ierr := decodeIndexed(raw, reflect.ValueOf(&indexed).Elem(), plan)
	if ierr != nil {
		require.NotNil(t, serr, "indexed: %s", ierr.Msg)
		assert.Equal(t, ierr.Code, serr.Code)
		assert.Equal(t, ierr.Msg, serr.Msg)
		return
	}
	require.Nil(t, serr, "indexed read it")
	assert.Equal(t, indexed, shallow)
}

// TestDecodeArgsLargeRaw: arguments past shallowArgs with a
// json.RawMessage field keep the field's exact bytes, and a value nested
// past 1,000 levels is still refused.
func TestDecodeArgsLargeRaw(t *testing.T) {
	t.Parallel()
	big := "[" + strings.Repeat("0,", shallowArgs/2) + "0]"
	var got testArgs
	require.Nil(t, decodeArgs([]byte(`{"name":"a","paths":[],"raw":`+big+`}`), &got))
	require.NotNil(t, got.Raw)
	assert.Equal(t, big, string(*got.Raw))
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	err := decodeArgs([]byte(`{"name":"`+strings.Repeat(" ", shallowArgs)+`","paths":[],"raw":`+deep+`}`), &got)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidArgument, err.Code)
	assert.Contains(t, err.Msg, "arguments are not valid JSON")
}

func TestDecodeArgsNotUTF8Offset(t *testing.T) {
	t.Parallel()
	// A lone surrogate escape counts as its 3-byte form in the decoded text.
	var got testArgs
	err := decodeArgs([]byte(`{"name":"a","paths":[],"text":"é\n\udc00"}`), &got)
	require.NotNil(t, err)
	assert.Equal(t, errcode.NotUTF8, err.Code)
	assert.Equal(t, errcode.Details{Offset: new(int64(3))}, err.Details)

	err = decodeArgs([]byte("{\"name\":\"a\",\"paths\":[],\"text\":\"\\u00e9x\xfe\"}"), &got)
	require.NotNil(t, err)
	assert.Equal(t, errcode.Details{Offset: new(int64(3))}, err.Details)
}

func TestDecodeArgsMessages(t *testing.T) {
	t.Parallel()
	var got getLinesArgs
	err := decodeArgs([]byte(`{"result":"r1","first":1,"lst":2}`), &got)
	require.NotNil(t, err)
	assert.Equal(t, `unknown argument "lst"; the arguments are result, sha256, path, first, last, numbered`, err.Msg)
}

// TestDecodeArgsWrongTypeMessages: a value of the wrong type is named by
// what was given, so that the fix is plain.
func TestDecodeArgsWrongTypeMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
	}{
		{"string for integer", `{"name":"a","n":"3","paths":[]}`, `argument "n" must be an integer, not a string`},
		{"fraction for integer", `{"name":"a","n":1.5,"paths":[]}`, `argument "n" must be an integer, not 1.5`},
		{"object for integer", `{"name":"a","n":{},"paths":[]}`, `argument "n" must be an integer, not an object`},
		{"integer for string", `{"name":3,"paths":[]}`, `argument "name" must be a string, not a number`},
		{"string for bool", `{"name":"a","flag":"true","paths":[]}`, `argument "flag" must be a boolean, not a string`},
		{"bool for array", `{"name":"a","paths":false}`, `argument "paths" must be an array of strings, not false`},
		{"number in an array of strings", `{"name":"a","paths":["x",1]}`, `argument "paths/1" must be a string, not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got testArgs
			err := decodeArgs([]byte(tt.raw), &got)
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidArgument, err.Code)
			assert.Equal(t, tt.want, err.Msg)
		})
	}
}

func FuzzDecodeArgs(f *testing.F) {
	f.Add([]byte(`{"name":"a","n":3,"paths":["x"],"raw":{"a":[1,{"b":null}]}}`))
	f.Add([]byte(`{"name":"\ud800"}`))
	f.Add([]byte("{\"name\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got testArgs
		if err := decodeArgs(raw, &got); err != nil {
			if err.Code != errcode.InvalidArgument && err.Code != errcode.NotUTF8 {
				t.Fatalf("unexpected code %s", err.Code)
			}
		}
		sameShallow(t, raw)
	})
}
