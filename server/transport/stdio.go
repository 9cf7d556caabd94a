package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServeStdio serves one briefing over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done (SPEC section 2).
//
// Reading goes on while a call runs, so that a notifications/cancelled
// is seen and acted on at once (calls.cancel), even while the briefing's
// other calls wait; every other message is queued and handled one at a
// time, in the order read, each answered before the next is handled. At
// the end of input every request read is answered. What is queued is
// bounded (stdioQueue): past that, reading waits for the queue to drain.
// A message over --max-message-bytes, counted without its final "\n" or
// "\r\n", is answered with JSON-RPC -32600 and id null, and serving goes
// on.
//
// Notifications a call sends as it runs (Notify: run's progress) are
// written at once, each a line, before the call's answer. After Stop, a
// message read is answered with -32000 (refused). When ctx is done, it
// returns once the message being handled is answered.
func (tr *Transport) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := &stdioSession{notes: make(chan mcp.JSONRPCNotification, 64)}
	if err := tr.cfg.MCP.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register stdio session: %w", err)
	}
	defer tr.cfg.MCP.UnregisterSession(ctx, sess.SessionID())
	state := tr.cfg.NewSession()
	defer state.Close()
	ctx = state.Bind(tr.cfg.MCP.WithContext(ctx, sess))
	w := &stdioWriter{tr: tr, w: bufio.NewWriterSize(out, 64<<10), notes: sess.notes}
	ctx = withNotifier(ctx, w)

	q := newStdioQueue(tr.cfg.MaxMessageBytes)
	read := make(chan error, 1)
	go func() { read <- tr.readStdio(ctx, in, q, &sess.inflight) }()
	for {
		it, ok := q.next(ctx)
		if !ok {
			break
		}
		msg, resp := it.msg, it.resp
		if !it.answered {
			msg, resp = tr.stdioAnswer(it.ctx, it.msg)
		}
		it.done()
		q.release(it)
		if err := w.answer(&msg, resp); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := <-read; !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// readStdio reads messages from in until it ends, ctx is done or the
// queue is closed: each cancellation is acted on as it is read, every
// other message is queued, a request with its own context registered in
// calls. The queue is closed when reading ends, which returns the error
// that ended it (io.EOF at the end of input).
func (tr *Transport) readStdio(ctx context.Context, in io.Reader, q *stdioQueue, calls *inflight) error {
	defer q.close()
	r := bufio.NewReaderSize(in, 64<<10)
	limit := tr.cfg.MaxMessageBytes
	for ctx.Err() == nil {
		line, size, err := readLine(r, limit)
		if len(bytes.TrimSpace(line)) > 0 || size > limit {
			it := tr.stdioRead(line, size, limit)
			if key, isCancel, ok := cancellation(&it.msg); isCancel && !it.answered {
				if ok {
					calls.cancel(key)
				}
			} else {
				it.ctx, it.done = ctx, func() {}
				if it.msg.request() && !it.answered {
					it.ctx, it.done = calls.start(ctx, it.msg.id)
				}
				if !q.put(ctx, it, int64(len(line))) {
					it.done()
					return ctx.Err()
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// stdioItem is one message read, waiting for its turn.
type stdioItem struct {
	msg      inbound
	resp     mcp.JSONRPCMessage // its answer, when reading it made one (answered)
	answered bool
	ctx      context.Context // the context to handle it in
	done     func()          // unregisters a request once answered
	weight   int64
}

// stdioRead reads one line's message: msg is the zero inbound, and the
// item answered, when the line is not a message readMessage took. A panic
// is answered with -32603 (recoverCall).
func (tr *Transport) stdioRead(line []byte, size, limit int64) (it stdioItem) {
	it.answered = true
	defer tr.recoverCall(&it.msg, &it.resp)
	if size > limit {
		it.resp = oversize(size, limit)
		return it
	}
	m, bad := readMessage(line)
	if bad != nil {
		it.resp = *bad
		return it
	}
	it.msg = m
	it.answered = m.response // a response to the server: nothing to answer
	return it
}

// stdioAnswer answers one message that readMessage took.
func (tr *Transport) stdioAnswer(ctx context.Context, m inbound) (msg inbound, resp mcp.JSONRPCMessage) {
	defer tr.recoverCall(&m, &resp)
	return m, tr.handle(ctx, m)
}

// stdioQueue holds the messages read and not yet handled, in order. It
// holds at most --max-message-bytes of them (each counted with an
// allowance for its bookkeeping), and always at least one message, so that
// a client writing ahead cannot make the server keep more than about one
// message's worth beside the one being handled.
type stdioQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []stdioItem
	held   int64 // the weight of the items queued or being handled
	budget int64
	closed bool
}

// itemOverhead is what each queued message counts beside its bytes.
const itemOverhead = 512

func newStdioQueue(budget int64) *stdioQueue {
	q := &stdioQueue{budget: max(budget, 1<<20)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// put queues it, waiting while the queue holds its budget; false when ctx
// ended first.
func (q *stdioQueue) put(ctx context.Context, it stdioItem, size int64) bool {
	it.weight = min(size+itemOverhead, q.budget)
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.held > 0 && q.held+it.weight > q.budget && ctx.Err() == nil {
		q.cond.Wait()
	}
	if ctx.Err() != nil {
		return false
	}
	q.held += it.weight
	q.items = append(q.items, it)
	q.cond.Broadcast()
	return true
}

// next returns the next message, waiting for one; false once the queue
// is closed and empty, or ctx is done.
func (q *stdioQueue) next(ctx context.Context) (stdioItem, bool) {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed && ctx.Err() == nil {
		q.cond.Wait()
	}
	if len(q.items) == 0 || ctx.Err() != nil {
		return stdioItem{}, false
	}
	it := q.items[0]
	q.items[0] = stdioItem{}
	q.items = q.items[1:]
	return it, true
}

// release gives back the weight of a message handled.
func (q *stdioQueue) release(it stdioItem) {
	q.mu.Lock()
	q.held -= it.weight
	q.cond.Broadcast()
	q.mu.Unlock()
}

// close ends the queue: next returns what is left, then false.
func (q *stdioQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// stdioWriter writes the answers and notifications of a stdio session,
// one line each, from the call's goroutine and the reader's alike.
type stdioWriter struct {
	tr    *Transport
	mu    sync.Mutex
	w     *bufio.Writer
	notes <-chan mcp.JSONRPCNotification
	err   error // the first failure to write: nothing is written after it
}

// answer writes resp, the answer to msg, and flushes (writeMessages).
func (s *stdioWriter) answer(msg *inbound, resp any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = s.tr.writeMessages(s.w, msg, resp, s.notes)
	}
	return s.err
}

// notify writes a notification of a running call at once.
func (s *stdioWriter) notify(n mcp.JSONRPCNotification) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		// As a notification's: a panic while encoding it writes nothing.
		s.err = s.tr.writeMessages(s.w, &inbound{body: []byte{}, method: n.Method}, n, s.notes)
	}
	return s.err == nil
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
	inflight    inflight // the requests read and not yet answered
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
