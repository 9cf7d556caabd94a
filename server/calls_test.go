package server

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestInspectAnswer(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PreviewBytes = 8
	body := "package a\n\nfunc A() {}\n"
	s := start(t, cfg, briefing.Legacy, map[string]string{"a.go": body, "d.json": `{"k": 1}`})
	s.Initialize()
	res := s.Call(1, "inspect", `{"paths":["a.go","d.json","missing"]}`)
	assert.Nil(t, res["isError"])
	sum := digest(body)
	assert.Equal(t, "r1 file a.go: 23 bytes, 3 lines, complete, sha256="+sum[:12]+"\n"+
		"package \n[preview: first 8 of 23 bytes]\n"+
		"r2 file d.json: 8 bytes, 1 line, no final newline, complete, sha256="+digest(`{"k": 1}`)[:12]+", json=object\n"+
		"{\"k\": 1}\n"+
		"missing: error not_found: file \"missing\" not found\n", mcptest.Text(res))
	entries := mcptest.Structured(res)["results"].([]any)
	assert.Equal(t, map[string]any{
		"id": "r1", "sha256": sum, "bytes": float64(23), "lines": float64(3), "complete": true,
		"source": map[string]any{"kind": "file", "path": "a.go"}, "json": nil,
		"preview": "package ", "preview_complete": false, "reused": false, "retained": true,
	}, entries[0])
	assert.Equal(t, "object", entries[1].(map[string]any)["json"])
	assert.Equal(t, map[string]any{"path": "missing", "error": map[string]any{"code": "not_found", "message": `file "missing" not found`}}, entries[2])
	_, hasBudget := mcptest.Structured(res)["budget"]
	assert.False(t, hasBudget, "inspect is not a lookup")

	// inspect's own argument errors.
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(s.Call(2, "inspect", `{"paths":[]}`)))
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(s.Call(3, "inspect", `{"paths":"a.go"}`)))
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(s.Call(4, "inspect", `{}`)))
	// An empty or non-UTF-8 path is that entry's error alone.
	res = s.Call(5, "inspect", "{\"paths\":[\"\",\"a\xff.go\",\"\\udc00\",\"a.go\"]}")
	entries = mcptest.Structured(res)["results"].([]any)
	for i := 0; i < 3; i++ {
		assert.Equal(t, "invalid_argument", entries[i].(map[string]any)["error"].(map[string]any)["code"], i)
	}
	assert.Equal(t, true, entries[3].(map[string]any)["reused"])
}

func TestBoundedInspect(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 1
	s := start(t, cfg, briefing.Bounded, map[string]string{"a": "a\n", "b": "b\n"})
	s.Initialize()
	res := s.Call(1, "inspect", `{"paths":["a","b"]}`)
	entries := mcptest.Structured(res)["results"].([]any)
	first := entries[0].(map[string]any)
	assert.NotContains(t, first, "preview")
	assert.NotContains(t, first, "preview_complete")
	assert.Equal(t, "store_full", entries[1].(map[string]any)["error"].(map[string]any)["code"])
	assert.Equal(t, "r1 file a: 2 bytes, 1 line, complete, sha256="+digest("a\n")[:12]+"\n"+
		"b: error store_full: "+entries[1].(map[string]any)["error"].(map[string]any)["message"].(string)+"\n", mcptest.Text(res))
}

func TestLookupAnswers(t *testing.T) {
	t.Parallel()
	body := "alpha\r\nbeta\n\"gamma\"\tdelta\n"
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": body, "j.json": `{"n": 1.50, "s": "a\"b"}`})
	s.Initialize()
	s.Call(1, "inspect", `{"paths":["a.txt","j.json"]}`)

	res := s.Call(2, "get_lines", `{"result":"r1","first":1,"last":2}`)
	assert.Equal(t, "alpha\r\nbeta\n", mcptest.Text(res), "the text content is the selection itself")
	sc := mcptest.Structured(res)
	assert.Equal(t, "r1", sc["result"])
	assert.Equal(t, digest(body), sc["sha256"])
	assert.Equal(t, map[string]any{"first": float64(1), "last": float64(2)}, sc["selection"])
	assert.Equal(t, "alpha\r\nbeta\n", sc["text"])
	assert.Equal(t, float64(12), sc["bytes"])
	assert.Equal(t, float64(17), sc["escaped_bytes"])

	res = s.Call(3, "get_range", `{"result":"r1","start":12}`)
	assert.Equal(t, "\"gamma\"\tdelta\n", mcptest.Text(res))
	assert.Equal(t, map[string]any{"start": float64(12), "end": float64(26)}, mcptest.Structured(res)["selection"])
	assert.Equal(t, float64(20), mcptest.Structured(res)["escaped_bytes"])

	res = s.Call(4, "get_json", `{"result":"r2","pointer":"/n"}`)
	assert.Equal(t, "1.50", mcptest.Text(res))
	assert.Equal(t, "number", mcptest.Structured(res)["type"])
	assert.Equal(t, map[string]any{"pointer": "/n", "as": "lexeme"}, mcptest.Structured(res)["selection"])
	res = s.Call(5, "get_json", `{"result":"r2","pointer":"#/s","as":"string"}`)
	assert.Equal(t, `a"b`, mcptest.Text(res))
	assert.Equal(t, map[string]any{"pointer": "/s", "as": "string"}, mcptest.Structured(res)["selection"])

	res = s.Call(6, "find", `{"result":"r1","pattern":"ta","max_matches":1}`)
	assert.Equal(t, "2#6r: beta\n… 1 more\n", mcptest.Text(res))
	sc = mcptest.Structured(res)
	assert.Equal(t, []any{map[string]any{"line": float64(2), "anchor": "2#6r", "text": "beta", "cut": false}}, sc["matches"])
	assert.Equal(t, float64(2), sc["total"])
	assert.Equal(t, true, sc["truncated"])

	res = s.Call(7, "find", `{"result":"r1","pattern":"zzz"}`)
	assert.Equal(t, "", mcptest.Text(res), "no match is an empty text")
	assert.Equal(t, float64(0), mcptest.Structured(res)["total"])

	budget := mcptest.Structured(res)["budget"].(map[string]any)
	assert.Equal(t, float64(6), budget["lookups_used"])
	assert.Equal(t, float64(2), budget["lookups_left"])
	// 1.50 and a\"b escape to 6 each; the empty text of no match still costs its quotes.
	assert.Equal(t, float64(17+20+6+6+limits.EscapedSize("2#6r: beta\n… 1 more\n")+2), budget["bytes_used"])
}

func TestErrorShape(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x€y\n"})
	s.Initialize()
	s.Call(1, "inspect", `{"paths":["a.txt"]}`)
	res := s.Call(2, "get_range", `{"result":"r1","start":2}`)
	assert.Equal(t, true, res["isError"])
	assert.Equal(t, "error not_char_boundary: offset 2 is inside a multi-byte character; nearest boundaries are 1 and 4", mcptest.Text(res))
	sc := mcptest.Structured(res)
	assert.Equal(t, map[string]any{
		"code": "not_char_boundary", "message": "offset 2 is inside a multi-byte character; nearest boundaries are 1 and 4",
		"offset": float64(2), "before": float64(1), "after": float64(4),
	}, sc["error"])
	assert.Equal(t, float64(1), sc["budget"].(map[string]any)["lookups_used"], "errors carry the budget")
}

// TestMalformedLookupsCount checks SPEC 8: a lookup whose arguments are
// malformed in any way still counts.
func TestMalformedLookupsCount(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x\n"})
	s.Initialize()
	calls := []struct{ tool, args, code string }{
		{"get_lines", `{"result":"r1"}`, "invalid_argument"},
		{"get_lines", `{"result":"r1","first":1,"first":1}`, "invalid_argument"},
		{"get_range", `{"result":"r1","start":"0"}`, "invalid_argument"},
		{"get_json", `{"result":"r1","pointer":"","as":"raw"}`, "invalid_argument"},
		{"find", `{"result":"r1","pattern":"x","max_matches":101}`, "invalid_argument"},
		{"find", "{\"result\":\"r1\",\"pattern\":\"\xff\"}", "invalid_argument"},
		{"list_results", `{"page_size":17}`, "invalid_argument"},
		{"get_lines", `{"result":"r1","first":1,"sha256":"abc"}`, "invalid_argument"},
	}
	for i, c := range calls {
		res := s.Call(i+1, c.tool, c.args)
		assert.Equal(t, c.code, mcptest.ErrCode(res), "%s %s", c.tool, c.args)
		assert.Equal(t, float64(i+1), mcptest.Structured(res)["budget"].(map[string]any)["lookups_used"])
	}
	res := s.Call(9, "get_lines", `{"result":"r1","first":1}`)
	assert.Equal(t, "lookup_limit", mcptest.ErrCode(res))
	assert.Equal(t, true, mcptest.Structured(res)["budget"].(map[string]any)["refused"])
	res = s.Call(10, "list_results", `{}`)
	assert.Equal(t, "step_refused", mcptest.ErrCode(res))
	assert.Equal(t, float64(10), mcptest.Structured(res)["budget"].(map[string]any)["lookups_used"])
	assert.Equal(t, float64(0), mcptest.Structured(res)["budget"].(map[string]any)["lookups_left"])
}

func TestStepBytes(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxStepBytes = 30
	s := start(t, cfg, briefing.Legacy, map[string]string{"a.txt": strings.Repeat("\t", 10) + "\n"})
	s.Initialize()
	s.Call(1, "inspect", `{"paths":["a.txt"]}`)
	// 11 bytes of text, 2 + 11*2 = 24 escaped.
	res := s.Call(2, "get_lines", `{"result":"r1","first":1}`)
	assert.Equal(t, float64(24), mcptest.Structured(res)["escaped_bytes"])
	res = s.Call(3, "get_lines", `{"result":"r1","first":1}`)
	assert.Equal(t, "step_bytes_exhausted", mcptest.ErrCode(res))
	e := mcptest.Structured(res)["error"].(map[string]any)
	assert.Equal(t, float64(24), e["size"])
	assert.Equal(t, float64(30), e["limit"])
	assert.Equal(t, float64(6), e["bytes_left"])
	s.Call(4, "begin_step", `{}`)
	res = s.Call(5, "get_lines", `{"result":"r1","first":1}`)
	assert.Nil(t, res["isError"])
}

func TestBeginStepAnswer(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, nil)
	s.Initialize()
	res := s.Call(1, "begin_step", `{}`)
	assert.Equal(t, "step 2", mcptest.Text(res))
	assert.Equal(t, map[string]any{"step": float64(2), "limits": map[string]any{
		"max_lookups": float64(8), "max_lookup_bytes": float64(8192), "max_step_bytes": float64(65536),
		"max_expand_bytes": float64(16777216), "max_result_bytes": float64(16777216),
		"max_store_bytes": float64(67108864), "max_results": float64(1024), "preview_bytes": float64(1024),
		"page_size": float64(16),
	}}, mcptest.Structured(res))
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(s.Call(2, "begin_step", `{"x":1}`)))
	res = s.Call(3, "begin_step", `null`)
	assert.Equal(t, "step 3", mcptest.Text(res))
}

func TestListResultsAnswer(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a<b>.txt": "x\n"})
	s.Initialize()
	s.Call(1, "inspect", `{"paths":["a<b>.txt"]}`)
	res := s.Call(2, "list_results", `{}`)
	assert.Equal(t, `{"page":0,"pages":1,"total":1,"results":[{"id":"r1","sha256":"`+digest("x\n")[:12]+
		`","bytes":2,"lines":1,"complete":true,"source":{"kind":"file","path":"a<b>.txt"},"json":null,"retained":true}],"next":null}`, mcptest.Text(res))
	assert.Equal(t, "invalid_range", mcptest.ErrCode(s.Call(3, "list_results", `{"page":1}`)))
}
