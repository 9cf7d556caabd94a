package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServeStdio serves one briefing over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done (SPEC section 2). Messages are handled
// one at a time, in the order they are read, each answered before the next
// is read, so at the end of input every request read has been answered. A
// message over --max-message-bytes, counted without its final "\n" or
// "\r\n", is answered with JSON-RPC -32600 and id null, and serving goes on.
// After Stop, a message read is answered with -32000 (refused). When ctx
// is done, it returns once the message being handled is answered.
func (tr *Transport) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := &stdioSession{notes: make(chan mcp.JSONRPCNotification, 64)}
	if err := tr.cfg.MCP.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register stdio session: %w", err)
	}
	defer tr.cfg.MCP.UnregisterSession(ctx, sess.SessionID())
	state := tr.cfg.NewSession()
	defer state.Close()
	ctx = state.Bind(tr.cfg.MCP.WithContext(ctx, sess))

	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	limit := tr.cfg.MaxMessageBytes
	for ctx.Err() == nil {
		line, size, err := readLine(r, limit)
		if len(bytes.TrimSpace(line)) > 0 || size > limit {
			msg, resp := tr.stdioAnswer(ctx, line, size, limit)
			if err := tr.writeMessages(w, &msg, resp, sess.notes); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// stdioAnswer reads one line's message and answers it; msg is the zero
// inbound when the line is not a message readMessage took. A panic is
// answered with -32603 (recoverCall).
func (tr *Transport) stdioAnswer(ctx context.Context, line []byte, size, limit int64) (msg inbound, resp mcp.JSONRPCMessage) {
	defer tr.recoverCall(&msg, &resp)
	if size > limit {
		return inbound{}, oversize(size, limit)
	}
	m, bad := readMessage(line)
	if bad != nil {
		return inbound{}, *bad
	}
	if m.response {
		return m, nil
	}
	return m, tr.handle(ctx, m)
}

// readLine reads one line and returns it without its final "\n" or "\r\n",
// and its size so counted. A line over limit is read to its end but not
// kept: its size alone tells the caller to refuse it.
//
// A long line comes in chunks of the reader's buffer; they are copied as
// they come and joined once at the end, into a slice of the line's size:
// growing one slice by append would allocate some five times the line
// (large slices grow by a quarter) before the message is even read.
func readLine(r *bufio.Reader, limit int64) (line []byte, size int64, err error) {
	var last2 [2]byte // the line's last two bytes, kept or not
	var parts [][]byte
	for {
		var chunk []byte
		chunk, err = r.ReadSlice('\n')
		size += int64(len(chunk))
		keep := size <= limit+2
		for _, c := range chunk[max(0, len(chunk)-2):] {
			last2 = [2]byte{last2[1], c}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if keep {
				parts = append(parts, bytes.Clone(chunk))
			}
			continue
		}
		if keep {
			line = make([]byte, 0, size)
			for _, p := range parts {
				line = append(line, p...)
			}
			line = append(line, chunk...)
		}
		break
	}
	if size > 0 && last2[1] == '\n' {
		size--
		if size > 0 && last2[0] == '\r' {
			size--
		}
	}
	if size > limit {
		return nil, size, err
	}
	return line[:size], size, err
}

// oversize is the answer to a message over the limit.
func oversize(size, limit int64) mcp.JSONRPCError {
	return mcp.JSONRPCError{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(nil),
		Error: mcp.NewJSONRPCErrorDetails(mcp.INVALID_REQUEST,
			fmt.Sprintf("message of %d bytes is over the %d-byte limit (--max-message-bytes)", size, limit), nil),
	}
}

// writeMessages writes resp, the answer to msg, when there
// is one, and any notifications queued meanwhile, one line each, and
// flushes. Each message is encoded into the writer's free space when it
// fits (appendMessage: json.Marshal's bytes); an answer whose encoding
// fails or panics is written as -32603 (encodeAnswer). Only a failure to
// write is an error.
func (tr *Transport) writeMessages(w *bufio.Writer, msg *inbound, resp any, notes <-chan mcp.JSONRPCNotification) error {
	write := func(v any) error {
		b := tr.encodeAnswer(w.AvailableBuffer(), msg, v)
		if len(b) == 0 {
			return nil
		}
		_, err := w.Write(append(b, '\n'))
		return err
	}
	if resp != nil && !isNilMessage(resp) {
		if err := write(resp); err != nil {
			return err
		}
	}
	for {
		select {
		case n := <-notes:
			if err := write(n); err != nil {
				return err
			}
		default:
			return w.Flush()
		}
	}
}

// isNilMessage reports a nil mcp.JSONRPCMessage inside an any: the answer
// to a notification.
func isNilMessage(v any) bool {
	m, ok := v.(mcp.JSONRPCMessage)
	return ok && m == nil
}

// stdioSession is the one client session of a stdio server.
type stdioSession struct {
	logLevel
	notes       chan mcp.JSONRPCNotification
	initialized atomic.Bool
}

func (s *stdioSession) SessionID() string                                   { return "stdio" }
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }
func (s *stdioSession) Initialize()                                         { s.initialized.Store(true) }
func (s *stdioSession) Initialized() bool                                   { return s.initialized.Load() }

// logLevel keeps the level a session set with logging/setLevel. The server
// sends no log messages (it logs to stderr), so the level changes nothing.
type logLevel struct{ v atomic.Value }

func (l *logLevel) SetLogLevel(level mcp.LoggingLevel) { l.v.Store(level) }

func (l *logLevel) GetLogLevel() mcp.LoggingLevel {
	if v, ok := l.v.Load().(mcp.LoggingLevel); ok {
		return v
	}
	return mcp.LoggingLevelError
}
