package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testroot"
	"github.com/loom-results/loom-results/limits"
)

// session is a client of ServeStdio over in-memory pipes: the real stdio
// loop, without a process.
type session struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	dir  string
}

func start(t *testing.T, cfg limits.Config, ctx briefing.Policy, files map[string]string) *session {
	t.Helper()
	root, dir := testroot.Open(t, files)
	sess := serveStdio(t, New(Options{Limits: cfg, Policy: ctx, Root: root}))
	sess.dir = dir
	return sess
}

// serveStdio runs s's stdio loop over in-memory pipes.
func serveStdio(t *testing.T, s *Server) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sess := &session{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		sess.done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return sess
}

// send writes raw lines without reading.
func (s *session) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		_, err := io.WriteString(s.in, l+"\n")
		require.NoError(s.t, err)
	}
}

// recv reads one response line as a generic JSON object.
func (s *session) recv() map[string]any {
	s.t.Helper()
	line, err := s.out.ReadBytes('\n')
	require.NoError(s.t, err)
	var m map[string]any
	require.NoError(s.t, json.Unmarshal(line, &m), string(line))
	return m
}

// call makes a tools/call and returns its result object.
func (s *session) call(id int, tool string, args string) map[string]any {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
	resp := s.recv()
	require.Equal(s.t, float64(id), resp["id"], resp)
	res, ok := resp["result"].(map[string]any)
	require.True(s.t, ok, "no result: %v", resp)
	return res
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func (s *session) initialize() {
	s.t.Helper()
	// The pipes hold no bytes: read each answer before writing on.
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	resp := s.recv()
	require.Equal(s.t, "2025-11-25", resp["result"].(map[string]any)["protocolVersion"])
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func text(res map[string]any) string {
	return res["content"].([]any)[0].(map[string]any)["text"].(string)
}

func structured(res map[string]any) map[string]any {
	return res["structuredContent"].(map[string]any)
}

func errCode(res map[string]any) string {
	if res["isError"] != true {
		return ""
	}
	return structured(res)["error"].(map[string]any)["code"].(string)
}

func TestStdioInOrderAndEOF(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x\ny\n"})
	s.initialize()
	// Many calls written before any answer is read are answered in order,
	// and the end of input still answers every one of them.
	var lines []string
	lines = append(lines, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt"]}}}`)
	for i := 2; i <= 150; i++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`)
	}
	go func() {
		s.send(lines...)
		s.in.Close()
	}()
	for i := 1; i <= 150; i++ {
		resp := s.recv()
		require.Equal(t, float64(i), resp["id"])
		if i > 1 {
			assert.Equal(t, "step "+itoa(i), text(resp["result"].(map[string]any)))
		}
	}
	require.NoError(t, <-s.done)
}

func TestStdioProtocolFaults(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, nil)
	s.initialize()
	s.send(`{not json`)
	resp := s.recv()
	assert.Nil(t, resp["id"])
	assert.Equal(t, float64(-32700), resp["error"].(map[string]any)["code"])

	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	resp = s.recv()
	assert.Equal(t, float64(5), resp["id"])
	assert.NotNil(t, resp["error"], "an unknown tool is a protocol fault")

	s.send(`{"jsonrpc":"2.0","id":6,"method":"no/such/method"}`)
	resp = s.recv()
	assert.Equal(t, float64(-32601), resp["error"].(map[string]any)["code"])

	// Blank lines are skipped; the server goes on serving.
	s.send("", "  ")
	assert.Equal(t, "step 2", text(s.call(7, "begin_step", `{}`)))
}

func TestStdioMessageLimit(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`
	cfg.MaxMessageBytes = int64(len(call))
	s := start(t, cfg, briefing.Legacy, nil)

	// Exactly the limit, with "\n" or "\r\n": served.
	s.send(call)
	assert.Equal(t, float64(1), s.recv()["id"])
	s.send(call + "\r")
	assert.Equal(t, float64(1), s.recv()["id"])

	// One byte over: -32600 with id null, then serving goes on.
	over := strings.Replace(call, `"id":1`, `"id":12`, 1)
	s.send(over)
	resp := s.recv()
	assert.Nil(t, resp["id"])
	assert.Equal(t, float64(-32600), resp["error"].(map[string]any)["code"])
	assert.Contains(t, resp["error"].(map[string]any)["message"], "over the")

	// A message far over the limit (more than the reader's buffer).
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"begin_step","arguments":{"x":"` + strings.Repeat("a", 200_000) + `"}}}`)
	assert.Equal(t, float64(-32600), s.recv()["error"].(map[string]any)["code"])
	s.send(call)
	assert.Equal(t, "step 4", text(s.recv()["result"].(map[string]any)))
}

func TestStdioDiscoverEra(t *testing.T) {
	t.Parallel()
	s := start(t, limits.Defaults(), briefing.Legacy, map[string]string{"a.txt": "x\ny\n"})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	s.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	resp := s.recv()
	versions := resp["result"].(map[string]any)["supportedVersions"]
	assert.Contains(t, versions, "2026-07-28")
	assert.Contains(t, versions, "2025-11-25")

	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt"]},` + meta + `}}`)
	resp = s.recv()
	assert.Equal(t, "r1", structured(resp["result"].(map[string]any))["results"].([]any)[0].(map[string]any)["id"])

	// Both eras share the process's one briefing.
	s.initialize()
	res := s.call(3, "get_lines", `{"result":"r1","first":2}`)
	assert.Equal(t, "y\n", text(res))
}
