package server

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/jsontest"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// TestEveryToolAnswersAsMarshal: for every tool, on answers that real
// calls make (successes and errors of each), the hand-tuned encoder's
// message (transport.AppendMessage, and through it each answer type's
// AppendJSON) decodes to the same value as encoding/json's encoding of
// the same answer, which reflects over the answer types' json tags (they
// have no MarshalJSON: TestEncodedShapes), but for the one difference the
// encoder means to make (jsontest.AsMarshal). The handlers are wrapped so
// that each answer is compared as the tool made it, before it is written.
func TestEveryToolAnswersAsMarshal(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.txt":  "alpha <&>\nbeta \u2028 \"q\"\ngamma\n",
		"d.json": `{"k": [1, 2.50, "s<>"], "n": null}`,
		"old.go": "package a\n",
	}
	root, _ := testroot.Open(t, files, workspace.Open)
	opts := Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Root: root, Write: true, Log: io.Discard,
		Run: briefing.RunConfig{Commands: commands(t, "ok=true", "bad=false"), Grace: 200 * time.Millisecond}}
	s := &Server{opts: opts, quota: results.NewQuota(opts.Limits.MaxTotalBytes)}

	var mu sync.Mutex
	answered := map[string]*[2]int{} // by tool: successes, errors
	tools := Tools(opts.tools())
	for i := range tools {
		name, h := tools[i].Tool.Name, tools[i].Handler
		answered[name] = new([2]int)
		tools[i].Handler = func(ctx context.Context, call transport.Call) (*mcp.CallToolResult, error) {
			res, err := h(ctx, call)
			if res == nil {
				return res, err
			}
			msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(7)), res)
			hand, herr := transport.AppendMessage(nil, msg)
			ref, rerr := json.Marshal(msg)
			if assert.NoError(t, herr, name) && assert.NoError(t, rerr, name) {
				var got, want any
				// The one difference it means to make (a lone surrogate that
				// the client sent, written back as its escape) undone.
				require.NoError(t, json.Unmarshal(jsontest.AsMarshal(hand), &got), "%s: %s", name, hand)
				require.NoError(t, json.Unmarshal(ref, &want))
				assert.Equal(t, want, got, "%s: %s", name, hand)
			}
			mu.Lock()
			defer mu.Unlock()
			if res.IsError {
				answered[name][1]++
			} else {
				answered[name][0]++
			}
			return res, err
		}
	}
	s.transport = transport.New(transport.Config{
		Name: Name, Version: "test", Tools: tools, Log: io.Discard,
		NewSession:      func() transport.Session { return Session{s.newBriefing()} },
		MaxMessageBytes: opts.Limits.MaxMessageBytes,
	})
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()

	calls := []struct{ tool, args string }{
		{"inspect", `{"paths":["a.txt","d.json","missing","\udc00","."]}`}, // r1 r2 (r3 the listing)
		{"inspect", `{"paths":[]}`},
		{"get_lines", `{"result":"r1","first":1,"last":2}`},
		{"get_lines", `{"result":"r1","first":2,"numbered":true}`},
		{"get_lines", `{"result":"r1","first":90}`},
		{"get_range", `{"result":"r1","start":0,"end":9}`},
		{"get_range", `{"result":"r1","start":0,"end":9999}`},
		{"get_json", `{"result":"r2","pointer":"/k/2"}`},
		{"get_json", `{"result":"r2","pointer":"/k","as":"lexeme"}`},
		{"get_json", `{"result":"r2","pointer":"/nope"}`},
		{"begin_step", `{}`},
		{"find", `{"result":"r1","pattern":"a"}`},
		{"find", `{"result":"r1","pattern":"zzz"}`},
		{"find", `{"paths":["."],"pattern":"alpha"}`},
		{"find", `{"result":"r1","pattern":"(","regex":true}`},
		{"list_results", `{}`},
		{"list_results", `{"page":99}`},
		{"begin_step", `{"x":1}`},
		{"retain_output", `{"label":"t<>","text":"out \u2028\n","exit_code":1}`},
		{"retain_output", `{"label":"t"}`},
		{"expand_edit", `{"arguments":{"path":"x","content":{"$compose":[{"result":"r1","lines":[1,1]},"lit<&>\n"]},"n":[1,{"a":null}]}}`},
		{"expand_edit", `{"arguments":{"content":{"$splice":{"result":"r1","edits":[{"lines":[2,2],"text":"B\n"}]}}}}`},
		{"expand_edit", `{"arguments":{"content":{"$compose":[{"result":"r99"}]}}}`},
		{"begin_step", `{}`},
		{"write_file", `{"path":"new.txt","text":"hello <&>\n"}`},
		{"write_file", `{"splice":{"result":"r1","edits":[{"lines":[3,3],"text":"GAMMA\n"}]}}`},
		{"write_file", `{"path":"old.go","text":"package b\n"}`}, // conflict: no base
		{"write_file", `{"path":"../out","text":"x"}`},
		{"write_file", `{"splice":{"result":"r1","edits":[{"lines":[9,9],"text":"x\n"}]}}`},
		{"begin_step", `{}`},
		{"run", `{"name":"ok"}`},
		{"run", `{"name":"bad"}`},
		{"run", `{"name":"nope"}`},
	}
	for i, c := range calls {
		p.Call(i+2, c.tool, c.args)
	}
	mu.Lock()
	defer mu.Unlock()
	for name, n := range answered {
		assert.Positive(t, n[0], "%s: no success compared", name)
		assert.Positive(t, n[1], "%s: no error compared", name)
	}
	assert.Len(t, answered, 11, "every tool")
}
