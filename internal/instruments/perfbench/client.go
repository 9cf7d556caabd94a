package perfbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
)

// protocolVersion is the handshake every server is driven with: the latest
// initialize-era version, which both loom-results and the filesystem server
// serve, so that the transport work is the same on both sides.
const protocolVersion = "2025-11-25"

// A session is one server process driven over stdio by the official Go
// SDK's client.
type session struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *stdioclient.LockedBuffer
	// Ready is the time from starting the process to the answer of its
	// first tools/list.
	Ready  time.Duration
	closed bool
	// wait is set when close must wait for the process itself (the
	// transport is not a CommandTransport).
	wait bool
}

// startSession starts argv, connects, and lists the tools.
func startSession(ctx context.Context, argv []string) (*session, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	s := &session{cmd: cmd, stderr: &stdioclient.LockedBuffer{}}
	cmd.Stderr = s.stderr
	if err := s.connect(ctx, argv, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}); err != nil {
		return nil, err
	}
	return s, nil
}

// startRecordedSession is startSession with every request and answer of
// the session recorded in rec, as the bytes cross the pipes.
func startRecordedSession(ctx context.Context, argv []string, rec *replayserver.Recorder) (*session, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	s := &session{cmd: cmd, stderr: &stdioclient.LockedBuffer{}, wait: true}
	cmd.Stderr = s.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	if err := s.connect(ctx, argv, &mcp.IOTransport{Reader: rec.Reader(out), Writer: rec.Writer(in)}); err != nil {
		in.Close()
		cmd.Wait()
		return nil, err
	}
	return s, nil
}

// connect makes the handshake over t and lists the tools, timing both.
func (s *session) connect(ctx context.Context, argv []string, t mcp.Transport) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "loom-perf", Version: "0.1.0"}, nil)
	t0 := time.Now()
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return fmt.Errorf("starting %s: %w: %s", strings.Join(argv, " "), err, s.stderr.String())
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		cs.Close()
		return fmt.Errorf("%s: tools/list: %w: %s", argv[0], err, s.stderr.String())
	}
	s.cs, s.Ready = cs, time.Since(t0)
	return nil
}

// close ends the server; a second close does nothing.
func (s *session) close() {
	if !s.closed {
		s.closed = true
		_ = s.cs.Close()
		if s.wait {
			_ = s.cmd.Wait()
		}
	}
}

// answer is what a call returned: its text content and structured content.
type answer struct {
	Text       string
	Structured json.RawMessage
	Elapsed    time.Duration
}

// call calls tool with args (a JSON object) and times the round trip. An
// error result is an error: every measured call must succeed.
func (s *session) call(ctx context.Context, tool string, args string) (*answer, error) {
	t0 := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	elapsed := time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("tools/call %s %s: %w: %s", tool, args, err, s.stderr.String())
	}
	a := &answer{Elapsed: elapsed}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	a.Text = text.String()
	if res.StructuredContent != nil {
		if a.Structured, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, err
		}
	}
	if res.IsError {
		return nil, fmt.Errorf("tools/call %s %s: error result: %s", tool, args, a.Text)
	}
	return a, nil
}

// lookup is call for the rows that need only the time.
func (s *session) lookup(ctx context.Context, tool, args string) (time.Duration, error) {
	a, err := s.call(ctx, tool, args)
	if err != nil {
		return 0, err
	}
	return a.Elapsed, nil
}

// vmHWM returns the process's peak resident set size in bytes, from
// /proc/<pid>/status.
func (s *session) vmHWM() (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", s.cmd.Process.Pid)
}

// timeProcess runs argv to completion with its output discarded and returns
// its wall time, start to exit.
func timeProcess(ctx context.Context, argv []string) (time.Duration, []byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return d, nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, errb.String())
	}
	return d, out.Bytes(), nil
}
