package transport

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// calls tracks the messages being handled, a tool call's among them, for
// the shutdown (Transport.Stop and Transport.Wait): each runs under a
// context of its own that Stop cancels, and once Stop has run no new one
// starts.
type calls struct {
	mu      sync.Mutex
	stopped bool
	next    uint64
	running map[uint64]context.CancelFunc
	idle    chan struct{} // closed once stopped with nothing running
}

func newCalls() *calls {
	return &calls{running: map[uint64]context.CancelFunc{}, idle: make(chan struct{})}
}

// begin starts a message under a context derived from ctx and returns its
// end, or false after Stop.
func (c *calls) begin(ctx context.Context) (context.Context, func(), bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil, nil, false
	}
	ctx, cancel := context.WithCancel(ctx)
	id := c.next
	c.next++
	c.running[id] = cancel
	return ctx, func() {
		cancel()
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.running, id)
		if c.stopped && len(c.running) == 0 {
			close(c.idle)
		}
	}, true
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
		for _, cancel := range c.running {
			cancel()
		}
		if len(c.running) == 0 {
			close(c.idle)
		}
	}
	return len(c.running)
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
		n := len(tr.calls.running)
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
func refused(m inbound) mcp.JSONRPCMessage {
	if !m.request() {
		return nil
	}
	return rpcError(m.errorID(), shuttingDown, "the server is shutting down: it takes no more calls")
}
