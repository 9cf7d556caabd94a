package server

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
)

// schemaRequest has an argument of every kind a request type or a form
// holds.
type schemaRequest struct {
	Name  string                       `arg:"name"`
	N     *int64                       `arg:"n"`
	Flag  *bool                        `arg:"flag"`
	Paths []string                     `arg:"paths"`
	Form  *briefing.Raw[schemaForm]    `arg:"form"`
	Parts *briefing.Raw[[]schemaForm]  `arg:"parts"`
	Any   briefing.Raw[map[string]any] `arg:"any"`
}

type schemaForm struct {
	Pair  [2]int64 `arg:"pair"`
	Value any      `arg:"value"`
	Note  *string  `arg:"note"`
}

// TestInputSchema: a request type's schema, keyword by keyword, in full
// and compact.
func TestInputSchema(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[schemaRequest]()
	props := map[string]keywords{
		"name":         {enum: []string{"a", "b"}, description: "The name."},
		"n":            {minimum: bound(0), maximum: bound(9), dflt: 3, description: "A number."},
		"flag":         {dflt: false},
		"paths":        {minItems: 1, maxItems: 4},
		"paths[]":      {pattern: "^x", minLength: 1, maxLength: 8},
		"form":         {description: "A form."},
		"form/pair":    {description: "Two."},
		"parts[]":      {stringOr: true, description: "A string or a form."},
		"parts[]/note": {description: "A note."},
	}
	full := `{"type":"object","properties":{` +
		`"name":{"type":"string","enum":["a","b"],"description":"The name."},` +
		`"n":{"type":"integer","minimum":0,"maximum":9,"default":3,"description":"A number."},` +
		`"flag":{"type":"boolean","default":false},` +
		`"paths":{"type":"array","items":{"type":"string","pattern":"^x","minLength":1,"maxLength":8},"minItems":1,"maxItems":4},` +
		`"form":{"type":"object","description":"A form.","properties":{` +
		`"pair":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2,"description":"Two."},` +
		`"value":{},"note":{"type":"string"}},"required":["pair","value"],"additionalProperties":false},` +
		`"parts":{"type":"array","items":{"description":"A string or a form.","properties":{` +
		`"pair":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2},` +
		`"value":{},"note":{"type":"string","description":"A note."}},"additionalProperties":false}},` +
		`"any":{"type":"object"}` +
		`},"additionalProperties":false,"required":["name","paths","any"]}`
	assert.Equal(t, full, string(inputSchema(typ, props, nil, false)))

	compact := `{"type":"object","properties":{` +
		`"name":{"type":"string","enum":["a","b"]},"n":{"type":"integer"},"flag":{"type":"boolean"},` +
		`"paths":{"type":"array","items":{"type":"string","pattern":"^x"}},` +
		`"form":{"type":"object","properties":{"pair":{"type":"array","items":{"type":"integer"}},"value":{},"note":{"type":"string"}},` +
		`"required":["pair","value"],"additionalProperties":false},` +
		`"parts":{"type":"array","items":{"properties":{"pair":{"type":"array","items":{"type":"integer"}},"value":{},"note":{"type":"string"}},` +
		`"additionalProperties":false}},"any":{"type":"object"}` +
		`},"additionalProperties":false,"required":["name","paths","any"]}`
	assert.Equal(t, compact, string(inputSchema(typ, props, nil, true)))

	ordered := string(inputSchema(typ, nil, []string{"any", "parts", "form", "paths", "flag", "n", "name"}, true))
	assert.Regexp(t, `^\{"type":"object","properties":\{"any":.*,"name":\{"type":"string"\}\},"additionalProperties":false,"required":\["any","paths","name"\]\}$`, ordered)

	assert.PanicsWithValue(t, "input schema of server.schemaRequest: no property form/pairs",
		func() { inputSchema(typ, map[string]keywords{"form/pairs": {}}, nil, false) }, "a stale path")
	assert.PanicsWithValue(t, "input schema: the order leaves out arguments",
		func() { inputSchema(typ, nil, []string{"name"}, false) })
}

// schemaOf is a JSON schema as jsonschema-go reads and writes it, so that
// two schemas compare as schemas, not by their bytes.
func schemaOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(raw, &s))
	out, err := json.Marshal(&s)
	require.NoError(t, err)
	return string(out)
}

// withoutCompactKeywords is a JSON schema without what model mode leaves
// out of input schemas (SPEC section 2): descriptions, defaults, and range
// and length keywords, wherever they are. Names, types, required, enum and
// pattern stay.
func withoutCompactKeywords(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(raw, &s))
	var strip func(x *jsonschema.Schema)
	strip = func(x *jsonschema.Schema) {
		if x == nil {
			return
		}
		x.Description, x.Default = "", nil
		x.Minimum, x.Maximum, x.ExclusiveMinimum, x.ExclusiveMaximum = nil, nil, nil, nil
		x.MinLength, x.MaxLength, x.MinItems, x.MaxItems = nil, nil, nil, nil
		for _, p := range x.Properties {
			strip(p)
		}
		strip(x.Items)
		strip(x.AdditionalProperties)
		for _, list := range [][]*jsonschema.Schema{x.AnyOf, x.OneOf, x.AllOf} {
			for _, y := range list {
				strip(y)
			}
		}
	}
	strip(&s)
	out, err := json.Marshal(&s)
	require.NoError(t, err)
	return string(out)
}

// schemaArgs are arguments each tool's input schema accepts.
var schemaArgs = map[string]string{
	"inspect":       `{"paths":["a.txt"]}`,
	"find":          `{"result":"r1","sha256":"0123456789ab","pattern":"x","regex":true,"max_matches":100}`,
	"get_lines":     `{"path":"a.txt","first":1,"last":2,"numbered":true}`,
	"get_range":     `{"result":"r1","start":0}`,
	"get_json":      `{"result":"r2","pointer":"","as":"string"}`,
	"list_results":  `{"page":0,"page_size":16}`,
	"expand_edit":   `{"arguments":{"path":"b.txt","content":{"$compose":["y",{"result":"r1"}]}}}`,
	"retain_output": `{"label":"go test","text":"ok\n","exit_code":1,"timed_out":false,"complete":true,"dropped_bytes":0}`,
	"begin_step":    `{}`,
	"write_file": `{"splice":{"result":"r1","edits":[{"lines":[1,2],"text":"x\n"},{"before":9,"text":{"$compose":["y"]}}]},` +
		`"compose":["x",{"result":"r1","lines":[2]},{"result":"r2","pointer":"/a","as":"lexeme"}]}`,
	"run": `{"name":"lint"}`,
}

// TestInputSchemasValidate: every input schema, in both step modes, is a
// JSON Schema that jsonschema-go resolves; it accepts arguments the tool
// takes, and refuses an argument the tool does not know. Model mode's is
// client mode's without descriptions, defaults, and range and length
// keywords: the same names, types, required and enums (SPEC section 2).
func TestInputSchemasValidate(t *testing.T) {
	t.Parallel()
	cfg := ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)}
	client := map[string]json.RawMessage{}
	for _, tool := range Tools(cfg) {
		client[tool.Tool.Name] = tool.Tool.RawInputSchema
	}
	model := cfg
	model.Steps = limits.ModelSteps
	for _, mode := range []ToolConfig{cfg, model} {
		for _, tool := range Tools(mode) {
			name := tool.Tool.Name
			t.Run(string(mode.Steps)+" "+name, func(t *testing.T) {
				t.Parallel()
				raw := tool.Tool.RawInputSchema
				var s jsonschema.Schema
				require.NoError(t, json.Unmarshal(raw, &s))
				r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
				require.NoError(t, err)
				args := schemaArgs[name]
				require.NotEmpty(t, args, "add %s's arguments to schemaArgs", name)
				var v map[string]any
				require.NoError(t, json.Unmarshal([]byte(args), &v))
				assert.NoError(t, r.Validate(v))
				v["bogus"] = 1
				assert.Error(t, r.Validate(v), "an unknown argument")
				if mode.Steps == limits.ModelSteps {
					assert.Equal(t, withoutCompactKeywords(t, client[name]), schemaOf(t, raw))
					assert.NotContains(t, string(raw), `"description"`)
				}
			})
		}
	}
}

// TestEveryDigestHasItsPattern: every sha256 property of every tool's
// input schema, at any depth (a lookup's reference, a splice's, a compose
// reference's), has the digest prefix's pattern, which comes from its type
// (briefing.DigestPrefix), in both step modes.
func TestEveryDigestHasItsPattern(t *testing.T) {
	t.Parallel()
	want := briefing.DigestPrefix("").Pattern()
	for _, steps := range []limits.Steps{limits.ClientSteps, limits.ModelSteps} {
		cfg := ToolConfig{Config: limits.Defaults(), Steps: steps, Write: true, Commands: commands(t, "test=true")}
		found := map[string]int{}
		for _, tool := range Tools(cfg) {
			var schema any
			require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &schema))
			var walk func(v any, path string)
			walk = func(v any, path string) {
				switch v := v.(type) {
				case map[string]any:
					if props, ok := v["properties"].(map[string]any); ok {
						if d, ok := props["sha256"].(map[string]any); ok {
							assert.Equal(t, want, d["pattern"], "%s %s: %s/sha256", steps, tool.Tool.Name, path)
							found[tool.Tool.Name]++
						}
					}
					for k, m := range v {
						walk(m, path+"/"+k)
					}
				case []any:
					for i, m := range v {
						walk(m, path+"/"+strconv.Itoa(i))
					}
				}
			}
			walk(schema, "")
		}
		// get_range, get_lines, get_json and find once each; write_file's
		// splice and compose reference.
		assert.Equal(t, map[string]int{"get_range": 1, "get_lines": 1, "get_json": 1, "find": 1, "write_file": 2}, found, steps)
	}
}
