package server

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/conformance"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
)

// inputSchemaProps is what these tests read of an input schema.
type inputSchemaProps struct {
	Properties map[string]struct {
		Type    string `json:"type"`
		Default any    `json:"default"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func readInputSchema(t *testing.T, raw json.RawMessage) inputSchemaProps {
	t.Helper()
	var s inputSchemaProps
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// TestInputSchemaDefaults: every argument with a default states it, so
// that forms (the MCP Inspector's) come prefilled with what omitting it
// means; an argument whose omission means something no value says (last,
// end: the last line, the size) has none, so an empty box stays empty.
// Each default is valid under its own schema.
func TestInputSchemaDefaults(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PageSize = 12
	want := map[string]map[string]any{
		"find":          {"regex": false, "ignore_case": false, "max_matches": float64(20)},
		"get_lines":     {"numbered": false},
		"get_range":     {"start": float64(0)},
		"get_json":      {"as": "lexeme"},
		"list_results":  {"page": float64(0), "page_size": float64(12)},
		"retain_output": {"complete": false, "dropped_bytes": float64(0)},
	}
	for _, tool := range Tools(ToolConfig{Config: cfg, Write: true}) {
		name := tool.Tool.Name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := map[string]any{}
			for arg, p := range readInputSchema(t, tool.Tool.RawInputSchema).Properties {
				if p.Default != nil {
					got[arg] = p.Default
				}
			}
			if want[name] == nil {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, want[name], got)
			}
			var s jsonschema.Schema
			require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &s))
			_, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
			assert.NoError(t, err)
		})
	}
}

// TestDefaultsMeanOmitted calls each tool that has defaults twice: without
// the optional arguments, then with every default of its schema given. The
// answers are the same (retain_output's second is the first, reused), so a
// prefilled form asks for what an empty one would.
func TestDefaultsMeanOmitted(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	s := start(t, cfg, briefing.Legacy, map[string]string{"a.txt": "alpha\nbeta\nalpha\n", "d.json": `{"k": [1, 2]}`})
	s.Initialize()
	require.Nil(t, s.Call(1, "inspect", `{"paths":["a.txt","d.json"]}`)["isError"])
	base := map[string]string{
		"find":          `{"result":"r1","pattern":"ALPHA"}`,
		"get_range":     `{"result":"r1","end":6}`,
		"get_json":      `{"result":"r2","pointer":"/k"}`,
		"list_results":  `{}`,
		"retain_output": `{"label":"go test","text":"ok\n"}`,
	}
	schemas := map[string]inputSchemaProps{}
	for _, tool := range Tools(ToolConfig{Config: cfg, Write: true}) {
		schemas[tool.Tool.Name] = readInputSchema(t, tool.Tool.RawInputSchema)
	}
	id := 2
	for _, name := range slices.Sorted(maps.Keys(base)) {
		var filled map[string]any
		require.NoError(t, json.Unmarshal([]byte(base[name]), &filled))
		defaults := 0
		for arg, p := range schemas[name].Properties {
			if p.Default != nil {
				filled[arg] = p.Default
				defaults++
			}
		}
		require.Positive(t, defaults, name)
		withDefaults, err := json.Marshal(filled)
		require.NoError(t, err)

		s.Call(id, "begin_step", `{}`)
		omitted := s.Call(id+1, name, base[name])
		given := s.Call(id+2, name, string(withDefaults))
		id += 3
		require.Nil(t, omitted["isError"], name)
		require.Nil(t, given["isError"], name)
		a, b := mcptest.Structured(omitted), mcptest.Structured(given)
		delete(a, "budget")
		delete(b, "budget")
		gotText := mcptest.Text(given)
		if name == "retain_output" {
			assert.Equal(t, false, a["reused"])
			assert.Equal(t, true, b["reused"], "the same output with the same source")
			delete(a, "reused")
			delete(b, "reused")
			gotText = strings.Replace(gotText, ", reused", "", 1)
		}
		assert.Equal(t, a, b, name)
		assert.Equal(t, mcptest.Text(omitted), gotText, name)
	}
}

// TestSnapshotsHaveTools: a snapshot in testdata/toolsnaps is of a tool the
// server lists; one left behind by a renamed or removed tool fails.
func TestSnapshotsHaveTools(t *testing.T) {
	t.Parallel()
	snaps, err := filepath.Glob(filepath.Join("testdata", "toolsnaps", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, snaps)
	listed := map[string]bool{}
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)}) {
		listed[tool.Tool.Name+".json"] = true
	}
	for _, snap := range snaps {
		assert.True(t, listed[filepath.Base(snap)], "%s is the snapshot of no tool: remove it", snap)
	}
}

// outputSchemas resolves every tool's outputSchema: the whole schema, and
// each of its two alternatives alone (success, failure), so that a test can
// tell which one an answer meets.
func outputSchemas(t *testing.T) map[string][3]*jsonschema.Resolved {
	t.Helper()
	out := map[string][3]*jsonschema.Resolved{}
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)}) {
		name := tool.Tool.Name
		raw := tool.Tool.RawOutputSchema
		require.NotNil(t, raw, "%s has no outputSchema", name)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m), name)
		assert.Equal(t, "object", m["type"], "%s: MCP wants an object schema", name)
		anyOf, ok := m["anyOf"].([]any)
		require.True(t, ok && len(anyOf) == 2, "%s: anyOf [success, failure]", name)
		var got [3]*jsonschema.Resolved
		for i, alt := range [][]any{anyOf, anyOf[:1], anyOf[1:]} {
			m["anyOf"] = alt
			b, err := json.Marshal(m)
			require.NoError(t, err)
			var s jsonschema.Schema
			require.NoError(t, json.Unmarshal(b, &s), name)
			got[i], err = s.Resolve(nil)
			require.NoError(t, err, name)
		}
		out[name] = got
	}
	return out
}

// recordedAnswer is one tools/call answer of a conformance script.
type recordedAnswer struct {
	where, tool string
	isError     bool
	structured  map[string]any
}

// recordedAnswers returns every tools/call answer that the conformance
// scripts record: real answers of the real server, successes and errors.
func recordedAnswers(t *testing.T) []recordedAnswer {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "conformance", "testdata", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []recordedAnswer
	for _, f := range files {
		s, err := conformance.ParseScript(f)
		require.NoError(t, err, f)
		if s.TextAnswers() {
			continue // no structured content to validate (text_answers.txtar)
		}
		// Answers name their request by id; an id may come back more than
		// once in a script, so each answer takes the first request left.
		var calls []conformance.ClientMessage
		for _, c := range s.Client {
			if c.Method == "tools/call" && c.ID != nil {
				calls = append(calls, c)
			}
		}
		for _, resp := range s.Server {
			var r struct {
				ID     json.RawMessage `json:"id"`
				Result *struct {
					IsError    bool           `json:"isError"`
					Structured map[string]any `json:"structuredContent"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(resp, &r), f)
			var id bytes.Buffer
			if len(r.ID) > 0 {
				require.NoError(t, json.Compact(&id, r.ID))
			}
			i := slices.IndexFunc(calls, func(c conformance.ClientMessage) bool { return bytes.Equal(c.ID, id.Bytes()) })
			if i < 0 {
				continue // not a tools/call: initialize, tools/list, a fault
			}
			c := calls[i]
			calls = slices.Delete(calls, i, i+1)
			if r.Result == nil {
				continue // a JSON-RPC error (an unknown tool): no structured content
			}
			out = append(out, recordedAnswer{
				where: filepath.Base(f) + " id " + string(c.ID), tool: c.Tool,
				isError: r.Result.IsError, structured: r.Result.Structured,
			})
		}
	}
	return out
}

// TestOutputSchemasAcceptRecordedAnswers validates every answer the
// conformance scripts record against its tool's outputSchema: a success
// against the success alternative, an error against the failure one. Every
// tool must have both kinds among them.
func TestOutputSchemasAcceptRecordedAnswers(t *testing.T) {
	t.Parallel()
	schemas := outputSchemas(t)
	seen := map[string][2]int{}
	for _, a := range recordedAnswers(t) {
		s, ok := schemas[a.tool]
		if !ok {
			continue // a call of a tool that does not exist: answered as an error by mcp-go
		}
		require.NotNil(t, a.structured, "%s: %s answered without structured content", a.where, a.tool)
		alt, kind := 1, 0
		if a.isError {
			alt, kind = 2, 1
		}
		assert.NoError(t, s[0].Validate(a.structured), "%s: %s", a.where, a.tool)
		assert.NoError(t, s[alt].Validate(a.structured), "%s: %s (isError %v)", a.where, a.tool, a.isError)
		n := seen[a.tool]
		n[kind]++
		seen[a.tool] = n
	}
	for name := range schemas {
		assert.Positive(t, seen[name][0], "no recorded success of %s: add one to a conformance script", name)
		assert.Positive(t, seen[name][1], "no recorded error of %s: add one to a conformance script", name)
	}
}

// TestOutputSchemasRefuse: the schemas are not vacuous. A recorded answer
// with one member more, or with an unknown error code, fails.
func TestOutputSchemasRefuse(t *testing.T) {
	t.Parallel()
	schemas := outputSchemas(t)
	done := map[string]bool{}
	for _, a := range recordedAnswers(t) {
		s, ok := schemas[a.tool]
		if !ok || a.isError || done[a.tool] {
			continue
		}
		done[a.tool] = true
		extra := maps.Clone(a.structured)
		extra["unexpected"] = 1
		assert.Error(t, s[0].Validate(extra), "%s: an answer with a member more", a.tool)
		assert.Error(t, s[0].Validate(map[string]any{}), "%s: an empty answer", a.tool)
		assert.Error(t, s[0].Validate(map[string]any{"error": map[string]any{"code": "no_such_code", "message": "m"}}), "%s: an unknown code", a.tool)
		assert.NoError(t, s[0].Validate(map[string]any{"error": map[string]any{"code": "invalid_argument", "message": "m"}}), a.tool)
	}
	assert.Len(t, done, len(schemas))
}

// TestOutputSchemasStandAlone: each outputSchema carries the shared pieces
// it refers to, and only those, so a client resolves it on its own.
func TestOutputSchemasStandAlone(t *testing.T) {
	t.Parallel()
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)}) {
		raw := string(tool.Tool.RawOutputSchema)
		var m struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		require.NoError(t, json.Unmarshal([]byte(raw), &m))
		for _, ref := range defRef.FindAllStringSubmatch(raw, -1) {
			assert.Contains(t, m.Defs, ref[1], tool.Tool.Name)
		}
		for name := range m.Defs {
			assert.Contains(t, raw, `"#/$defs/`+name+`"`, "%s embeds %s without using it", tool.Tool.Name, name)
		}
	}
}
