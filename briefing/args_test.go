package briefing

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/selectors"
)

type testArgs struct {
	Name  string    `arg:"name"`
	Text  *string   `arg:"text,not_utf8"`
	N     *int64    `arg:"n"`
	Flag  *bool     `arg:"flag"`
	Paths []string  `arg:"paths"`
	Raw   *Raw[any] `arg:"raw"`
}

// decodeArgs binds args to dst, a pointer to a request struct, as OpOf
// does.
func decodeArgs[R any](args jsontape.Sub, dst *R) *errcode.Error {
	return planOf(reflect.TypeFor[R](), "argument").decode(args, reflect.ValueOf(dst).Elem())
}

// indexArgs indexes raw as the transport indexes a message that holds it
// (raw invalid UTF-8 allowed, 10,000 levels) and returns it as a call's
// arguments: the zero Sub for no bytes at all.
func indexArgs(t testing.TB, raw string) jsontape.Sub {
	t.Helper()
	if raw == "" {
		return jsontape.Sub{}
	}
	ix, err := jsontape.Build([]byte(raw), jsontape.Options{AllowInvalidUTF8: true, MaxDepth: 10_000})
	require.Nil(t, err)
	return ix.SubOf(ix.Root())
}

// rawBytes is a Raw field's bytes, for comparing.
func rawBytes(s *Raw[any]) *string {
	if s == nil {
		return nil
	}
	b := string(s.Bytes())
	return &b
}

// TestArguments: a request type's arguments are its tagged fields and
// those of the structs it embeds, in field order; an untagged field (the
// state its checks keep) is none; a pointer is optional.
func TestArguments(t *testing.T) {
	t.Parallel()
	var got []string
	for _, typ := range []reflect.Type{reflect.TypeFor[GetLinesRequest](), reflect.TypeFor[FindRequest]()} {
		for _, a := range Arguments(typ) {
			kind := "optional"
			if a.Required {
				kind = "required"
			}
			got = append(got, a.Name+" "+a.Type.String()+" "+kind)
		}
	}
	assert.Equal(t, []string{
		"result string optional", "sha256 briefing.DigestPrefix optional", "path string optional",
		"first int64 required", "last int64 optional", "numbered bool optional",
		"result string optional", "sha256 briefing.DigestPrefix optional", "paths []string optional", "pattern string optional",
		"patterns []string optional", "regex bool optional", "ignore_case bool optional", "max_matches int64 optional",
	}, got)
	assert.PanicsWithValue(t, "briefing: argument x of briefing.floatArgs has a type the binder does not take: float64",
		func() { planOf(reflect.TypeFor[floatArgs](), "argument") })
}

// floatArgs has an argument of a type that no tool takes.
type floatArgs struct {
	X float64 `arg:"x"`
}

func TestDecodeArgs(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	raw := func(s string) *string { return &s }
	yes := true
	tests := []struct {
		name    string
		raw     string
		want    testArgs
		code    errcode.Code
		wantRaw *string // the raw field's bytes
	}{
		{"all", `{"name":"a","text":"b","n":3,"flag":true,"paths":["x","y"],"raw":{"k":[1,2]}}`,
			testArgs{Name: "a", Text: str("b"), N: num(3), Flag: &yes, Paths: []string{"x", "y"}}, "", raw(`{"k":[1,2]}`)},
		{"nulls are omitted", `{"name":"a","text":null,"n":null,"flag":null,"paths":[]}`,
			testArgs{Name: "a", Paths: []string{}}, "", nil},
		{"escapes decode", `{"name":"a\u00e9\ud83d\ude00\n\"","paths":[]}`, testArgs{Name: "aé😀\n\"", Paths: []string{}}, "", nil},
		{"integral float", `{"name":"a","n":3.0,"paths":[]}`, testArgs{Name: "a", N: num(3), Paths: []string{}}, "", nil},
		{"exponent", `{"name":"a","n":12e2,"paths":[]}`, testArgs{Name: "a", N: num(1200), Paths: []string{}}, "", nil},
		{"fraction times exponent", `{"name":"a","n":1.5e1,"paths":[]}`, testArgs{Name: "a", N: num(15), Paths: []string{}}, "", nil},
		{"huge saturates", `{"name":"a","n":1e400,"paths":[]}`, testArgs{Name: "a", N: num(1<<63 - 1), Paths: []string{}}, "", nil},
		{"huge negative saturates", `{"name":"a","n":-99999999999999999999,"paths":[]}`, testArgs{Name: "a", N: num(-1 << 63), Paths: []string{}}, "", nil},
		{"negative zero", `{"name":"a","n":-0.0,"paths":[]}`, testArgs{Name: "a", N: num(0), Paths: []string{}}, "", nil},
		{"fraction", `{"name":"a","n":1.5,"paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"tiny exponent", `{"name":"a","n":1e-400,"paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"string for integer", `{"name":"a","n":"3","paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"integer for string", `{"name":3,"paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"string for bool", `{"name":"a","flag":"true","paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"unknown name", `{"name":"a","paths":[],"extra":1}`, testArgs{}, errcode.InvalidArgument, nil},
		{"repeated name", `{"name":"a","name":"b","paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"missing required", `{"paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"required null", `{"name":null,"paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"no arguments at all", ``, testArgs{}, errcode.InvalidArgument, nil},
		{"not an object", `[1]`, testArgs{}, errcode.InvalidArgument, nil},
		{"array item not a string", `{"name":"a","paths":["x",1]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"lone surrogate in a string", `{"name":"\ud800","paths":[]}`, testArgs{}, errcode.InvalidArgument, nil},
		{"raw invalid byte in a string", "{\"name\":\"a\xffb\",\"paths\":[]}", testArgs{}, errcode.InvalidArgument, nil},
		{"raw invalid byte in an array item", "{\"name\":\"a\",\"paths\":[\"\xc0\"]}", testArgs{}, errcode.InvalidArgument, nil},
		{"not_utf8 field: raw byte", "{\"name\":\"a\",\"text\":\"ab\xff\",\"paths\":[]}", testArgs{}, errcode.NotUTF8, nil},
		{"raw value keeps invalid bytes", "{\"name\":\"a\",\"paths\":[],\"raw\":\"\xff\"}",
			testArgs{Name: "a", Paths: []string{}}, "", raw("\"\xff\"")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got testArgs
			err := decodeArgs(indexArgs(t, tt.raw), &got)
			if tt.code != "" {
				require.NotNil(t, err)
				assert.Equal(t, tt.code, err.Code, err.Msg)
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.wantRaw, rawBytes(got.Raw))
			got.Raw = nil
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDecodeArgsInMessage: arguments read where the message holds them
// (a value of its index, at any offset) decode as the same bytes alone
// do; a Sub field is the value itself, not a copy; and the 1,000 levels
// hold for the arguments alone, with the offset in their bytes, whatever
// the rest of the message nests.
func TestDecodeArgsInMessage(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	big := "[" + strings.Repeat("0,", 1<<19) + "0]"
	for _, tt := range []struct {
		name, args, beside string
		err                string // "" for none
	}{
		{"shallow", `{"name":"a","paths":["x"],"raw":{"k":[1,2]}}`, `1`, ""},
		{"a large raw value", `{"name":"a","paths":[],"raw":` + big + `}`, `1`, ""},
		{"deep beside the arguments", `{"name":"a","paths":[],"raw":[[1]]}`, deep, ""},
		{"deep in the arguments", `{"name":"a","paths":[],"raw":` + deep + `}`, `1`,
			"arguments are not valid JSON: nesting deeper than 1000 arrays and objects at offset 1028"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg := `{"jsonrpc":"2.0","id":1,"params":{"_meta":` + tt.beside + `,"arguments":` + tt.args + `}}`
			ix, err := jsontape.Build([]byte(msg), jsontape.Options{AllowInvalidUTF8: true, MaxDepth: 10_000})
			require.Nil(t, err)
			params, _ := ix.Member(ix.Root(), "params")
			args, _ := ix.Member(params, "arguments")
			var got testArgs
			derr := decodeArgs(ix.SubOf(args), &got)
			if tt.err != "" {
				require.NotNil(t, derr)
				assert.Equal(t, errcode.InvalidArgument, derr.Code)
				assert.Equal(t, tt.err, derr.Msg)
				return
			}
			require.Nil(t, derr)
			var alone testArgs
			require.Nil(t, decodeArgs(indexArgs(t, tt.args), &alone))
			assert.Equal(t, rawBytes(alone.Raw), rawBytes(got.Raw))
			raw := got.Raw.Bytes()
			start, _ := ix.Span(got.Raw.Node)
			assert.Equal(t, strings.Index(msg, `"raw":`)+len(`"raw":`), start, "the value where the message holds it")
			assert.Equal(t, len(raw), cap(raw))
			got.Raw, alone.Raw = nil, nil
			assert.Equal(t, alone, got)
		})
	}
}

func TestDecodeArgsNotUTF8Offset(t *testing.T) {
	t.Parallel()
	// A lone surrogate escape counts as its 3-byte form in the decoded text.
	var got testArgs
	err := decodeArgs(indexArgs(t, `{"name":"a","paths":[],"text":"é\n\udc00"}`), &got)
	require.NotNil(t, err)
	assert.Equal(t, errcode.NotUTF8, err.Code)
	assert.Equal(t, errcode.Details{Offset: new(int64(3))}, err.Details)

	err = decodeArgs(indexArgs(t, "{\"name\":\"a\",\"paths\":[],\"text\":\"\\u00e9x\xfe\"}"), &got)
	require.NotNil(t, err)
	assert.Equal(t, errcode.Details{Offset: new(int64(3))}, err.Details)
}

func TestDecodeArgsMessages(t *testing.T) {
	t.Parallel()
	var got GetLinesRequest
	err := decodeArgs(indexArgs(t, `{"result":"r1","first":1,"lst":2}`), &got)
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
		{"integer for string", `{"name":3,"paths":[]}`, `argument "name" must be a string, not 3`},
		{"a long number for string", `{"name":1234567890123456789012345678901234567890.5,"paths":[]}`, `argument "name" must be a string, not a number`},
		{"string for bool", `{"name":"a","flag":"true","paths":[]}`, `argument "flag" must be a boolean, not a string`},
		{"bool for array", `{"name":"a","paths":false}`, `argument "paths" must be an array of strings, not false`},
		{"number in an array of strings", `{"name":"a","paths":["x",1]}`, `argument "paths/1" must be a string, not 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got testArgs
			err := decodeArgs(indexArgs(t, tt.raw), &got)
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
		// What the transport reads: valid JSON (else the message is not).
		ix, ierr := jsontape.Build(raw, jsontape.Options{AllowInvalidUTF8: true, MaxDepth: 10_000})
		if ierr != nil {
			return
		}
		var got testArgs
		if err := decodeArgs(ix.SubOf(ix.Root()), &got); err != nil {
			if err.Code != errcode.InvalidArgument && err.Code != errcode.NotUTF8 {
				t.Fatalf("unexpected code %s", err.Code)
			}
		}
	})
}

// BenchmarkDecodeArgs binds a lookup's three arguments, and an
// expand_edit's arguments holding a 1 MiB literal, from the index of the
// message that holds them (built once, outside the loop, as the transport
// builds it once for the call).
func BenchmarkDecodeArgs(b *testing.B) {
	b.Run("get_lines", func(b *testing.B) {
		raw := indexArgs(b, `{"result":"r1","first":120,"last":139}`)
		plan := planOf(reflect.TypeFor[GetLinesRequest](), "argument") // once, as OpOf plans it
		for b.Loop() {
			var a GetLinesRequest
			if err := plan.decode(raw, reflect.ValueOf(&a).Elem()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("expand_edit 1 MiB", func(b *testing.B) {
		text := `{"arguments":{"path":"a.go","content":{"$compose":["` + strings.Repeat("x", 1<<20) + `",{"result":"r1"}]}}}`
		raw := indexArgs(b, text)
		b.SetBytes(int64(len(text)))
		plan := planOf(reflect.TypeFor[ExpandEditRequest](), "argument")
		for b.Loop() {
			var a ExpandEditRequest
			if err := plan.decode(raw, reflect.ValueOf(&a).Elem()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// bindJSON binds the JSON object raw with plan to a new T, as a form or a
// call's arguments are bound.
func bindJSON[T any](t *testing.T, plan *argPlan, raw string) (T, *errcode.Error) {
	t.Helper()
	var v T
	ix, err := jsontape.Build([]byte(raw), jsontape.Options{AllowInvalidUTF8: true})
	require.Nil(t, err)
	return v, plan.bindForm(ix, ix.Root(), &v)
}

// TestBindEveryDepth checks that each fault has one message at every
// depth: a tool's arguments ("argument") and the forms inside them, a
// splice, an edit and a reference ("member"), each bound by the one binder.
func TestBindEveryDepth(t *testing.T) {
	t.Parallel()
	splice := func(raw string) func(*testing.T) *errcode.Error {
		return func(t *testing.T) *errcode.Error { _, err := bindJSON[SpliceForm](t, splicePlan, raw); return err }
	}
	edit := func(raw string) func(*testing.T) *errcode.Error {
		return func(t *testing.T) *errcode.Error { _, err := bindJSON[EditForm](t, editPlan, raw); return err }
	}
	part := func(raw string) func(*testing.T) *errcode.Error {
		return func(t *testing.T) *errcode.Error { _, err := bindJSON[PartForm](t, partPlan, raw); return err }
	}
	write := func(raw string) func(*testing.T) *errcode.Error {
		return func(t *testing.T) *errcode.Error {
			var req WriteFileRequest
			return decodeArgs(indexArgs(t, raw), &req)
		}
	}
	expand := func(raw string) func(*testing.T) *errcode.Error {
		return func(t *testing.T) *errcode.Error {
			var req ExpandEditRequest
			return decodeArgs(indexArgs(t, raw), &req)
		}
	}
	tests := []struct {
		name string
		bind func(*testing.T) *errcode.Error
		want string
	}{
		{"argument given twice", write(`{"path":"a","path":"b"}`), `argument "path" is given twice`},
		{"splice member given twice", splice(`{"result":"r1","result":"r1","edits":[]}`), `member "result" is given twice`},
		{"edit member given twice", edit(`{"lines":[1,1],"lines":[1,1],"text":""}`), `member "lines" is given twice`},
		{"reference member given twice", part(`{"result":"r1","sha256":null,"sha256":null}`), `member "sha256" is given twice`},

		{"unknown argument", write(`{"paht":"a"}`), `unknown argument "paht"; the arguments are path, text, compose, splice, base`},
		{"unknown splice member", splice(`{"result":"r1","edits":[],"x":1}`), `unknown member "x"; the members are result, sha256, edits`},
		{"unknown edit member", edit(`{"line":[1,1],"text":""}`), `unknown member "line"; the members are lines, before, after, text`},
		{"unknown reference member, null", part(`{"result":"r1","line":null}`), `unknown member "line"; the members are result, sha256, bytes, lines, pointer, as`},
		{"member name not UTF-8", splice("{\"result\":\"r1\",\"\xff\":1}"), `a member name is not valid UTF-8`},
		{"argument name not UTF-8", write("{\"\xff\":1}"), `an argument name is not valid UTF-8`},

		{"argument of the wrong type", write(`{"path":1}`), `argument "path" must be a string, not 1`},
		{"splice member of the wrong type", splice(`{"result":true,"edits":[]}`), `member "result" must be a string, not true`},
		{"edit position of the wrong type", edit(`{"before":{},"text":""}`), `member "before" must be a line number or an anchor ("41#xy"), not an object`},
		{"reference member of the wrong type", part(`{"result":"r1","pointer":[]}`), `member "pointer" must be a string, not an array`},
		{"an element of the wrong type", part(`{"result":"r1","bytes":[0,1.5]}`), `member "bytes/1" must be an integer, not 1.5`},

		{"required argument null", expand(`{"arguments":null}`), `argument "arguments" is required and cannot be null`},
		{"required member null", splice(`{"result":null,"edits":[]}`), `member "result" is required and cannot be null`},
		{"required edit text null", edit(`{"before":1,"text":null}`), `member "text" is required and cannot be null`},

		{"argument not UTF-8", write(`{"path":"a\ud800"}`), `argument "path" is not valid UTF-8 at byte 1 of its text`},
		{"member not UTF-8", splice("{\"result\":\"r\xff\",\"edits\":[]}"), `member "result" is not valid UTF-8 at byte 1 of its text`},
		{"anchor not UTF-8", edit(`{"after":"1#\udc00","text":""}`), `member "after" is not valid UTF-8 at byte 2 of its text`},

		{"missing argument", expand(`{}`), `argument "arguments" is required`},
		{"missing splice member", splice(`{"edits":[]}`), `member "result" is required`},
		{"missing edit text", edit(`{"lines":[1,2]}`), `member "text" is required`},
		{"missing reference result", part(`{"lines":[1]}`), `member "result" is required`},

		// A Raw takes its form's JSON type, any value for an interface.
		{"compose not an array", write(`{"path":"a","compose":{"$compose":[]}}`), `argument "compose" must be an array, not an object`},
		{"splice not an object", write(`{"splice":[]}`), `argument "splice" must be an object, not an array`},
		{"arguments not an object", expand(`{"arguments":"x"}`), `argument "arguments" must be an object, not a string`},
		{"edits not an array", splice(`{"result":"r1","edits":{}}`), `member "edits" must be an array, not an object`},

		// Counts: an array type's length, a slice's items=LO-HI.
		{"two positions wanted", edit(`{"lines":[1],"text":""}`), `member "lines" must be an array of 2 line numbers or anchors, not an array of 1`},
		{"one or two positions wanted", part(`{"result":"r1","lines":[1,2,3]}`), `member "lines" must be an array of 1 or 2 line numbers or anchors, not an array of 3`},
		{"no positions", part(`{"result":"r1","lines":[]}`), `member "lines" must be an array of 1 or 2 line numbers or anchors, not an array of 0`},
		{"two integers wanted", part(`{"result":"r1","bytes":"0-1"}`), `member "bytes" must be an array of 2 integers, not a string`},
		{"not an anchor", edit(`{"lines":[1,"2#x"],"text":""}`), `member "lines/1" is "2#x", not an anchor: ` + anchorForm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.bind(t)
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidArgument, err.Code)
			assert.Equal(t, tt.want, err.Msg)
		})
	}
}

// TestBindForms checks what the forms bind to: positions as numbers or
// anchors, null optional members as omitted, an edit's text of any type
// (judged later), and a Raw where the value is.
func TestBindForms(t *testing.T) {
	t.Parallel()
	e, err := bindJSON[EditForm](t, editPlan, `{"lines":[3,"4#ab"],"after":null,"text":{"$compose":["x"]}}`)
	require.Nil(t, err)
	require.NotNil(t, e.Lines)
	assert.Equal(t, [2]Position{{n: 3}, {n: 4, anchored: true, chars: [2]byte{'a', 'b'}}}, *e.Lines)
	assert.Nil(t, e.Before)
	assert.Nil(t, e.After)
	assert.Equal(t, `{"$compose":["x"]}`, string(e.Text.Bytes()))

	e, err = bindJSON[EditForm](t, editPlan, `{"before":1e400,"text":5}`)
	require.Nil(t, err)
	assert.Equal(t, Position{n: 1<<63 - 1}, *e.Before, "beyond int64 saturates, for the range check")
	assert.Equal(t, "5", string(e.Text.Bytes()))

	p, err := bindJSON[PartForm](t, partPlan, `{"result":"r2","sha256":"ABCDEF012345","lines":["7#z2"],"bytes":null}`)
	require.Nil(t, err)
	assert.Equal(t, "r2", p.Result)
	assert.Equal(t, DigestPrefix("ABCDEF012345"), *p.SHA256)
	assert.Equal(t, []Position{{n: 7, anchored: true, chars: [2]byte{'z', '2'}}}, *p.Lines)
	assert.Nil(t, p.Bytes)

	s, err := bindJSON[SpliceForm](t, splicePlan, `{"edits":[{"before":1,"text":""}],"result":"r1"}`)
	require.Nil(t, err)
	assert.Equal(t, "r1", s.Result)
	assert.Equal(t, `[{"before":1,"text":""}]`, string(s.Edits.Bytes()))
}

// TestPlanOfPanics checks that a form the binder cannot read fails when
// its plan is made, at start.
func TestPlanOfPanics(t *testing.T) {
	t.Parallel()
	type itemsOnArray struct {
		X [2]int64 `arg:"x,items=1-2"`
	}
	type unknownOption struct {
		X string `arg:"x,strict"`
	}
	type badItems struct {
		X []int64 `arg:"x,items=2-1"`
	}
	type listOfLists struct {
		X [][]int64 `arg:"x"`
	}
	assert.PanicsWithValue(t, "briefing: member x of briefing.itemsOnArray: items= on a type that is not a slice",
		func() { planOf(reflect.TypeFor[itemsOnArray](), "member") })
	assert.PanicsWithValue(t, "briefing: argument x of briefing.unknownOption: unknown option strict",
		func() { planOf(reflect.TypeFor[unknownOption](), "member") })
	assert.PanicsWithValue(t, "briefing: argument x of briefing.badItems: bad items 2-1",
		func() { planOf(reflect.TypeFor[badItems](), "member") })
	assert.PanicsWithValue(t, "briefing: member x of briefing.listOfLists has a type the binder does not take: [][]int64",
		func() { planOf(reflect.TypeFor[listOfLists](), "member") })
}

// TestItemsAreTheLimits holds the items=LO-HI of the tags, which the
// binder checks and the input schemas state, to the limits the SPEC gives
// (section 5): 1 to MaxPaths paths, 1 to selectors.MaxPatterns patterns.
func TestItemsAreTheLimits(t *testing.T) {
	t.Parallel()
	items := map[string][2]int{}
	for _, rt := range []reflect.Type{reflect.TypeFor[FindRequest](), reflect.TypeFor[InspectRequest]()} {
		for _, a := range Arguments(rt) {
			if a.MaxItems > 0 {
				items[rt.Name()+"."+a.Name] = [2]int{a.MinItems, a.MaxItems}
			}
		}
	}
	assert.Equal(t, map[string][2]int{
		"FindRequest.paths":    {1, MaxPaths},
		"FindRequest.patterns": {1, selectors.MaxPatterns},
		"InspectRequest.paths": {1, MaxPaths},
	}, items)
}
