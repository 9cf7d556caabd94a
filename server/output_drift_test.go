package server

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// schemaObject is what the drift check reads of an object's schema.
type schemaObject struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
	Ref        string                     `json:"$ref"`
	AnyOf      []json.RawMessage          `json:"anyOf"`
}

// successObjects returns the object schemas that a tool's output schema
// allows a success to be: its anyOf's branches but the failure, each
// resolved through $defs and its own anyOf.
func successObjects(t *testing.T, schema json.RawMessage) []schemaObject {
	var root struct {
		AnyOf []json.RawMessage          `json:"anyOf"`
		Defs  map[string]json.RawMessage `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(schema, &root))
	var out []schemaObject
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var o schemaObject
		require.NoError(t, json.Unmarshal(raw, &o))
		switch {
		case o.Ref == "#/$defs/failure":
		case o.Ref != "":
			walk(root.Defs[strings.TrimPrefix(o.Ref, "#/$defs/")])
		case o.Properties == nil && len(o.AnyOf) > 0:
			for _, b := range o.AnyOf {
				walk(b)
			}
		default:
			out = append(out, o)
		}
	}
	for _, b := range root.AnyOf {
		walk(b)
	}
	return out
}

// TestOutputSchemasMatchAnswerTypes: every tool's output schema (with
// --answers full) has, for each answer type the tool returns, a success
// branch whose properties are members of the type's json encoding and
// include, as required, every member it always writes (a tool may leave
// out, or require, an optional member that it never, or always, writes:
// get_json's "type"), so that no schema describes another type than the
// tool answers with, the one description of each answer (which the
// encoders are held to: TestEveryToolAnswersAsMarshal). The schemas are
// built from those types (ofType, ofForm); this holds each tool to its
// own.
func TestOutputSchemasMatchAnswerTypes(t *testing.T) {
	t.Parallel()
	answers := map[string][]reflect.Type{
		"inspect":       {reflect.TypeFor[inspectAnswer]()},
		"get_range":     {reflect.TypeFor[briefing.Selection]()},
		"get_lines":     {reflect.TypeFor[briefing.Selection]()},
		"get_json":      {reflect.TypeFor[briefing.Selection]()},
		"find":          {reflect.TypeFor[briefing.Found](), reflect.TypeFor[briefing.FoundFiles]()},
		"list_results":  {reflect.TypeFor[briefing.Page]()},
		"expand_edit":   {reflect.TypeFor[expandAnswer]()},
		"retain_output": {reflect.TypeFor[results.Descriptor]()},
		"begin_step":    {reflect.TypeFor[stepAnswer]()},
		"write_file":    {reflect.TypeFor[briefing.Written]()},
		"run":           {reflect.TypeFor[runAnswer]()},
	}
	cfg := ToolConfig{Config: limits.Defaults(), Answers: AnswersFull, Write: true, Commands: commands(t, "test=true")}
	tools := Tools(cfg)
	require.Len(t, tools, len(answers))
	for _, tool := range tools {
		t.Run(tool.Tool.Name, func(t *testing.T) {
			types, ok := answers[tool.Tool.Name]
			require.True(t, ok, "a tool without its answer types here")
			objects := successObjects(t, tool.Tool.RawOutputSchema)
			require.Len(t, objects, len(types))
			for _, rt := range types {
				names, required := jsonMembers(rt)
				slices.Sort(names)
				slices.Sort(required)
				found := false
				for _, o := range objects {
					props := slices.Sorted(maps.Keys(o.Properties))
					if !subset(props, names) || !subset(required, props) {
						continue
					}
					found = true
					assert.True(t, subset(required, o.Required), "%s: the schema does not require %v", rt, required)
					assert.True(t, subset(o.Required, props), "%s: required names what properties do not", rt)
				}
				assert.True(t, found, "%s: no success schema lists what it always writes, %v, and nothing it never writes (of %v)", rt, required, names)
			}
		})
	}
}

// subset reports whether every name of a is in b.
func subset(a, b []string) bool {
	for _, n := range a {
		if !slices.Contains(b, n) {
			return false
		}
	}
	return true
}

// TestOfType: an output schema built from an answer type lists the type's
// members in field order and requires those it always writes; a member
// without a schema, or a schema for no member, stops the server at start.
func TestOfType(t *testing.T) {
	t.Parallel()
	type answer struct {
		B    int64   `json:"b"`
		A    *string `json:"a,omitempty"`
		Text string  `json:"-"`
		hid  int
	}
	_ = answer{}.hid
	got := ofType[answer](map[string]string{"a": `{"type":"string"}`, "b": `{"type":"integer"}`})
	assert.Equal(t, `{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string"}},"additionalProperties":false,"required":["b"]}`, got)
	assert.PanicsWithValue(t, `output schema of server.answer: no schema for member "a"`, func() {
		ofType[answer](map[string]string{"b": `{}`, "c": `{}`})
	})
	assert.PanicsWithValue(t, `output schema of server.answer: schemas for 3 members, the type writes [b a]`, func() {
		ofType[answer](map[string]string{"a": `{}`, "b": `{}`, "text": `{}`})
	})
}

// TestOfForm: the form of an object schema built from a type: its
// description after "type", "required" before "additionalProperties",
// members left out (each a member of the type) and members after the
// type's, required; an embedded struct's members in its place.
func TestOfForm(t *testing.T) {
	t.Parallel()
	type inner struct {
		C bool `json:"c"`
	}
	type answer struct {
		B int64 `json:"b"`
		inner
		A *string `json:"a,omitempty"`
		D string  `json:"d,omitempty"`
	}
	ints := map[string]string{"a": `{"type":"string"}`, "b": `{"type":"integer"}`, "c": `{"type":"boolean"}`, "d": `{}`}
	for _, c := range []struct {
		name    string
		f       objectForm
		schemas map[string]string
		want    string
	}{
		{"plain", objectForm{}, ints,
			`{"type":"object","properties":{"b":{"type":"integer"},"c":{"type":"boolean"},"a":{"type":"string"},"d":{}},"additionalProperties":false,"required":["b","c"]}`},
		{"described, required first", objectForm{description: "An <answer>.", requiredFirst: true}, ints,
			`{"type":"object","description":"An \u003canswer\u003e.","properties":{"b":{"type":"integer"},"c":{"type":"boolean"},"a":{"type":"string"},"d":{}},"required":["b","c"],"additionalProperties":false}`},
		{"without", objectForm{without: []string{"d", "c"}}, map[string]string{"a": `{}`, "b": `{}`},
			`{"type":"object","properties":{"b":{},"a":{}},"additionalProperties":false,"required":["b"]}`},
		{"without, then", objectForm{without: []string{"d"}, then: []prop{{"d", `{"const":"x"}`}}}, map[string]string{"a": `{}`, "b": `{}`, "c": `{}`},
			`{"type":"object","properties":{"b":{},"c":{},"a":{},"d":{"const":"x"}},"additionalProperties":false,"required":["b","c","d"]}`},
		{"nothing required", objectForm{without: []string{"b", "c"}, requiredFirst: true}, map[string]string{"a": `{}`, "d": `{}`},
			`{"type":"object","properties":{"a":{},"d":{}},"additionalProperties":false}`},
	} {
		assert.Equal(t, c.want, ofForm[answer](c.f, c.schemas), c.name)
		assert.True(t, json.Valid([]byte(c.want)), c.name)
	}
	assert.PanicsWithValue(t, `output schema of server.answer: no member "e" to leave out`, func() {
		ofForm[answer](objectForm{without: []string{"e"}}, ints)
	})
	assert.PanicsWithValue(t, `output schema of server.answer: schemas for 4 members, the type writes [b c a]`, func() {
		ofForm[answer](objectForm{without: []string{"d"}}, ints)
	})
	assert.Equal(t, map[string]string{"a": "1", "b": "3"}, merged(map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "3"}))
}

// TestAnyOfType: the schema of a type that is one of its embedded struct
// pointers is an anyOf of their alternatives in field order; a field that
// is not an embedded pointer, or a missing or extra alternative, stops the
// server at start.
func TestAnyOfType(t *testing.T) {
	t.Parallel()
	type one struct {
		A int `json:"a"`
	}
	type two struct {
		B int `json:"b"`
	}
	type either struct {
		*two
		*one
	}
	type mixed struct {
		*one
		C int
	}
	assert.Equal(t, `{"anyOf":[{"const":2},{"const":1}]}`, anyOfType[either](map[string]string{"one": `{"const":1}`, "two": `{"const":2}`}))
	assert.PanicsWithValue(t, `output schema of server.either: 1 alternatives for 2 fields`, func() {
		anyOfType[either](map[string]string{"one": `{}`})
	})
	assert.PanicsWithValue(t, `output schema of server.either: field two is not an embedded pointer with an alternative`, func() {
		anyOfType[either](map[string]string{"one": `{}`, "three": `{}`})
	})
	assert.PanicsWithValue(t, `output schema of server.mixed: field C is not an embedded pointer with an alternative`, func() {
		anyOfType[mixed](map[string]string{"one": `{}`, "C": `{}`})
	})
}

// TestSourceDefMatchesType: the shared source piece, written by hand in
// its own order (outputDefs), has exactly the members that results.Source
// writes and requires exactly those it always writes.
func TestSourceDefMatchesType(t *testing.T) {
	t.Parallel()
	var def schemaObject
	require.NoError(t, json.Unmarshal([]byte(outputDefs["source"]), &def))
	names, required := jsonMembers(reflect.TypeFor[results.Source]())
	assert.ElementsMatch(t, names, slices.Collect(maps.Keys(def.Properties)))
	assert.Equal(t, required, def.Required)
	assert.Equal(t, []string{"kind"}, required)
}

// TestErrorDefMatchesEncoder: the shared error piece, written by hand
// (errcode.Error has no json tags to derive it from), has exactly the
// members that an error with every detail writes, and requires those that
// an error with none writes.
func TestErrorDefMatchesEncoder(t *testing.T) {
	t.Parallel()
	var def schemaObject
	require.NoError(t, json.Unmarshal([]byte(outputDefs["error"]), &def))
	n, s := int64(1), "x"
	every := errcode.New(errcode.Conflict, "m").With(errcode.Details{
		After: &n, At: &s, Before: &n, BytesLeft: &n, Cause: errcode.New(errcode.NotFound, "c"), Fits: &errcode.Fit{To: &n},
		Limit: &n, Lines: &n, Offset: &n, File: &errcode.File{Path: s, SHA256: &s, Current: &s, Diff: &s}, Size: &n,
	})
	members := func(e *errcode.Error) []string {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(errorJSON(e), &m))
		return slices.Sorted(maps.Keys(m))
	}
	assert.ElementsMatch(t, members(every), slices.Collect(maps.Keys(def.Properties)))
	assert.Len(t, def.Properties, 16)
	assert.Equal(t, members(errcode.New(errcode.NotFound, "m")), slices.Sorted(slices.Values(def.Required)))
}
