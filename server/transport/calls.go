package transport

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// calls tracks the messages being handled, a tool call's among them, for
// the shutdown (Transport.Stop and Transport.Wait). Every call's context
// ends when stopping does (each transport links it: ServeStdio its
// session's, the HTTP handler each request's), and once Stop has run no
// new message is handled.
type calls struct {
	mu       sync.Mutex
	stopped  bool
	running  int
	idle     chan struct{} // closed once stopped with nothing running
	stopping context.Context
	stop     context.CancelFunc
}

func newCalls() *calls {
	c := &calls{idle: make(chan struct{})}
	c.stopping, c.stop = context.WithCancel(context.Background())
	return c
}

// begin counts a message as being handled, or reports false after Stop.
func (c *calls) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false
	}
	c.running++
	return true
}

// end is the end of a message that begin counted.
func (c *calls) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running--
	if c.stopped && c.running == 0 {
		close(c.idle)
	}
}

// handle answers one message that readMessage took (not a response) in
// its session's context, under recoverCall (a panic in the tool or the
// dispatch is answered -32603 and logged, and the session goes on
// serving), counted as being handled until it returns (Wait). After Stop
// it answers without running anything (refused).
func (tr *Transport) handle(ctx context.Context, p *peer, m *inbound) (resp mcp.JSONRPCMessage) {
	if !tr.calls.begin() {
		return refused(m)
	}
	defer tr.calls.end()
	defer tr.recoverCall(m, &resp)
	return tr.route(ctx, p, m)
}

// Stop makes the transport take no more messages: every message read from
// now on, over stdio or HTTP, is answered with JSON-RPC error -32000
// ("the server is shutting down"; a notification, with nothing). It
// cancels the context of every message being handled and returns how
// many there are. A call that is writing a file does not stop for that:
// it finishes or cleans up (SPEC section 9); a call that waits on
// something, such as a running command, ends it and returns. Stop may be
// called more than once.
func (tr *Transport) Stop() (inFlight int) {
	c := tr.calls
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.stopped = true
		c.stop()
		if c.running == 0 {
			close(c.idle)
		}
	}
	return c.running
}

// Wait waits, after Stop, until no message is being handled, or until ctx
// is done: then it returns an error that says how many still are. The
// server's shutdown (SIGINT, SIGTERM) is Stop, then Wait with a bound.
func (tr *Transport) Wait(ctx context.Context) error {
	select {
	case <-tr.calls.idle:
		return nil
	case <-ctx.Done():
		tr.calls.mu.Lock()
		n := tr.calls.running
		tr.calls.mu.Unlock()
		if n == 0 {
			return nil
		}
		return fmt.Errorf("%d %s still running: %w", n, plural(n, "call", "calls"), context.Cause(ctx))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shuttingDown is the JSON-RPC code of refused's error.
const shuttingDown = -32000

// refused is the answer to a message read after Stop: an error for a
// request, nothing for a notification.
func refused(m *inbound) mcp.JSONRPCMessage {
	if !m.request() {
		return nil
	}
	return rpcError(m.errorID(), shuttingDown, "the server is shutting down: it takes no more calls")
}
