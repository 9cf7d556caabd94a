package editbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"loom-results/limits"
)

// A session is one briefing: a server process driven over stdio by the
// official Go SDK's client, as an agent's client would drive it.
type session struct {
	cs     *mcp.ClientSession
	stderr *lockedBuffer
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

// startSession starts server (a command; --root root and extra are
// appended) and connects to it.
func startSession(ctx context.Context, server []string, root string, extra []string) (*session, error) {
	args := append(append(append([]string{}, server[1:]...), "--root", root), extra...)
	cmd := exec.Command(server[0], args...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "loom-editbench", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w: %s", strings.Join(server, " "), err, stderr.String())
	}
	return &session{cs: cs, stderr: stderr}, nil
}

// close ends the server: end of input, then its exit status.
func (s *session) close() error {
	if err := s.cs.Close(); err != nil {
		return fmt.Errorf("server exit: %w: %s", err, s.stderr.String())
	}
	return nil
}

// call calls tool with args, a JSON object sent as given, and keeps the
// budget the answer carries.
func (s *session) call(ctx context.Context, tool string, args []byte) (*answer, error) {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		s.broken = true
		return nil, fmt.Errorf("tools/call %s: %w: %s", tool, err, s.stderr.String())
	}
	a := &answer{}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	a.Text = text.String()
	if res.StructuredContent != nil {
		if a.Structured, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, fmt.Errorf("tools/call %s: structured content: %w", tool, err)
		}
	}
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

// beginStep starts a new step. The governing client calls it; the model
// never sees it, so it is not counted.
func (s *session) beginStep(ctx context.Context) error {
	a, err := s.call(ctx, "begin_step", []byte("{}"))
	if err != nil {
		return err
	}
	if a.Code != "" {
		return fmt.Errorf("begin_step: %s", a.Text)
	}
	var got struct {
		Step   int64            `json:"step"`
		Limits map[string]int64 `json:"limits"`
	}
	if err := json.Unmarshal(a.Structured, &got); err != nil {
		return fmt.Errorf("begin_step: %w", err)
	}
	s.limits = got.Limits
	s.budget = &limits.Snapshot{
		Step:            got.Step,
		LookupsLeft:     got.Limits["max_lookups"],
		BytesLeft:       got.Limits["max_step_bytes"],
		ExpandBytesLeft: got.Limits["max_expand_bytes"],
	}
	return nil
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
