package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// start serves a fresh server over in-memory pipes (mcptest.Pipe), its
// root holding files.
func start(t *testing.T, cfg limits.Config, ctx briefing.Policy, files map[string]string) *mcptest.Pipe {
	t.Helper()
	root, dir := testroot.Open(t, files, workspace.Open)
	p := mcptest.ServeStdio(t, New(Options{Limits: cfg, Policy: ctx, Root: root}).ServeStdio)
	p.Dir = dir
	return p
}

func TestStdioInOrderAndEOF(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x\ny\n"})
	s.Initialize()
	// Many calls written before any answer is read are answered in order,
	// and the end of input still answers every one of them.
	var lines []string
	lines = append(lines, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt"]}}}`)
	for i := 2; i <= 150; i++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`)
	}
	go func() {
		s.Send(lines...)
		s.In.Close()
	}()
	for i := 1; i <= 150; i++ {
		resp := s.Recv()
		require.Equal(t, float64(i), resp["id"])
		if i > 1 {
			assert.Equal(t, "step "+strconv.Itoa(i), mcptest.Text(resp["result"].(map[string]any)))
		}
	}
	require.NoError(t, <-s.Done)
}

func TestStdioProtocolFaults(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, nil)
	s.Initialize()
	s.Send(`{not json`)
	resp := s.Recv()
	assert.Nil(t, resp["id"])
	assert.Equal(t, float64(-32700), resp["error"].(map[string]any)["code"])

	s.Send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	resp = s.Recv()
	assert.Equal(t, float64(5), resp["id"])
	assert.NotNil(t, resp["error"], "an unknown tool is a protocol fault")

	s.Send(`{"jsonrpc":"2.0","id":6,"method":"no/such/method"}`)
	resp = s.Recv()
	assert.Equal(t, float64(-32601), resp["error"].(map[string]any)["code"])

	// Blank lines are skipped; the server goes on serving.
	s.Send("", "  ")
	assert.Equal(t, "step 2", mcptest.Text(s.Call(7, "begin_step", `{}`)))
}

func TestStdioMessageLimit(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`
	cfg.MaxMessageBytes = int64(len(call))
	s := start(t, cfg, briefing.Legacy, nil)

	// Exactly the limit, with "\n" or "\r\n": served.
	s.Send(call)
	assert.Equal(t, float64(1), s.Recv()["id"])
	s.Send(call + "\r")
	assert.Equal(t, float64(1), s.Recv()["id"])

	// One byte over: -32600 with id null, then serving goes on.
	over := strings.Replace(call, `"id":1`, `"id":12`, 1)
	s.Send(over)
	resp := s.Recv()
	assert.Nil(t, resp["id"])
	assert.Equal(t, float64(-32600), resp["error"].(map[string]any)["code"])
	assert.Contains(t, resp["error"].(map[string]any)["message"], "over the")

	// A message far over the limit (more than the reader's buffer).
	s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"begin_step","arguments":{"x":"` + strings.Repeat("a", 200_000) + `"}}}`)
	assert.Equal(t, float64(-32600), s.Recv()["error"].(map[string]any)["code"])
	s.Send(call)
	assert.Equal(t, "step 4", mcptest.Text(s.Recv()["result"].(map[string]any)))
}

func TestStdioDiscoverEra(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x\ny\n"})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	s.Send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	resp := s.Recv()
	versions := resp["result"].(map[string]any)["supportedVersions"]
	assert.Contains(t, versions, "2026-07-28")
	assert.Contains(t, versions, "2025-11-25")

	s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt"]},` + meta + `}}`)
	resp = s.Recv()
	assert.Equal(t, "r1", mcptest.Structured(resp["result"].(map[string]any))["results"].([]any)[0].(map[string]any)["id"])

	// Both eras share the process's one briefing.
	s.Initialize()
	res := s.Call(3, "get_lines", `{"result":"r1","first":2}`)
	assert.Equal(t, "y\n", mcptest.Text(res))
}
