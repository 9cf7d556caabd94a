package editbench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
	"github.com/loom-results/loom-results/limits"
)

// A session is one briefing: a server process driven over stdio, one
// JSON-RPC request a line, as an agent's client drives it, through the
// project's small stdio client.
type session struct {
	p *stdioclient.Process
	// budget is the step budget of the last answer that carried one; nil
	// before the first.
	budget *limits.Snapshot
	// maxLookups and the other limits come from the first begin_step.
	limits map[string]int64
	// broken is set when a call failed in the transport: the session is
	// replaced before the next file.
	broken bool
	// structuredSeen says that the model is shown a success's structured
	// content, as JSON, instead of its text: what Claude Code and VS Code
	// do whenever an answer has one (SPEC section 1).
	structuredSeen bool
	// pause is the model's pause between turns, longer than the server's
	// --step-gap, so that each turn begins a step (SPEC 6); 0 when the
	// server has no --step-gap (SPEC v4), and the model calls begin_step.
	pause time.Duration
	// anchored says that the server shows line anchors and takes them in
	// edits (SPEC v5).
	anchored bool
	// called says that a tool call was made in this session.
	called bool
}

// gap reports a server whose steps begin by themselves between turns.
func (s *session) gap() bool { return s.pause > 0 }

// An answer is a tool result as the agent's client sees it.
type answer struct {
	// Text is the text content: what the model reads.
	Text string
	// Code is the error code when the result is an error.
	Code string
	// Structured is the structured content as JSON.
	Structured json.RawMessage
	// Seen is what the model reads of the answer: the text, or a
	// success's structured content as JSON when the client shows that.
	Seen int64
}

// startSession starts server (a command; --root root and extra are
// appended) and initializes it.
func startSession(ctx context.Context, server []string, root string, extra []string) (*session, error) {
	argv := append(append(append([]string{}, server...), "--root", root), extra...)
	p, err := stdioclient.Start(ctx, argv, stdioclient.Options{})
	if err != nil {
		return nil, err
	}
	if err := p.Initialize(ctx, "loom-editbench"); err != nil {
		p.Close()
		return nil, fmt.Errorf("starting %s: %w", strings.Join(server, " "), err)
	}
	return &session{p: p}, nil
}

// close ends the server: end of input, then its exit status.
func (s *session) close() error { return s.p.Close() }

// request sends one request and decodes its result into out; a JSON-RPC
// error is an error.
func (s *session) request(ctx context.Context, method string, params any, out any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	line, err := s.p.Request(ctx, method, b)
	if err != nil {
		return err
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return fmt.Errorf("%s: answer %q: %w", method, line, err)
	}
	return json.Unmarshal(resp.Result, out)
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
	s.called = true
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
	a.Seen = int64(len(a.Text))
	if s.structuredSeen && !res.IsError && len(a.Structured) > 0 {
		a.Seen = int64(len(a.Structured))
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
		} else if code, _, ok := strings.Cut(strings.TrimPrefix(a.Text, "error "), ":"); ok && strings.HasPrefix(a.Text, "error ") {
			a.Code = code // --answers text: "error <code>: <message>"
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
	if len(a.Structured) == 0 {
		return a, nil // --answers text: the model reads "step N"; the limits are the defaults
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
