//go:build unix

package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// runServer is a server whose root holds files, with the given --run
// commands, a short grace before SIGKILL and frequent progress.
func runServer(t *testing.T, cfg limits.Config, files map[string]string, values ...string) (*Server, string) {
	t.Helper()
	root, dir := testroot.Open(t, files, workspace.Open)
	return New(Options{Limits: cfg, Policy: briefing.Legacy, Root: root, Run: briefing.RunConfig{
		Commands: commands(t, values...), Grace: 200 * time.Millisecond, ProgressEvery: 10 * time.Millisecond,
	}}), dir
}

// fifo makes a named pipe in dir: a command that opens it waits for the
// test to open its other end, which is how tests meet a running command
// without sleeping.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	return p
}

func TestRunToolDefinition(t *testing.T) {
	t.Parallel()
	cfg := ToolConfig{Config: limits.Defaults(), Commands: commands(t, "test=go test ./...", `lint=golangci-lint run --timeout '5m'`)}
	cfg.RunTimeout = 90 * time.Second
	var run *mcpTool
	for _, tool := range Tools(cfg) {
		if tool.Tool.Name == "run" {
			run = &mcpTool{tool.Tool.Description, tool.Tool.RawInputSchema}
		}
	}
	require.NotNil(t, run)
	var schema struct {
		Properties struct {
			Name struct {
				Type string   `json:"type"`
				Enum []string `json:"enum"`
			} `json:"name"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	require.NoError(t, json.Unmarshal(run.schema, &schema))
	assert.Equal(t, "string", schema.Properties.Name.Type)
	assert.Equal(t, []string{"test", "lint"}, schema.Properties.Name.Enum)
	assert.Equal(t, []string{"name"}, schema.Required)
	assert.True(t, strings.HasSuffix(run.description, "The commands:\n- test: go test ./...\n- lint: golangci-lint run --timeout '5m'"), run.description)
	assert.Contains(t, run.description, "runs past 1m30s")
	assert.Contains(t, run.description, "at most 1024 bytes")

	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true}) {
		assert.NotEqual(t, "run", tool.Tool.Name, "without --run there is no run")
	}
}

type mcpTool struct {
	description string
	schema      json.RawMessage
}

// TestRunAnswers: run's answer is the output's descriptor, whose preview
// is the tail, and a text of the header and the tail; the output is a
// result find and the lookups read; run is no lookup, works in a refused
// step, and an equal output is reused.
func TestRunAnswers(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PreviewBytes = 16
	cfg.MaxLookups = 1
	s, _ := runServer(t, cfg, map[string]string{
		"fail.sh": "echo line 1\necho line 2 >&2\necho '--- FAIL: TestX'\necho FAIL\nexit 1\n",
	}, "fail=sh fail.sh", "ok=echo ok", "bad=printf 'a\\377\\376b\\342\\202'", "sig=sh -c 'kill -KILL $$'", "gone=./nothing")
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()

	res := p.Call(1, "run", `{"name":"fail"}`)
	d := mcptest.Structured(res)
	assert.Equal(t, "r1", d["id"])
	assert.Equal(t, float64(35), d["bytes"])
	assert.Equal(t, float64(4), d["lines"])
	assert.Equal(t, true, d["complete"])
	assert.Equal(t, map[string]any{"kind": "output", "label": "fail", "exit_code": float64(1), "timed_out": false}, d["source"])
	assert.Equal(t, "FAIL\n", d["preview"], "the longest suffix of whole lines within 16 bytes")
	assert.Equal(t, false, d["preview_complete"])
	assert.Equal(t, "r1 output \"fail\" exit=1: 35 bytes, 4 lines, complete, sha256="+d["sha256"].(string)[:12]+"\n"+
		"[first failure: line 3 of 4]\n3#j3…\n[tail: last 5 of 35 bytes]\nFAIL\n", mcptest.Text(res))

	// The rest is read with find and the lookups; the second lookup of the
	// step is refused, and run still runs.
	found := p.Call(2, "find", `{"result":"r1","pattern":"FAIL"}`)
	assert.Equal(t, "3#j3: --- FAIL: TestX\n4#ij: FAIL\n", mcptest.Text(found))
	assert.Equal(t, "lookup_limit", mcptest.ErrCode(p.Call(3, "get_lines", `{"result":"r1","first":1}`)))
	res = p.Call(4, "run", `{"name":"ok"}`)
	assert.Equal(t, "", mcptest.ErrCode(res))
	assert.Equal(t, "r2 output \"ok\" exit=0: 3 bytes, 1 line, complete, sha256="+mcptest.Structured(res)["sha256"].(string)[:12]+"\nok\n", mcptest.Text(res))
	_, ok := mcptest.Structured(res)["budget"]
	assert.False(t, ok, "run spends no budget and shows none")

	// The same output again is reused.
	res = p.Call(5, "run", `{"name":"fail"}`)
	assert.Equal(t, "r1", mcptest.Structured(res)["id"])
	assert.Equal(t, true, mcptest.Structured(res)["reused"])

	// Invalid UTF-8: each maximal subpart becomes one U+FFFD, and the
	// stream's bytes replaced are counted; an unfinished sequence at the
	// end is one too.
	res = p.Call(6, "run", `{"name":"bad"}`)
	d = mcptest.Structured(res)
	assert.Equal(t, "a\ufffd\ufffdb\ufffd", d["preview"])
	assert.Equal(t, map[string]any{"kind": "output", "label": "bad", "exit_code": float64(0), "timed_out": false, "replaced": float64(4)}, d["source"])
	assert.Contains(t, mcptest.Text(res), `r3 output "bad" exit=0 replaced=4: 11 bytes, 1 line, no final newline, complete`)

	// A signal: exit_code null.
	res = p.Call(7, "run", `{"name":"sig"}`)
	assert.Equal(t, map[string]any{"kind": "output", "label": "sig", "exit_code": nil, "timed_out": false}, mcptest.Structured(res)["source"])
	assert.Contains(t, mcptest.Text(res), `r4 output "sig" exit=signal: 0 bytes`)

	// Errors: a program that cannot start, a name that is not configured.
	res = p.Call(8, "run", `{"name":"gone"}`)
	assert.Equal(t, "cannot_run", mcptest.ErrCode(res))
	assert.Equal(t, `error cannot_run: command gone: cannot run "./nothing": no such file or directory; the program is missing or not executable, and only the person who named the command with --run can fix that`, mcptest.Text(res))
	res = p.Call(9, "run", `{"name":"rm"}`)
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(res))
	assert.Equal(t, `error invalid_argument: no command "rm": the commands are fail, ok, bad, sig, gone`, mcptest.Text(res))
	res = p.Call(10, "run", `{"name":"ok","args":["-x"]}`)
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(res))
	res = p.Call(11, "run", `{}`)
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(res))
}

// TestRunDroppedAndIncomplete: output over --max-result-bytes keeps its
// tail from a character boundary, counts the rest in dropped_bytes and is
// incomplete; a timed-out run is incomplete and answers with what it
// captured.
func TestRunDroppedAndIncomplete(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResultBytes = 10
	// Long enough for the shell to print "started" on a loaded machine
	// (at 100 ms it sometimes had not, and the preview was empty).
	cfg.RunTimeout = 2 * time.Second
	s, _ := runServer(t, cfg, nil, "long=printf 'aaaaaaaé123456789\\n'", "slow=sh -c 'echo started; exec sleep 300'")
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()

	d := mcptest.Structured(p.Call(1, "run", `{"name":"long"}`))
	assert.Equal(t, "123456789\n", d["preview"], "é would start on its second byte: it is dropped whole")
	assert.Equal(t, float64(10), d["bytes"])
	assert.Equal(t, false, d["complete"])
	assert.Equal(t, map[string]any{"kind": "output", "label": "long", "exit_code": float64(0), "timed_out": false, "dropped_bytes": float64(9)}, d["source"])

	res := p.Call(2, "run", `{"name":"slow"}`)
	d = mcptest.Structured(res)
	assert.Equal(t, "started\n", d["preview"])
	assert.Equal(t, false, d["complete"])
	assert.Equal(t, map[string]any{"kind": "output", "label": "slow", "exit_code": nil, "timed_out": true}, d["source"])
	assert.Contains(t, mcptest.Text(res), `output "slow" exit=signal timed_out: 8 bytes`)
}

// recvResponse reads lines until the answer with the given id, returning
// it and the notifications read before it.
func recvResponse(t *testing.T, p *mcptest.Pipe, id any) (resp map[string]any, notes []map[string]any) {
	t.Helper()
	for {
		m := p.Recv()
		if m["method"] != nil {
			notes = append(notes, m)
			continue
		}
		require.Equal(t, id, m["id"], m)
		return m, notes
	}
}

// TestRunProgressStdio: a request with a progressToken gets
// notifications/progress as the command runs, before the answer: the
// bytes read so far, increasing, and the last complete line.
func TestRunProgressStdio(t *testing.T) {
	t.Parallel()
	s, dir := runServer(t, limits.Defaults(), nil, "slow=sh -c 'echo one; echo two; printf partial; cat gate; echo three'")
	gate := fifo(t, dir, "gate")
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()
	p.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"name":"slow"},"_meta":{"progressToken":"tok"}}}`)
	// Notifications come at most every ProgressEvery, so a loaded machine
	// may report "one" before "two" is written; the command then waits
	// at the gate with 15 bytes written, which a notification reports
	// with the last complete line: the partial one is not.
	want := map[float64]string{4: "one", 8: "two", 15: "two"}
	for last := 0.0; last < 15; {
		note := p.Recv()
		require.Equal(t, "notifications/progress", note["method"], note)
		params := note["params"].(map[string]any)
		progress := params["progress"].(float64)
		require.Contains(t, want, progress, note)
		assert.Greater(t, progress, last, "progress increases")
		assert.Equal(t, map[string]any{"progressToken": "tok", "progress": progress, "message": want[progress]}, params)
		last = progress
	}
	// The command waits for the gate until the notification was read.
	g, err := os.OpenFile(gate, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, g.Close())
	resp, notes := recvResponse(t, p, float64(1))
	last := 15.0
	for _, n := range notes {
		params := n["params"].(map[string]any)
		assert.Greater(t, params["progress"], last, "progress increases")
		last = params["progress"].(float64)
	}
	res := resp["result"].(map[string]any)
	assert.Equal(t, "one\ntwo\npartialthree\n", mcptest.Structured(res)["preview"])

	// Without a progressToken no notification is sent.
	p.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"name":"slow"}}}`)
	g, err = os.OpenFile(gate, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, g.Close())
	resp, notes = recvResponse(t, p, float64(2))
	assert.Empty(t, notes)
	assert.Equal(t, "r1", mcptest.Structured(resp["result"].(map[string]any))["id"], "the same output, reused")
}

// TestRunCancelStdio: a notifications/cancelled is acted on at once, while
// another call waits behind the running one: the command's group is ended,
// the answer says cancelled, and the waiting call is answered after it. A
// cancellation of a call still waiting makes it end without running.
func TestRunCancelStdio(t *testing.T) {
	t.Parallel()
	s, dir := runServer(t, limits.Defaults(), nil, "wait=sh -c 'echo ready; sleep 300 & echo $!; wait'", "touch=touch touched")
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()
	p.Send(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"run","arguments":{"name":"wait"},"_meta":{"progressToken":1}}}`,
		mcptest.CallBody(2, "begin_step", `{}`),
		mcptest.CallBody(3, "run", `{"name":"touch"}`),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"changed my mind"}}`)
	// The command printed its sleep's PID once a progress message is one.
	pid := 0
	for pid == 0 {
		note := p.Recv()
		require.Equal(t, "notifications/progress", note["method"], note)
		msg, _ := note["params"].(map[string]any)["message"].(string)
		pid, _ = strconv.Atoi(msg)
	}
	p.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`)
	resp, _ := recvResponse(t, p, "a")
	d := mcptest.Structured(resp["result"].(map[string]any))
	assert.Equal(t, map[string]any{"kind": "output", "label": "wait", "exit_code": nil, "timed_out": false, "cancelled": true}, d["source"])
	assert.Equal(t, false, d["complete"])
	assert.Equal(t, "ready\n"+strconv.Itoa(pid)+"\n", d["preview"])
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the command's processes are ended")

	// The calls that waited are answered in order; the one cancelled while
	// it waited did not run.
	resp, _ = recvResponse(t, p, float64(2))
	assert.Equal(t, "step 2", mcptest.Text(resp["result"].(map[string]any)))
	resp, _ = recvResponse(t, p, float64(3))
	d = mcptest.Structured(resp["result"].(map[string]any))
	assert.Equal(t, map[string]any{"kind": "output", "label": "touch", "exit_code": nil, "timed_out": false, "cancelled": true}, d["source"])
	assert.NoFileExists(t, filepath.Join(dir, "touched"))
}

// readFIFO opens a named pipe for reading and reads it to its end: it
// returns once a command has opened it, written and closed it.
func readFIFO(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestRunCancelHTTP: over HTTP a cancellation is a POST of its own, which
// reaches the running call of the session: the call answers cancelled.
func TestRunCancelHTTP(t *testing.T) {
	t.Parallel()
	s, dir := runServer(t, limits.Defaults(), nil, "wait=sh -c 'echo $$ > started; exec sleep 300'")
	started := fifo(t, dir, "started")
	h := s.HTTPHandler(transport.HTTPOptions{Addr: "127.0.0.1:0"})
	c := mcptest.ServeHTTP(t, h, "", h.Close)
	id := c.Initialize()

	answer := make(chan mcptest.Answer, 1)
	go func() { answer <- c.Post(id, mcptest.CallBody(7, "run", `{"name":"wait"}`)) }()
	pid, err := strconv.Atoi(strings.TrimSpace(readFIFO(t, started)))
	require.NoError(t, err)
	a := c.Post(id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	assert.Equal(t, http.StatusAccepted, a.Status)
	a = <-answer
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	assert.Equal(t, "application/json", a.Header.Get("Content-Type"), "no notification was sent: plain JSON")
	res := a.JSON(t)["result"].(map[string]any)
	assert.Equal(t, map[string]any{"kind": "output", "label": "wait", "exit_code": nil, "timed_out": false, "cancelled": true},
		mcptest.Structured(res)["source"])
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH)

	// A cancellation that names no running call changes nothing.
	a = c.Post(id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	assert.Equal(t, http.StatusAccepted, a.Status)
	assert.Equal(t, "step 2", mcptest.Text(c.Call(id, 8, "begin_step", `{}`)))
}

// TestRunProgressHTTP: over HTTP a call's progress notifications make its
// answer an SSE stream, whose last event is the response.
func TestRunProgressHTTP(t *testing.T) {
	t.Parallel()
	s, _ := runServer(t, limits.Defaults(), nil, "wait=sh -c 'echo ready; exec sleep 300'")
	h := s.HTTPHandler(transport.HTTPOptions{Addr: "127.0.0.1:0"})
	c := mcptest.ServeHTTP(t, h, "", h.Close)
	id := c.Initialize()

	req, err := http.NewRequest(http.MethodPost, c.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"name":"wait"},"_meta":{"progressToken":"p"}}}`))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(mcptest.SessionHeader, id)
	resp, err := c.HC.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := bufio.NewReader(resp.Body)
	next := func() map[string]any {
		t.Helper()
		var data string
		for {
			line, err := events.ReadString('\n')
			require.NoError(t, err)
			line = strings.TrimRight(line, "\n")
			if line == "" && data != "" {
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(data), &m), data)
				return m
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				data += v
			}
		}
	}
	note := next()
	assert.Equal(t, "notifications/progress", note["method"])
	assert.Equal(t, map[string]any{"progressToken": "p", "progress": float64(6), "message": "ready"}, note["params"])

	a := c.Post(id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	assert.Equal(t, http.StatusAccepted, a.Status)
	for {
		m := next()
		if m["method"] != nil {
			continue // a later progress notification, sent before the cancellation
		}
		assert.Equal(t, float64(1), m["id"])
		src := mcptest.Structured(m["result"].(map[string]any))["source"]
		assert.Equal(t, map[string]any{"kind": "output", "label": "wait", "exit_code": nil, "timed_out": false, "cancelled": true}, src)
		break
	}
	_, err = events.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the response is the stream's last event")
}

// TestRunShutdown: the server's shutdown (its context ends) ends a running
// command's process group, and the server returns once it has.
func TestRunShutdown(t *testing.T) {
	t.Parallel()
	s, dir := runServer(t, limits.Defaults(), nil, "wait=sh -c 'sleep 300 & echo $! > started; wait'")
	started := fifo(t, dir, "started")
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, io.Discard) }()
	_, err := io.WriteString(inW, mcptest.CallBody(1, "run", `{"name":"wait"}`)+"\n")
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(readFIFO(t, started)))
	require.NoError(t, err)
	cancel()
	require.NoError(t, <-done)
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH)
}

// TestRunDeleteHTTP: a session that ends (DELETE) cancels its running
// call: the command's processes are ended and the call answers.
func TestRunDeleteHTTP(t *testing.T) {
	t.Parallel()
	s, dir := runServer(t, limits.Defaults(), nil, "wait=sh -c 'echo $$ > started; exec sleep 300'")
	started := fifo(t, dir, "started")
	h := s.HTTPHandler(transport.HTTPOptions{Addr: "127.0.0.1:0"})
	c := mcptest.ServeHTTP(t, h, "", h.Close)
	id := c.Initialize()
	answer := make(chan mcptest.Answer, 1)
	go func() { answer <- c.Post(id, mcptest.CallBody(1, "run", `{"name":"wait"}`)) }()
	pid, err := strconv.Atoi(strings.TrimSpace(readFIFO(t, started)))
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, id, "").Status)
	a := <-answer
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	src := mcptest.Structured(a.JSON(t)["result"].(map[string]any))["source"]
	assert.Equal(t, true, src.(map[string]any)["cancelled"])
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH)
}
