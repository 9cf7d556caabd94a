package transport

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// A client's notifications/cancelled is not a tool call: the transport
// acts on it at once, even while the session's other calls wait for
// their turn (SPEC section 2). Each request of a session is registered
// here as it is read, until it is answered; a cancellation that names its
// id ends its context (a running run ends its command, SPEC section 10; a
// call still waiting for its turn finds its context ended when it
// starts). The cancellation itself goes no further.

// inflight are the requests of one session read and not yet answered.
type inflight struct {
	mu   sync.Mutex
	list []*pending
}

// pending is one request of inflight.
type pending struct {
	id        json.RawMessage    // as written
	cancelled bool               // a cancellation named it
	cancel    context.CancelFunc // ends its context, once it started
}

// add registers p, a request just read.
func (f *inflight) add(p *pending) {
	f.mu.Lock()
	f.list = append(f.list, p)
	f.mu.Unlock()
}

// start returns the context of p's call, derived from ctx: ended already
// when a cancellation named p while it waited for its turn.
func (f *inflight) start(ctx context.Context, p *pending) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	p.cancel = cancel
	cancelled := p.cancelled
	f.mu.Unlock()
	if cancelled {
		cancel()
	}
	return ctx
}

// remove unregisters p, answered, and ends its context.
func (f *inflight) remove(p *pending) {
	f.mu.Lock()
	if i := slices.Index(f.list, p); i >= 0 {
		f.list = slices.Delete(f.list, i, i+1)
	}
	f.mu.Unlock()
	if p.cancel != nil {
		p.cancel()
	}
}

// cancel ends the contexts of the requests whose id is key (ids should be
// unique among requests in flight; a client that reuses one cancels all).
// Ids are compared only here, by their keys: a cancellation is rare, the
// registration of every request is not.
func (f *inflight) cancel(key string) {
	f.cancelWhere(func(p *pending) bool { k, ok := idKey(p.id); return ok && k == key })
}

// cancelAll ends the contexts of every request of the session: it ended
// (DELETE, the server's shutdown), and no one waits for their answers.
func (f *inflight) cancelAll() { f.cancelWhere(func(*pending) bool { return true }) }

func (f *inflight) cancelWhere(match func(*pending) bool) {
	var ends []context.CancelFunc
	f.mu.Lock()
	for _, p := range f.list {
		if match(p) {
			p.cancelled = true
			if p.cancel != nil {
				ends = append(ends, p.cancel)
			}
		}
	}
	f.mu.Unlock()
	for _, end := range ends {
		end()
	}
}

// cancellation reports whether m is a notifications/cancelled, and the key
// of the request it names (ok false when it names none that can be in
// flight). Its reason, if any, changes nothing.
func cancellation(m *inbound) (key string, isCancel, ok bool) {
	if m.method != string(mcp.MethodNotificationCancelled) || m.id != nil {
		return "", false, false
	}
	if !m.params.Present() {
		return "", true, false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.params.Bytes(), &p) != nil {
		return "", true, false
	}
	key, ok = idKey(p.RequestID)
	return key, true, ok
}

// idKey is the key of a request id: equal for ids that are the same JSON
// value (a string, or a number whatever its spelling: 1, 1.0 and 1e0 are
// one id).
func idKey(id json.RawMessage) (string, bool) {
	if len(id) == 0 {
		return "", false
	}
	switch id[0] {
	case '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, _, err := big.ParseFloat(string(id), 10, 256, big.ToNearestEven)
		if err != nil {
			return "", false
		}
		return "n" + f.Text('g', -1), true
	}
	return "", false
}

// A notifier sends a notification to the client of one request while the
// request runs.
type notifier interface {
	notify(n mcp.JSONRPCNotification) bool
}

type notifierKey struct{}

// withNotifier returns ctx carrying the request's notifier.
func withNotifier(ctx context.Context, n notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, n)
}

// Notify sends n to the client of the request that ctx serves, while the
// request runs: over stdio at once, as its own line before the request's
// answer; over HTTP as an event of the request's answer, which becomes an
// SSE stream (when the client accepts text/event-stream). It reports
// whether n was sent. The caller must not call it once the request's
// handler has returned.
func Notify(ctx context.Context, n mcp.JSONRPCNotification) bool {
	nf, _ := ctx.Value(notifierKey{}).(notifier)
	return nf != nil && nf.notify(n)
}
