package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServeStdio serves one session over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done (SPEC section 2).
//
// Messages are handled one at a time, in the order read, each answered
// before the next is handled; at the end of input every request read is
// answered. Reading goes on while a call runs (from readAheadAfter into
// it: a call that ends sooner has nothing to cancel), so that a
// notifications/cancelled is seen and acted on at once (inflight.cancel),
// even while the session's other calls wait. What is read ahead is
// bounded (stdioConn.budget): past that, reading waits for the messages
// read to be answered. A message over --max-message-bytes, counted
// without its final "\n" or "\r\n", is answered with JSON-RPC -32600 and
// id null, and serving goes on.
//
// Notifications a call sends as it runs (Notify: run's progress) are
// written at once, each a line, before the call's answer. After Stop, a
// message read is answered with -32000 (refused). When ctx is done, it
// returns once the message being handled is answered.
func (tr *Transport) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	state := tr.cfg.NewSession()
	defer state.Close()
	// The calls' contexts end with ctx and with Stop.
	calls, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(tr.calls.stopping, cancel)()
	w := &stdioWriter{tr: tr, w: bufio.NewWriterSize(out, 64<<10)}
	c := &stdioConn{
		tr:       tr,
		r:        bufio.NewReaderSize(in, 64<<10),
		w:        w,
		base:     state.Bind(withNotifier(calls, w)),
		peer:     &peer{versions: mcp.ValidProtocolVersions},
		gaps:     &stepClock{gap: tr.cfg.StepGap},
		budget:   max(tr.cfg.MaxMessageBytes, 1<<20),
		finished: make(chan struct{}),
	}
	c.turn.L, c.room.L, c.idle.L = &c.mu, &c.mu, &c.mu
	c.long = time.AfterFunc(time.Hour, c.longCall)
	c.long.Stop()
	defer c.long.Stop()
	go c.work()
	go c.work()
	select {
	case <-c.finished:
		return c.err
	case <-ctx.Done():
		c.halt()
		return nil
	}
}

// readAheadAfter is how long a call runs before reading goes on beside it.
// A call that ends sooner, as a lookup does, is read, run and answered by
// one goroutine, with no other woken: waking one for every message would
// cost more than the lookup. A cancellation is acted on at most this late
// into a call.
const readAheadAfter = time.Millisecond

// stdioConn is the stdio session. Two workers take turns at reading the
// input: the one that reads a message while none is handled handles it at
// once, and reads the next one when it is done, so that a call runs where
// it was read, with no hand-off between reading and answering. A call
// that runs past readAheadAfter gives the reading to the other worker
// (longCall), which reads on beside it: a cancellation is acted on as it
// is read, and any other message waits in the queue, handled in its turn
// by the worker handling.
type stdioConn struct {
	tr   *Transport
	r    *bufio.Reader
	w    *stdioWriter
	base context.Context // the session's: its state, notifier, and the calls' end
	peer *peer
	reqs inflight    // the requests read and not yet answered
	gaps *stepClock  // the tool calls' reads and answers, for --step-gap
	long *time.Timer // longCall, armed while a message is handled

	mu        sync.Mutex
	turn      sync.Cond // a worker may read: reading ended, readAhead set, reading ends
	room      sync.Cond // held went down
	idle      sync.Cond // handling ended
	reading   bool      // a worker is reading
	handling  bool      // a worker is handling messages
	readAhead bool      // the message being handled runs long: read on beside it
	gen       uint64    // counts the messages handled, for longCall
	queue     []*stdioItem
	held      int64 // the weight of the messages queued or being handled
	budget    int64 // what held may reach before reading waits (at least one message is always taken)
	readErr   error // what ended reading (io.EOF at the end of input); nil while it goes on
	halted    bool  // ctx is done, or writing failed: no message is handled any more
	err       error // what ServeStdio returns
	finished  chan struct{}
	done      bool // finished is closed
}

// stdioItem is one message read, waiting for its turn.
type stdioItem struct {
	msg      inbound
	resp     mcp.JSONRPCMessage // its answer, when reading it made one (answered)
	answered bool
	req      *pending // a request's registration in reqs; nil for any other message
	call     bool     // a tool call that steps counted (arrive): its answer is counted too
	weight   int64
}

// work is one worker: it reads when it is its turn, and handles what it
// read when no other worker is handling, until reading has ended and every
// message read is answered, or the connection is halted.
func (c *stdioConn) work() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for !c.over() && (c.reading || c.handling && !c.readAhead) {
			c.turn.Wait()
		}
		if c.over() {
			c.finish()
			return
		}
		c.reading = true
		c.mu.Unlock()
		it, err := c.read()
		c.mu.Lock()
		if it != nil {
			// Bounded read-ahead: the message waits in hand, and no other
			// is read, until what is held leaves it room.
			if c.held > 0 && c.held+it.weight > c.budget && c.tr.readAheadFull != nil {
				c.tr.readAheadFull()
			}
			for c.held > 0 && c.held+it.weight > c.budget && !c.halted {
				c.room.Wait()
			}
			c.held += it.weight
			c.queue = append(c.queue, it)
		}
		c.reading = false
		if err != nil {
			c.readErr = err
			c.turn.Broadcast()
		}
		if c.handling {
			// Read beside a long call: it is handled in its turn. The
			// other worker, handling, reads next when it is done.
			continue
		}
		c.handle()
	}
}

// over reports that the workers are done: reading ended, or the
// connection is halted.
func (c *stdioConn) over() bool { return c.readErr != nil || c.halted }

// handle answers the queued messages in order, until none is left; c.mu
// is held, and released while each is answered.
func (c *stdioConn) handle() {
	c.handling = true
	for len(c.queue) > 0 && !c.halted {
		it := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.gen++
		c.long.Reset(readAheadAfter)
		c.mu.Unlock()
		err := c.handleAndWrite(it)
		c.mu.Lock()
		c.long.Stop()
		c.readAhead = false
		c.held -= it.weight
		if err != nil && c.err == nil {
			c.err, c.halted = err, true
			c.turn.Broadcast()
		}
		c.room.Broadcast()
	}
	if len(c.queue) == 0 {
		c.queue = c.queue[:0:0] // the array goes with the messages it held
	}
	c.handling = false
	c.idle.Broadcast()
}

// longCall gives the reading to the worker not handling, when the message
// being handled runs past readAheadAfter.
func (c *stdioConn) longCall() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handling && !c.readAhead {
		c.readAhead = true
		c.turn.Broadcast()
	}
}

// finish closes finished once reading has ended and every message read is
// answered, or the connection is halted; c.mu is held.
func (c *stdioConn) finish() {
	if c.done || c.handling || len(c.queue) > 0 && !c.halted {
		return
	}
	if c.err == nil && c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
		c.err = c.readErr
	}
	c.done = true
	close(c.finished)
}

// halt stops handling messages (ctx is done) and returns once the message
// being handled, if any, is answered.
func (c *stdioConn) halt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.halted = true
	c.turn.Broadcast()
	c.room.Broadcast()
	for c.handling {
		c.idle.Wait()
	}
}

// read reads one line and returns its message (nil for a blank line), a
// cancellation acted on already included, and the error that ended the
// input, if it did.
func (c *stdioConn) read() (*stdioItem, error) {
	limit := c.tr.cfg.MaxMessageBytes
	line, size, err := readLine(c.r, limit)
	now := time.Now()
	if len(bytes.TrimSpace(line)) == 0 && size <= limit {
		return nil, err
	}
	it := c.tr.stdioRead(line, size, limit)
	if key, isCancel, ok := cancellation(&it.msg); isCancel && !it.answered {
		if ok {
			c.reqs.cancel(key)
		}
		return nil, err
	}
	if it.msg.request() && !it.answered {
		it.req = &pending{id: it.msg.id}
		c.reqs.add(it.req)
		if c.tr.isToolCall(&it.msg) {
			it.call = true
			it.msg.newStep = c.gaps.arrive(now)
		}
	}
	return it, err
}

// handleAndWrite handles one message read (unless it was answered as it
// was read) and writes its answer.
func (c *stdioConn) handleAndWrite(it *stdioItem) error {
	msg, resp := it.msg, it.resp
	if !it.answered {
		ctx := c.base
		if it.req != nil {
			ctx = c.reqs.start(ctx, it.req)
		}
		resp = c.tr.handle(ctx, c.peer, &msg)
		if it.req != nil {
			c.reqs.remove(it.req)
		}
	}
	err := c.w.writeResponse(&msg, resp)
	if it.call {
		c.gaps.answered(time.Now())
	}
	return err
}

// stdioRead reads one line's message: msg is the zero inbound, and the
// item answered, when the line is not a message readMessage took. A panic
// is answered with -32603 (recoverCall).
func (tr *Transport) stdioRead(line []byte, size, limit int64) (it *stdioItem) {
	it = &stdioItem{answered: true, weight: size + itemOverhead}
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
	it.weight = m.weight + itemOverhead
	it.answered = m.response // a response to the server: nothing to answer
	return it
}

// itemOverhead is what each message read counts beside its bytes and its
// index.
const itemOverhead = 512

// stdioWriter writes the answers and notifications of a stdio session,
// one line each, from the call's goroutine.
type stdioWriter struct {
	tr  *Transport
	mu  sync.Mutex
	w   *bufio.Writer
	err error // the first failure to write: nothing is written after it
}

// writeResponse writes resp, the answer to msg, when there is one, and flushes.
func (s *stdioWriter) writeResponse(msg *inbound, resp any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && resp != nil && !isNilMessage(resp) {
		s.err = s.tr.writeMessage(s.w, msg, resp)
	}
	return s.err
}

// notify writes a notification of a running call at once.
func (s *stdioWriter) notify(n mcp.JSONRPCNotification) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		// As a notification's: a panic while encoding it writes nothing.
		s.err = s.tr.writeMessage(s.w, &inbound{body: []byte{}, method: n.Method}, n)
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

// writeMessage writes resp, the answer to msg, as one line and flushes.
// It is encoded into the writer's free space when it fits
// (AppendMessage: json.Marshal's bytes); an answer whose encoding fails or
// panics is written as -32603 (encodeAnswer). Only a failure to write is
// an error.
func (tr *Transport) writeMessage(w *bufio.Writer, msg *inbound, resp any) error {
	b := tr.encodeAnswer(w.AvailableBuffer(), msg, resp)
	if len(b) > 0 {
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return w.Flush()
}

// isNilMessage reports a nil mcp.JSONRPCMessage inside an any: the answer
// to a notification.
func isNilMessage(v any) bool {
	m, ok := v.(mcp.JSONRPCMessage)
	return ok && m == nil
}
