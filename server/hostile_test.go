package server

import (
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
)

// Hostile input: every bad message gets a clear answer (or, for a
// notification, none), and the request after it is served normally, with
// the briefing's state intact.

// hostile is a stdio session that follows every bad message with a
// begin_step, whose "step N" proves that the server still serves and that
// the briefing kept its state.
type hostile struct {
	*mcptest.Pipe
	step int
}

func startHostile(t *testing.T, cfg limits.Config) *hostile {
	t.Helper()
	s := start(t, cfg, briefing.Legacy, map[string]string{"a.txt": "x\ny\n", "j.json": `{"k": [1, 2]}`})
	s.Initialize()
	h := &hostile{Pipe: s, step: 1}
	res := s.Call(1, "inspect", `{"paths":["a.txt","j.json"]}`)
	require.Nil(t, res["isError"])
	return h
}

const nextID = "next"

// exchange writes line and then a begin_step in one write, without reading
// in between (a notification has no answer), and returns the answers that
// came before the begin_step's, which it checks.
func (h *hostile) exchange(line string) []map[string]any {
	h.T.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(h.In, line+"\n"+
			`{"jsonrpc":"2.0","id":"`+nextID+`","method":"tools/call","params":{"name":"begin_step","arguments":{}}}`+"\n")
		written <- err
	}()
	var got []map[string]any
	for {
		m := h.Recv()
		if m["id"] == nextID {
			h.step++
			res, ok := m["result"].(map[string]any)
			require.True(h.T, ok, "the request after %.80q was not served: %v", line, m)
			require.Equal(h.T, "step "+strconv.Itoa(h.step), mcptest.Text(res), "the request after %.80q", line)
			break
		}
		got = append(got, m)
	}
	require.NoError(h.T, <-written)
	return got
}

// one is exchange for a message with exactly one answer.
func (h *hostile) one(line string) map[string]any {
	h.T.Helper()
	got := h.exchange(line)
	require.Len(h.T, got, 1, "answers to %.80q", line)
	return got[0]
}

// rpcError returns the JSON-RPC error of an answer, checking that it has a
// message.
func rpcErrorOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "no JSON-RPC error in %v", m)
	assert.NotEmpty(t, e["message"])
	return e
}

func TestStdioHostileMalformed(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	for _, tt := range mcptest.Malformed {
		t.Run(tt.Name, func(t *testing.T) {
			h.T = t
			m := h.one(tt.Body)
			assert.Equal(t, tt.WantID, m["id"])
			assert.Equal(t, tt.Stdio, rpcErrorOf(t, m)["code"])
		})
	}
	// The briefing is intact: r1 still reads.
	h.T = t
	assert.Equal(t, "x\n", mcptest.Text(h.Call(2, "get_lines", `{"result":"r1","first":1,"last":1}`)))
}

// TestStdioHostileNoAnswer: messages that get no answer at all, and do
// nothing (the begin_step after each proves the step did not move).
func TestStdioHostileNoAnswer(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	tests := []struct{ name, line string }{
		// A tools/call without an id is a notification: not executed,
		// not answered.
		{"id-less tools/call", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"begin_step","arguments":{}}}`},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/no_such"}`},
		{"client response", `{"jsonrpc":"2.0","id":"s1","result":{}}`},
		{"blank line", "   \t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.T = t
			assert.Empty(t, h.exchange(tt.line))
		})
	}
}

// TestStdioHostileEnvelope checks what the transport reads of a message
// before mcp-go does (JSON-RPC 2.0 sections 4 and 5, SPEC 5 and 8).
func TestStdioHostileEnvelope(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())

	// Ids are strings or numbers: an object, array or boolean id is
	// -32600 with id null, and the request is not run; so is a null id
	// in a request, which MCP forbids (it is not taken for a
	// notification and left unanswered).
	for _, id := range []string{`{}`, `[1]`, `true`, `null`} {
		m := h.one(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`)
		assert.Nil(t, m["id"], "id %s", id)
		assert.Equal(t, float64(-32600), rpcErrorOf(t, m)["code"], "id %s", id)
	}

	// A response from the client is not answered, an error response
	// included.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"client failed"}}`,
		`{"jsonrpc":"2.0","id":5,"result":null}`,
	} {
		assert.Empty(t, h.exchange(line), line)
	}

	// A number beyond float64 reaches the tool, which saturates it and
	// answers the range check; the lookup counts (SPEC 5, 8).
	m := h.one(mcptest.ToolCall("6", "get_lines", `{"result":"r1","first":1e309}`))
	res := m["result"].(map[string]any)
	assert.Equal(t, "invalid_range", mcptest.ErrCode(res))
	assert.Equal(t, float64(1), mcptest.Structured(res)["budget"].(map[string]any)["lookups_used"])
}

func TestStdioHostileBeforeHandshake(t *testing.T) {
	t.Parallel()
	// Over stdio a tools/call as the very first message is served: it is
	// a legacy-era request (SPEC 2 serves both eras, and the briefing is
	// the process's life), so no initialize is needed.
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x\ny\n"})
	res := s.Call(1, "inspect", `{"paths":["a.txt"]}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "y\n", mcptest.Text(s.Call(2, "get_lines", `{"result":"r1","first":2}`)))
	// A later initialize joins the same briefing.
	s.Initialize()
	assert.Equal(t, "x\n", mcptest.Text(s.Call(3, "get_lines", `{"result":"r1","first":1,"last":1}`)))
	// initialize may even come again; it changes nothing.
	s.Initialize()
	assert.Equal(t, float64(1), mcptest.Structured(s.Call(4, "list_results", `{}`))["total"])
}

func TestStdioHostileDuplicateIDs(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	// Two requests with the same id, written together: both run, in
	// order, and each is answered with that id.
	h.step = 3 // the two begin_steps below come before exchange's own
	got := h.exchange(mcptest.ToolCall("7", "begin_step", `{}`) + "\n" + mcptest.ToolCall("7", "begin_step", `{}`) + "\n" +
		mcptest.ToolCall(`"7"`, "list_results", `{}`))
	require.Len(t, got, 3)
	assert.Equal(t, float64(7), got[0]["id"])
	assert.Equal(t, "step 2", mcptest.Text(got[0]["result"].(map[string]any)))
	assert.Equal(t, float64(7), got[1]["id"])
	assert.Equal(t, "step 3", mcptest.Text(got[1]["result"].(map[string]any)))
	assert.Equal(t, "7", got[2]["id"])
}

func TestStdioHostileDeepArguments(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	// Within encoding/json's 10,000 levels the message parses, and the
	// tools answer invalid_argument themselves; a lookup still counts.
	for _, tt := range []struct {
		tool, args string
		lookup     bool
	}{
		{"expand_edit", `{"arguments":{"x":` + mcptest.Nested(9_000, false) + `}}`, false},
		{"expand_edit", `{"arguments":{"x":` + mcptest.Nested(9_000, true) + `}}`, false},
		{"get_lines", `{"result":` + mcptest.Nested(9_000, false) + `,"first":1}`, true},
		{"get_json", `{"result":"r2","pointer":"","as":` + mcptest.Nested(9_000, true) + `}`, true},
		{"inspect", `{"paths":[` + mcptest.Nested(9_000, false) + `]}`, false},
		{"retain_output", `{"label":"l","text":"t","exit_code":` + mcptest.Nested(9_000, false) + `}`, false},
	} {
		m := h.one(mcptest.ToolCall("1", tt.tool, tt.args))
		res := m["result"].(map[string]any)
		assert.Equal(t, "invalid_argument", mcptest.ErrCode(res), "%s: %.200v", tt.tool, res)
		if tt.lookup {
			assert.Equal(t, float64(1), mcptest.Structured(res)["budget"].(map[string]any)["lookups_used"])
		}
	}
}

func TestStdioHostileOversized(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 4096
	h := startHostile(t, cfg)
	for _, n := range []int{4097, 64 << 10, 3 << 20} {
		m := h.one(mcptest.ToolCall("1", "inspect", `{"paths":["`+strings.Repeat("a", n)+`"]}`))
		assert.Nil(t, m["id"])
		e := rpcErrorOf(t, m)
		assert.Equal(t, float64(-32600), e["code"])
		assert.Contains(t, e["message"], "4096-byte limit")
	}
	// Oversized garbage without any JSON in it gets the same answer.
	m := h.one(strings.Repeat("\xff", 1<<20))
	assert.Equal(t, float64(-32600), rpcErrorOf(t, m)["code"])
}

func TestStdioHostileLongPaths(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	tests := []struct {
		name, path, code string
	}{
		// One name of 1 MiB: longer than the system takes (ENAMETOOLONG),
		// refused before any system call.
		{"1 MiB name", strings.Repeat("a", 1<<20), "unreadable"},
		// 1 MiB of short components: longer than the system takes too,
		// refused before a component is looked at (walking them took
		// hundreds of megabytes).
		{"1 MiB of components", strings.Repeat("a/", 1<<19) + "b", "unreadable"},
		// 1 MiB of ../: outside the root, lexically.
		{"1 MiB of ..", strings.Repeat("../", 1<<18) + "etc/passwd", "path_outside_root"},
		// Components that clean away to a real file.
		{"1 MiB of ./", strings.Repeat("./", 1<<19) + "a.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.T = t
			body := mcptest.ToolCall("1", "inspect", `{"paths":[`+string(marshal(tt.path))+`,"a.txt"]}`)
			got := h.exchange(body)
			require.Len(t, got, 1)
			res := got[0]["result"].(map[string]any)
			assert.Nil(t, res["isError"], "a bad path is its entry's error, not the call's")
			entries := mcptest.Structured(res)["results"].([]any)
			require.Len(t, entries, 2)
			first := entries[0].(map[string]any)
			if tt.code == "" {
				assert.Equal(t, "r1", first["id"])
			} else {
				assert.Equal(t, tt.code, first["error"].(map[string]any)["code"])
			}
			assert.Equal(t, "r1", entries[1].(map[string]any)["id"], "the other path is still served")
			// The answer repeats the path once, in its entry: messages and
			// the text name it cut.
			answer, _ := json.Marshal(got[0])
			assert.Less(t, len(answer), len(body)+4096, "request %d bytes, answer %d bytes", len(body), len(answer))
		})
	}
}

// wrongTypeCall is one tools/call whose arguments have a value of the wrong
// JSON type.
type wrongTypeCall struct {
	name   string // tool/property=value
	tool   string
	args   string
	lookup bool // the tool is a lookup: the call still counts
}

// lookupTools are the tools that count as lookups (SPEC section 5).
var lookupTools = map[string]bool{"get_range": true, "get_lines": true, "get_json": true, "find": true, "list_results": true}

// validArgs are arguments each tool accepts in a session that inspected
// a.txt (r1) and j.json (r2); wrong-type cases change one of them.
var validArgs = map[string]map[string]string{
	"inspect":       {"paths": `["a.txt"]`},
	"find":          {"result": `"r1"`, "pattern": `"x"`},
	"get_lines":     {"result": `"r1"`, "first": `1`},
	"get_range":     {"result": `"r1"`},
	"get_json":      {"result": `"r2"`, "pointer": `""`},
	"list_results":  {},
	"expand_edit":   {"arguments": `{"path":"b.txt","content":"y"}`},
	"retain_output": {"label": `"go test"`, "text": `"ok\n"`},
	"begin_step":    {},
}

// jsonValues are a value of each JSON type; "number" is not integral.
var jsonValues = map[string]string{
	"string": `"7"`, "integer": `7`, "number": `1.5`, "boolean": `true`,
	"array": `["x"]`, "object": `{"x":1}`, "null": `null`,
}

func objectJSON(members map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(members)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(k))
		b.WriteByte(':')
		b.WriteString(members[k])
	}
	b.WriteByte('}')
	return b.String()
}

// wrongTypeCases generates, from every tool's input schema, a call per
// property and per JSON type that the property does not accept (null only
// for required properties: an optional null counts as omitted), array
// items of the wrong type, arguments that are not an object, and an
// unknown argument.
func wrongTypeCases(t *testing.T) []wrongTypeCall {
	t.Helper()
	var out []wrongTypeCall
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults()}) {
		name := tool.Tool.Name
		base, ok := validArgs[name]
		require.True(t, ok, "no valid arguments for tool %q in validArgs", name)
		var schema struct {
			Properties map[string]struct {
				Type  string `json:"type"`
				Items *struct {
					Type string `json:"type"`
				} `json:"items"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &schema), name)
		add := func(label, args string) {
			out = append(out, wrongTypeCall{name + "/" + label, name, args, lookupTools[name]})
		}
		for _, prop := range slices.Sorted(maps.Keys(schema.Properties)) {
			p := schema.Properties[prop]
			require.NotEmpty(t, p.Type, "%s.%s has no type", name, prop)
			for _, typ := range slices.Sorted(maps.Keys(jsonValues)) {
				if typ == p.Type || typ == "integer" && p.Type == "number" ||
					typ == "null" && !slices.Contains(schema.Required, prop) {
					continue
				}
				args := maps.Clone(base)
				args[prop] = jsonValues[typ]
				add(prop+"="+typ, objectJSON(args))
			}
			if p.Items != nil {
				for _, typ := range slices.Sorted(maps.Keys(jsonValues)) {
					if typ == p.Items.Type {
						continue
					}
					args := maps.Clone(base)
					args[prop] = "[" + jsonValues[typ] + "]"
					add(prop+"=["+typ+"]", objectJSON(args))
				}
			}
		}
		for _, typ := range []string{"array", "string", "integer", "boolean"} {
			add("whole arguments "+typ, jsonValues[typ])
		}
		args := maps.Clone(base)
		args["no_such_argument"] = `1`
		add("unknown argument", objectJSON(args))
	}
	return out
}

func TestHostileValidArgs(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	for _, tool := range slices.Sorted(maps.Keys(validArgs)) {
		if tool == "begin_step" {
			h.step++ // the call itself begins a step
		}
		res := h.one(mcptest.ToolCall("1", tool, objectJSON(validArgs[tool])))["result"].(map[string]any)
		assert.Nil(t, res["isError"], "%s: %v", tool, res)
	}
}

func TestStdioHostileWrongTypes(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	cases := wrongTypeCases(t)
	require.Greater(t, len(cases), 150)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			h.T = t
			m := h.one(mcptest.ToolCall("1", tt.tool, tt.args))
			res, ok := m["result"].(map[string]any)
			require.True(t, ok, "a tool error, not a protocol fault: %v", m)
			assert.Equal(t, "invalid_argument", mcptest.ErrCode(res), "%s", mcptest.Text(res))
			assert.True(t, strings.HasPrefix(mcptest.Text(res), "error invalid_argument: "), mcptest.Text(res))
			b, hasBudget := mcptest.Structured(res)["budget"].(map[string]any)
			switch {
			case tt.lookup:
				// The step is fresh (the begin_step after the last case).
				require.True(t, hasBudget)
				assert.Equal(t, float64(1), b["lookups_used"], "a malformed lookup still counts")
			case hasBudget:
				assert.Equal(t, float64(0), b["lookups_used"])
			}
		})
	}
}

// TestStdioRequestIDsAsWritten checks that an answer carries its request's
// id as the client wrote it (JSON-RPC 2.0 section 5: the same value), on
// the direct tools/call path and through mcp-go: integers past 2^53 are
// not rounded through float64, 1.0 stays 1.0, escapes stay escapes. As
// json.Marshal would, a string's <, > and & are written as \u escapes.
func TestStdioRequestIDsAsWritten(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, nil)
	tests := []struct{ id, want string }{
		{`12345678901234567891`, `12345678901234567891`},
		{`-9007199254740993`, `-9007199254740993`},
		{`1.0`, `1.0`},
		{`2e3`, `2e3`},
		{`"\u0041b"`, `"\u0041b"`},
		{`"r<1>&"`, `"r\u003c1\u003e\u0026"`},
	}
	for _, tt := range tests {
		for _, line := range []string{
			mcptest.ToolCall(tt.id, "begin_step", `{}`),                      // direct
			`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"ping"}`,           // mcp-go
			`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"no/such/method"}`, // mcp-go's error
		} {
			s.Send(line)
			got, err := s.Out.ReadString('\n')
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+tt.want+`,`), "answer to %s: %s", line, got)
		}
	}
}

func TestStdioOneReading(t *testing.T) {
	t.Parallel()
	h := startHostile(t, limits.Defaults())
	for _, tt := range mcptest.OneReading {
		t.Run(tt.Name, func(t *testing.T) {
			h.T = t
			h.step += tt.Steps
			step := h.step
			got := h.exchange(tt.Body)
			if !tt.Answered {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			m := got[0]
			assert.Equal(t, tt.WantID, m["id"])
			checkOneReading(t, m, tt.Code, tt.Tool, step)
		})
	}
}

// checkOneReading checks an answer of oneReading: its error code, or the
// result of tool (a begin_step of the given step, a list_results), or
// ping's empty result.
func checkOneReading(t *testing.T, m map[string]any, code float64, tool string, step int) {
	t.Helper()
	if code != 0 {
		assert.Equal(t, code, rpcErrorOf(t, m)["code"])
		return
	}
	res, ok := m["result"].(map[string]any)
	require.True(t, ok, "no result: %v", m)
	switch tool {
	case "begin_step":
		assert.Equal(t, "step "+strconv.Itoa(step), mcptest.Text(res))
	case "list_results":
		assert.Equal(t, float64(2), mcptest.Structured(res)["total"])
	default:
		assert.Empty(t, res, "ping's answer")
	}
}
