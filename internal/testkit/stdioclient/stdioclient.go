// Package stdioclient drives an MCP server process over stdio, one
// JSON-RPC message a line: the one small client that the project's commands
// and tests share (loom-check replay and bench-edits, loom-perf's raw pipe).
// It decodes nothing it does not have to, so that what it measures is the
// server and the pipe. The official SDK clients are exercised by the
// conformance and client tests; this one keeps loom-check and the
// instruments free of an MCP client library.
package stdioclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ProtocolVersion is the handshake Initialize asks for.
const ProtocolVersion = "2025-11-25"

// A Process is a server process and the pipes to it. Its methods are for
// one goroutine at a time, but for WriteLine and CloseInput, which may run
// beside ReadLine.
type Process struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stop   func() bool
	id     int
	req    []byte
	prefix []byte // the start of the answer to the last request
	long   []byte // a line longer than the reader's buffer
	Stderr *LockedBuffer
}

// Options configure Start.
type Options struct {
	// Dir is the process's working directory ("" for this one's).
	Dir string
	// Wrap, when set, stands between the process and the client: what the
	// client writes goes through in, what it reads comes through out (a
	// recorder, say).
	Wrap func(in io.WriteCloser, out io.ReadCloser) (io.WriteCloser, io.Reader)
}

// Start starts argv. Cancelling ctx kills the process, which ends any read
// waiting on it.
func Start(ctx context.Context, argv []string, opts Options) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no server command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	cmd.WaitDelay = 5 * time.Second
	p := &Process{cmd: cmd, Stderr: &LockedBuffer{}}
	cmd.Stderr = p.Stderr
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
	var r io.Reader = out
	p.in = in
	if opts.Wrap != nil {
		p.in, r = opts.Wrap(in, out)
	}
	p.out = bufio.NewReaderSize(r, 1<<20)
	p.stop = context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	return p, nil
}

// WriteLine writes one message and its newline.
func (p *Process) WriteLine(msg []byte) error {
	p.req = append(append(p.req[:0], msg...), '\n')
	_, err := p.in.Write(p.req)
	return err
}

// ReadLine returns the next line the server writes, without its newline;
// it is valid until the next read. At the end of the output it returns
// io.EOF (with the last line, when it had no newline).
func (p *Process) ReadLine() ([]byte, error) {
	line, err := p.out.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		p.long = append(p.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = p.out.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	return bytes.TrimSuffix(line, []byte{'\n'}), err
}

// Request sends method (plain ASCII, no quotes) with params (a JSON value,
// as given) under the next id and returns the answer's line, valid until the next read. Requests go
// one at a time, so the next line with an id is the answer; lines without
// one (notifications) are skipped. A JSON-RPC error is an error.
func (p *Process) Request(ctx context.Context, method string, params []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.id++
	// Built in place, without fmt: a timed round trip starts here.
	p.req = append(p.req[:0], `{"jsonrpc":"2.0","id":`...)
	p.req = strconv.AppendInt(p.req, int64(p.id), 10)
	want := len(p.req)
	p.req = append(p.req, `,"method":"`...)
	p.req = append(p.req, method...)
	p.req = append(p.req, `","params":`...)
	p.req = append(p.req, params...)
	p.req = append(p.req, "}\n"...)
	p.prefix = append(append(p.prefix[:0], p.req[:want]...), ',')
	prefix := p.prefix
	if _, err := p.in.Write(p.req); err != nil {
		return nil, fmt.Errorf("%s: writing: %w: %s", method, err, p.Stderr.String())
	}
	for {
		line, err := p.ReadLine()
		if len(line) == 0 && err != nil {
			return nil, fmt.Errorf("%s: reading the answer: %w: %s", method, err, p.Stderr.String())
		}
		if !bytes.HasPrefix(line, prefix) {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(line, &m) != nil || m.ID != nil {
				return nil, fmt.Errorf("%s: the answer %.200q is not to id %d", method, line, p.id)
			}
			continue // a notification
		}
		if bytes.HasPrefix(line[len(prefix):], []byte(`"error":`)) {
			return nil, fmt.Errorf("%s %s: JSON-RPC error: %.300s", method, params, line)
		}
		return line, nil
	}
}

// Initialize makes the handshake: initialize as clientName, then the
// initialized notification.
func (p *Process) Initialize(ctx context.Context, clientName string) error {
	params := fmt.Appendf(nil, `{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":%q,"version":"0.1.0"}}`,
		ProtocolVersion, clientName)
	if _, err := p.Request(ctx, "initialize", params); err != nil {
		return err
	}
	return p.WriteLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// CloseInput ends the server's input: it answers what it has read and
// exits.
func (p *Process) CloseInput() error { return p.in.Close() }

// Wait waits for the server to exit; a failed exit carries its stderr.
func (p *Process) Wait() error {
	defer p.stop()
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("server exit: %w: %s", err, p.Stderr.String())
	}
	return nil
}

// Close ends the input and waits for the exit.
func (p *Process) Close() error {
	p.CloseInput()
	return p.Wait()
}

// Pid is the server's process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LockedBuffer is a bytes.Buffer safe for a process to write while
// another goroutine reads it (a server's stderr).
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Bytes returns a copy of what was written so far.
func (l *LockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.buf.Bytes())
}
