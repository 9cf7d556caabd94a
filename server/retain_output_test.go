package server

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
)

func TestRetainOutputAnswer(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, nil)
	s.Initialize()
	res := s.Call(1, "retain_output", `{"label":"go test","text":"ok\n"}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, "r1 output \"go test\": 3 bytes, 1 line, incomplete, sha256="+digest("ok\n")[:12]+"\nok\n", mcptest.Text(res))
	assert.Equal(t, map[string]any{
		"id": "r1", "sha256": digest("ok\n"), "bytes": float64(3), "lines": float64(1), "complete": false,
		"source": map[string]any{"kind": "output", "label": "go test"}, "json": nil,
		"preview": "ok\n", "preview_complete": true, "reused": false, "retained": true,
	}, mcptest.Structured(res), "complete defaults to false; no budget: it is not a lookup")

	res = s.Call(2, "retain_output", `{"label":"make","text":"done","exit_code":0,"timed_out":false,"complete":true,"dropped_bytes":0}`)
	assert.Equal(t, map[string]any{"kind": "output", "label": "make", "exit_code": float64(0), "timed_out": false}, mcptest.Structured(res)["source"],
		"exit_code and timed_out when given, dropped_bytes 0 left out")
	assert.Equal(t, true, mcptest.Structured(res)["complete"])
	assert.Equal(t, "r2 output \"make\" exit=0: 4 bytes, 1 line, no final newline, complete, sha256="+digest("done")[:12]+"\ndone\n", mcptest.Text(res))

	res = s.Call(3, "retain_output", `{"label":"t","text":"x","exit_code":null,"timed_out":null,"complete":null,"dropped_bytes":null}`)
	assert.Equal(t, map[string]any{"kind": "output", "label": "t"}, mcptest.Structured(res)["source"], "null counts as omitted")
	assert.Equal(t, false, mcptest.Structured(res)["complete"])

	res = s.Call(4, "retain_output", `{"label":"t","text":"x","exit_code":1,"timed_out":true,"complete":true,"dropped_bytes":7}`)
	assert.Equal(t, map[string]any{"kind": "output", "label": "t", "exit_code": float64(1), "timed_out": true, "dropped_bytes": float64(7)},
		mcptest.Structured(res)["source"])
	assert.Equal(t, false, mcptest.Structured(res)["complete"], "dropped bytes: never complete")
	assert.Contains(t, mcptest.Text(res), `r4 output "t" exit=1 timed_out dropped=7: `)

	// The same output again is reused.
	res = s.Call(5, "retain_output", `{"label":"go test","text":"ok\n"}`)
	assert.Equal(t, "r1", mcptest.Structured(res)["id"])
	assert.Equal(t, true, mcptest.Structured(res)["reused"])
	assert.Contains(t, mcptest.Text(res), ", reused\n")
}

func TestRetainOutputTail(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResultBytes = 8
	s := start(t, cfg, briefing.Legacy, nil)
	s.Initialize()
	// "abc€defghi" is 12 bytes; the last 8 start inside "€", so the tail
	// starts after it: 6 bytes kept, 6 dropped.
	res := s.Call(1, "retain_output", `{"label":"run","text":"abc€defghi","complete":true,"dropped_bytes":10}`)
	assert.Nil(t, res["isError"])
	sc := mcptest.Structured(res)
	assert.Equal(t, digest("defghi"), sc["sha256"])
	assert.Equal(t, float64(6), sc["bytes"])
	assert.Equal(t, false, sc["complete"])
	assert.Equal(t, map[string]any{"kind": "output", "label": "run", "dropped_bytes": float64(16)}, sc["source"])
	assert.Equal(t, "defghi", sc["preview"])

	res = s.Call(2, "retain_output", `{"label":"run","text":"0123456789"}`)
	assert.Equal(t, digest("23456789"), mcptest.Structured(res)["sha256"])
	assert.Equal(t, float64(2), mcptest.Structured(res)["source"].(map[string]any)["dropped_bytes"])
}

func TestRetainOutputErrors(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, nil)
	s.Initialize()
	tests := []struct {
		args   string
		code   string
		offset any
	}{
		{"{\"label\":\"x\",\"text\":\"ab\xffc\"}", "not_utf8", float64(2)},
		{"{\"label\":\"x\",\"text\":\"\xc3\"}", "not_utf8", float64(0)},
		{`{"label":"x","text":"é\ud800x"}`, "not_utf8", float64(2)},
		{`{"label":"x","text":"a\nb\udfff"}`, "not_utf8", float64(3)},
		{`{"label":"x","text":"\ud83d\ude00\ud83d"}`, "not_utf8", float64(4)},
		{`{"label":"x","text":"\ud83d\u0041"}`, "not_utf8", float64(0)},
		{`{"label":"\ud800","text":"x"}`, "invalid_argument", nil},
		{"{\"label\":\"\xff\",\"text\":\"x\"}", "invalid_argument", nil},
		{`{"label":"x","text":"y","dropped_bytes":-1}`, "invalid_argument", nil},
		{`{"label":"x","text":"y","dropped_bytes":1.5}`, "invalid_argument", nil},
		{`{"label":"x","text":"y","exit_code":"1"}`, "invalid_argument", nil},
		{`{"label":"x","text":"y","timed_out":0}`, "invalid_argument", nil},
		{`{"label":"x","text":"y","complete":"true"}`, "invalid_argument", nil},
		{`{"text":"y"}`, "invalid_argument", nil},
		{`{"label":"x"}`, "invalid_argument", nil},
		{`{"label":"x","text":null}`, "invalid_argument", nil},
		{`{"label":"x","text":"y","extra":1}`, "invalid_argument", nil},
		{`{"label":"x","text":"y","text":"z"}`, "invalid_argument", nil},
	}
	for i, tt := range tests {
		res := s.Call(i+1, "retain_output", tt.args)
		assert.Equal(t, tt.code, mcptest.ErrCode(res), tt.args)
		e := errorOf(res)
		assert.Equal(t, tt.offset, e["offset"], tt.args)
		_, hasBudget := mcptest.Structured(res)["budget"]
		assert.False(t, hasBudget, "retain_output is not a lookup: %s", tt.args)
	}
	res := s.Call(100, "list_results", `{}`)
	assert.Equal(t, float64(0), mcptest.Structured(res)["total"])
	// A surrogate pair is one valid character.
	res = s.Call(101, "retain_output", `{"label":"x","text":"\ud83d\ude00"}`)
	assert.Nil(t, res["isError"])
	assert.Equal(t, digest("😀"), mcptest.Structured(res)["sha256"])
}

func TestRetainOutputStoreFull(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 1
	legacy := start(t, cfg, briefing.Legacy, nil)
	legacy.Initialize()
	legacy.Call(1, "retain_output", `{"label":"a","text":"1"}`)
	res := legacy.Call(2, "retain_output", `{"label":"b","text":"b\n"}`)
	assert.Nil(t, res["isError"])
	sc := mcptest.Structured(res)
	assert.Nil(t, sc["id"])
	assert.Equal(t, false, sc["retained"])
	assert.Equal(t, "store_full", sc["reason"])
	assert.Equal(t, "(not retained: store_full) output \"b\": 2 bytes, 1 line, incomplete, sha256="+digest("b\n")[:12]+"\nb\n", mcptest.Text(res))

	bounded := start(t, cfg, briefing.Bounded, nil)
	bounded.Initialize()
	bounded.Call(1, "retain_output", `{"label":"a","text":"1"}`)
	res = bounded.Call(2, "retain_output", `{"label":"b","text":"b\n"}`)
	assert.Equal(t, "store_full", mcptest.ErrCode(res))
	assert.Equal(t, float64(2), errorOf(res)["size"])
	res = bounded.Call(3, "retain_output", `{"label":"a","text":"1"}`)
	assert.Equal(t, true, mcptest.Structured(res)["reused"])
}
