package editbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"github.com/loom-results/loom-results/limits"
)

// A session is one briefing: a server process driven over stdio, one
// JSON-RPC request a line, as an agent's client drives it. (The official
// SDK clients are exercised by the conformance and client tests; this
// client is kept small so that the server binary, which carries
// bench-edits, does not carry an MCP client too.)
type session struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *lockedBuffer
	stop   func() bool // stops the kill on cancellation
	nextID int
	// budget is the step budget of the last answer that carried one; nil
	// before the first.
	budget *limits.Snapshot
	// maxLookups and the other limits come from the first begin_step.
	limits map[string]int64
	// broken is set when a call failed in the transport: the session is
	// replaced before the next file.
	broken bool
}

// An answer is a tool result as the agent's client sees it.
type answer struct {
	// Text is the text content: what the model reads.
	Text string
	// Code is the error code when the result is an error.
	Code string
	// Structured is the structured content as JSON.
	Structured json.RawMessage
}

// protocolVersion is the handshake the client asks for.
const protocolVersion = "2025-11-25"

// startSession starts server (a command; --root root and extra are
// appended) and initializes it.
func startSession(ctx context.Context, server []string, root string, extra []string) (*session, error) {
	args := append(append(append([]string{}, server[1:]...), "--root", root), extra...)
	cmd := exec.Command(server[0], args...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(server, " "), err)
	}
	s := &session{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stderr: stderr}
	// A cancelled run ends the server, which ends any read waiting on it.
	s.stop = context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := s.request(ctx, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "loom-editbench", "version": "0.1.0"},
	}, &init); err != nil {
		s.close()
		return nil, fmt.Errorf("starting %s: %w", strings.Join(server, " "), err)
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// close ends the server: end of input, then its exit status.
func (s *session) close() error {
	s.stop()
	s.stdin.Close()
	if err := s.cmd.Wait(); err != nil {
		return fmt.Errorf("server exit: %w: %s", err, s.stderr.String())
	}
	return nil
}

func (s *session) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.stdin.Write(append(b, '\n'))
	return err
}

// request sends one request and decodes its result into out; a JSON-RPC
// error is an error. Calls are one at a time, so the next line with an id
// is the answer (notifications, which have none, are skipped).
func (s *session) request(ctx context.Context, method string, params any, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.nextID++
	id := s.nextID
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("%s: %w: %s", method, err, s.stderr.String())
	}
	for {
		line, err := s.stdout.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%s: reading the answer: %w: %s", method, err, s.stderr.String())
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return fmt.Errorf("%s: answer %q: %w", method, line, err)
		}
		if resp.ID == nil {
			continue
		}
		if *resp.ID != id {
			return fmt.Errorf("%s: answer to id %d, want %d", method, *resp.ID, id)
		}
		if resp.Error != nil {
			return fmt.Errorf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
		}
		return json.Unmarshal(resp.Result, out)
	}
}

// call calls tool with args, a JSON object sent as given, and keeps the
// budget the answer carries.
func (s *session) call(ctx context.Context, tool string, args []byte) (*answer, error) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := s.request(ctx, "tools/call", map[string]any{"name": tool, "arguments": json.RawMessage(args)}, &res); err != nil {
		s.broken = true
		return nil, fmt.Errorf("tools/call %s: %w", tool, err)
	}
	a := &answer{Structured: res.StructuredContent}
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	a.Text = text.String()
	var common struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
		Budget *limits.Snapshot `json:"budget"`
	}
	if len(a.Structured) > 0 {
		if err := json.Unmarshal(a.Structured, &common); err != nil {
			return nil, fmt.Errorf("tools/call %s: structured content: %w", tool, err)
		}
	}
	if common.Budget != nil {
		s.budget = common.Budget
	}
	if res.IsError {
		a.Code = "unknown"
		if common.Error != nil {
			a.Code = common.Error.Code
		}
	}
	return a, nil
}

// beginStep starts a new step and returns its answer. A governing client
// calls it unseen by the model; with --steps model the model calls it, and
// the caller counts it.
func (s *session) beginStep(ctx context.Context) (*answer, error) {
	a, err := s.call(ctx, "begin_step", []byte("{}"))
	if err != nil {
		return nil, err
	}
	if a.Code != "" {
		return nil, fmt.Errorf("begin_step: %s", a.Text)
	}
	var got struct {
		Step   int64            `json:"step"`
		Limits map[string]int64 `json:"limits"`
	}
	if err := json.Unmarshal(a.Structured, &got); err != nil {
		return nil, fmt.Errorf("begin_step: %w", err)
	}
	s.limits = got.Limits
	s.budget = &limits.Snapshot{
		Step:            got.Step,
		LookupsLeft:     got.Limits["max_lookups"],
		BytesLeft:       got.Limits["max_step_bytes"],
		ExpandBytesLeft: got.Limits["max_expand_bytes"],
	}
	return a, nil
}

// limit returns the named limit of begin_step's answer, or def before it.
func (s *session) limit(name string, def int64) int64 {
	if v, ok := s.limits[name]; ok {
		return v
	}
	return def
}

// lockedBuffer collects a server's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<16 {
		return len(p), nil // enough to say what went wrong
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}
