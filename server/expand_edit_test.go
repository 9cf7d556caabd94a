package server

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
)

// rawCall makes a tools/call and returns the response line as it was sent.
func rawCall(s *mcptest.Pipe, id int, tool, args string) string {
	s.T.Helper()
	s.Send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
	line, err := s.Out.ReadBytes('\n')
	require.NoError(s.T, err)
	return string(line)
}

func budgetOf(res map[string]any) map[string]any {
	b, _ := mcptest.Structured(res)["budget"].(map[string]any)
	return b
}

func errorOf(res map[string]any) map[string]any {
	e, _ := mcptest.Structured(res)["error"].(map[string]any)
	return e
}

const editBody = "one\ntwo\nthree\n"

func editSession(t *testing.T, cfg limits.Config, ctx briefing.Policy) *mcptest.Pipe {
	t.Helper()
	s := start(t, cfg, ctx, map[string]string{"a.txt": editBody, "u.txt": "héllo\n"})
	s.Initialize()
	res := s.Call(1, "inspect", `{"paths":["a.txt","u.txt"]}`)
	require.Nil(t, res["isError"])
	return s
}

func TestExpandEditAnswer(t *testing.T) {
	t.Parallel()
	s := editSession(t, limits.Defaults(), briefing.Legacy)
	args := `{"arguments":{"path":"a.txt","content":{"$splice":{"result":"r1","edits":[{"lines":[2,2],"text":"TWO\n"}]}},` +
		`"old":{"$compose":[{"result":"r1","lines":[2,2]}]},"n":1.000000000000000000001,"s":"\ud800","x":[{"$compose":["a\u00e9"]}]}}`
	res := s.Call(2, "expand_edit", args)
	assert.Nil(t, res["isError"])
	content := "one\nTWO\nthree\n"
	assert.Equal(t, "/content: 14 bytes sha256="+digest(content)[:12]+" result=r3\n"+
		"/old: 4 bytes sha256="+digest("two\n")[:12]+" result=r4\n"+
		"/x/0: 3 bytes sha256="+digest("aé")[:12]+" result=r5\n", mcptest.Text(res))
	sc := mcptest.Structured(res)
	assert.Len(t, sc, 3, "arguments, expansions and budget")
	assert.Equal(t, []any{
		map[string]any{"at": "/content", "bytes": float64(14), "sha256": digest(content), "parts": float64(1), "result": "r3"},
		map[string]any{"at": "/old", "bytes": float64(4), "sha256": digest("two\n"), "parts": float64(1), "result": "r4"},
		map[string]any{"at": "/x/0", "bytes": float64(3), "sha256": digest("aé"), "parts": float64(1), "result": "r5"},
	}, sc["expansions"])
	assert.Equal(t, map[string]any{
		"path": "a.txt", "content": content, "old": "two\n", "n": 1.0, "s": "\ufffd", "x": []any{"aé"},
	}, sc["arguments"])
	assert.Equal(t, map[string]any{
		"step": float64(1), "lookups_used": float64(0), "lookups_left": float64(8), "bytes_used": float64(0),
		"bytes_left": float64(65536), "expand_bytes_used": float64(21), "expand_bytes_left": float64(16777216 - 21), "refused": false,
	}, sc["budget"])

	// On the wire, numbers keep every digit and a lone surrogate escape
	// outside any node is returned as it was written.
	line := rawCall(s, 3, "expand_edit", args)
	assert.Contains(t, line, `"n":1.000000000000000000001`)
	assert.Contains(t, line, `"s":"\ud800"`)
	assert.Contains(t, line, `"content":"one\nTWO\nthree\n"`)

	// The same edit again reuses the results; the expansion is a result
	// that later lookups can read.
	res = s.Call(4, "expand_edit", args)
	assert.Contains(t, mcptest.Text(res), "result=r3\n")
	res = s.Call(5, "get_lines", `{"result":"r3","first":2,"last":2}`)
	assert.Equal(t, "TWO\n", mcptest.Text(res))
	res = s.Call(6, "list_results", `{"page_size":1,"page":2}`)
	assert.Equal(t, []any{map[string]any{
		"id": "r3", "sha256": digest(content), "bytes": float64(14), "lines": float64(3), "complete": true,
		"source": map[string]any{"kind": "edit", "at": "/content", "path": "a.txt"}, "json": nil, "retained": true,
	}}, mcptest.Structured(res)["results"])
}

func TestExpandEditNoNodes(t *testing.T) {
	t.Parallel()
	s := editSession(t, limits.Defaults(), briefing.Legacy)
	res := s.Call(2, "expand_edit", `{"arguments":{"path":"a.txt","mode":493}}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "", mcptest.Text(res))
	assert.Equal(t, []any{}, mcptest.Structured(res)["expansions"])
	assert.Equal(t, map[string]any{"path": "a.txt", "mode": float64(493)}, mcptest.Structured(res)["arguments"])
}

func TestExpandEditUnresolved(t *testing.T) {
	t.Parallel()
	s := editSession(t, limits.Defaults(), briefing.Legacy)
	res := s.Call(2, "expand_edit", `{"arguments":{"content":{"$compose":["x",{"result":"u9"}]}}}`)
	assert.Equal(t, true, res["isError"])
	cause := `no result "u9" in this session; it holds r1-r2`
	msg := `edit part at "/content/$compose/1" does not resolve: error unknown_result: ` + cause
	assert.Equal(t, "error unresolved_edit: "+msg, mcptest.Text(res))
	assert.Equal(t, map[string]any{
		"code": "unresolved_edit", "message": msg, "at": "/content/$compose/1",
		"cause": map[string]any{"code": "unknown_result", "message": cause},
	}, errorOf(res))
	assert.Equal(t, true, budgetOf(res)["refused"])
	assert.Equal(t, float64(0), budgetOf(res)["expand_bytes_used"])

	// The step is refused: expand_edit and lookups answer step_refused,
	// with the budget, until begin_step.
	res = s.Call(3, "expand_edit", `{"arguments":{"content":{"$compose":["x"]}}}`)
	assert.Equal(t, "step_refused", mcptest.ErrCode(res))
	assert.Equal(t, true, budgetOf(res)["refused"])
	res = s.Call(4, "get_lines", `{"result":"r1","first":1}`)
	assert.Equal(t, "step_refused", mcptest.ErrCode(res))
	assert.Equal(t, float64(1), budgetOf(res)["lookups_used"])
	res = s.Call(5, "expand_edit", `{"arguments":5}`)
	assert.Equal(t, "step_refused", mcptest.ErrCode(res), "step_refused comes before the arguments")
	assert.Equal(t, "step 2", mcptest.Text(s.Call(6, "begin_step", `{}`)))
	res = s.Call(7, "expand_edit", `{"arguments":{"content":{"$compose":["x"]}}}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "/content: 1 bytes sha256="+digest("x")[:12]+" result=r3\n", mcptest.Text(res))
	assert.Equal(t, float64(2), budgetOf(res)["step"])

	// A cause with details carries them.
	res = s.Call(8, "expand_edit", `{"arguments":{"a":[{"b/c":{"$compose":[{"result":"r2","bytes":[2,3]}]}}]}}`)
	assert.Equal(t, map[string]any{
		"code": "not_char_boundary", "message": "offset 2 is inside a multi-byte character; nearest boundaries are 1 and 3",
		"offset": float64(2), "before": float64(1), "after": float64(3),
	}, errorOf(res)["cause"])
	assert.Equal(t, "/a/0/b~1c/$compose/0", errorOf(res)["at"])
	s.Call(9, "begin_step", `{}`)

	// A splice's failing edit, and a malformed node.
	res = s.Call(10, "expand_edit", `{"arguments":{"c":{"$splice":{"result":"r1","edits":[{"lines":[3,3],"text":""},{"lines":[1,1],"text":""}]}}}}`)
	assert.Equal(t, "/c/$splice/edits/1", errorOf(res)["at"])
	cz := errorOf(res)["cause"].(map[string]any)
	assert.Equal(t, "invalid_range", cz["code"])
	assert.Contains(t, cz["message"], "edit 1 (lines 1-1) comes before edit 0 (lines 3-3)")
	assert.Equal(t, float64(3), cz["lines"])
	s.Call(11, "begin_step", `{}`)
	res = s.Call(12, "expand_edit", `{"arguments":{"$compose":["x"]}}`)
	assert.Equal(t, "", errorOf(res)["at"])
	assert.Equal(t, "invalid_argument", errorOf(res)["cause"].(map[string]any)["code"])
	assert.Equal(t, true, budgetOf(res)["refused"])

	// Nothing was retained by the failures.
	s.Call(13, "begin_step", `{}`)
	assert.Equal(t, float64(3), mcptest.Structured(s.Call(14, "list_results", `{}`))["total"])
}

func TestExpandEditInvalidArguments(t *testing.T) {
	t.Parallel()
	s := editSession(t, limits.Defaults(), briefing.Legacy)
	calls := []string{
		`{}`,
		`null`,
		`{"arguments":null}`,
		`{"arguments":[1]}`,
		`{"arguments":"{}"}`,
		`{"arguments":5}`,
		`{"arguments":{},"x":1}`,
		`{"arguments":{},"arguments":{}}`,
		"{\"arguments\":{\"p\":\"a\xffb\",\"c\":{\"$compose\":[\"x\"]}}}",
		"{\"arguments\":{\"c\":{\"$compose\":[{\"result\":\"r9\"}]},\"p\":[\"\xc0\"]}}",
		"{\"arguments\":{\"k\xfe\":1}}",
	}
	for i, args := range calls {
		res := s.Call(i+2, "expand_edit", args)
		assert.Equal(t, "invalid_argument", mcptest.ErrCode(res), args)
		assert.True(t, strings.HasPrefix(mcptest.Text(res), "error invalid_argument: "), args)
		b := budgetOf(res)
		require.NotNil(t, b, "every answer carries the budget: %s", args)
		assert.Equal(t, false, b["refused"], args)
		assert.Equal(t, float64(0), b["lookups_used"], args)
	}
	assert.Equal(t, float64(2), mcptest.Structured(s.Call(50, "list_results", `{}`))["total"], "nothing retained")
}

func TestExpandEditCap(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxExpandBytes = 20
	s := editSession(t, cfg, briefing.Legacy)
	res := s.Call(2, "expand_edit", `{"arguments":{"c":{"$compose":[{"result":"r1"},"1234567"]}}}`)
	assert.Equal(t, "expansion_too_large", mcptest.ErrCode(res))
	e := errorOf(res)
	assert.Equal(t, float64(21), e["size"])
	assert.Equal(t, float64(20), e["limit"])
	assert.Equal(t, map[string]any{
		"step": float64(1), "lookups_used": float64(0), "lookups_left": float64(8), "bytes_used": float64(0),
		"bytes_left": float64(65536), "expand_bytes_used": float64(0), "expand_bytes_left": float64(20), "refused": false,
	}, budgetOf(res))
	res = s.Call(3, "expand_edit", `{"arguments":{"c":{"$compose":[{"result":"r1"},"123456"]}}}`)
	assert.Nil(t, res["isError"], "not refused")
	assert.Equal(t, float64(0), budgetOf(res)["expand_bytes_left"])
	assert.Equal(t, float64(3), mcptest.Structured(s.Call(4, "list_results", `{}`))["total"])
}

func TestExpandEditStoreFull(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 3
	legacy := editSession(t, cfg, briefing.Legacy)
	res := legacy.Call(2, "expand_edit", `{"arguments":{"a":{"$compose":["x"]},"b":{"$compose":["y"]}}}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "/a: 1 bytes sha256="+digest("x")[:12]+" result=r3\n/b: 1 bytes sha256="+digest("y")[:12]+" result=null\n", mcptest.Text(res))
	ex := mcptest.Structured(res)["expansions"].([]any)
	assert.Equal(t, "r3", ex[0].(map[string]any)["result"])
	v, ok := ex[1].(map[string]any)["result"]
	assert.True(t, ok, "result is present")
	assert.Nil(t, v, "and null")

	bounded := editSession(t, cfg, briefing.Bounded)
	res = bounded.Call(2, "expand_edit", `{"arguments":{"a":{"$compose":["x"]},"b":{"$compose":["y"]}}}`)
	assert.Equal(t, "store_full", mcptest.ErrCode(res))
	assert.Equal(t, float64(2), errorOf(res)["size"])
	assert.Equal(t, float64(0), budgetOf(res)["expand_bytes_used"])
	assert.Equal(t, false, budgetOf(res)["refused"])
	res = bounded.Call(3, "expand_edit", `{"arguments":{"a":{"$compose":["x"]}}}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "/a: 1 bytes sha256="+digest("x")[:12]+" result=r3\n", mcptest.Text(res))
}

// TestExpandEditStructuredIsJSON checks that the expanded arguments are
// embedded as JSON, not as a string or base64.
func TestExpandEditStructuredIsJSON(t *testing.T) {
	t.Parallel()
	s := editSession(t, limits.Defaults(), briefing.Legacy)
	line := rawCall(s, 2, "expand_edit", `{"arguments":{"c":{"$compose":["<&>\u2028"]}}}`)
	var resp struct {
		Result struct {
			StructuredContent struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &resp))
	var got map[string]string
	require.NoError(t, json.Unmarshal(resp.Result.StructuredContent.Arguments, &got))
	assert.Equal(t, map[string]string{"c": "<&>\u2028"}, got)
}
