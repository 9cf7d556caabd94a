package transport

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// A client's notifications/cancelled is not a tool call: the transport
// acts on it at once, even while the session's other calls wait for
// their turn (SPEC section 2). Each request of a session is registered
// here by its id as it is read, with the cancel function of its context,
// until it is answered; a cancellation that names it cancels that context
// (a running run ends its command, SPEC section 10; a call still waiting
// for its turn finds its context ended when it starts). The transport owns
// this for both paths: mcp-go keeps its own table for the calls it runs,
// but plain calls never reach it, and every call's context derives from
// the one registered here. The cancellation itself goes no further.

// inflight are the requests of one session being served, by id.
type inflight struct {
	mu   sync.Mutex
	byID map[string][]*context.CancelFunc
}

// start registers a request with the given id (as written) and returns
// its context, which a cancellation of that id ends, and the function that
// unregisters it once it is answered.
func (c *inflight) start(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key, ok := idKey(id)
	if !ok {
		return ctx, cancel
	}
	ref := &cancel
	c.mu.Lock()
	if c.byID == nil {
		c.byID = map[string][]*context.CancelFunc{}
	}
	c.byID[key] = append(c.byID[key], ref)
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		list := c.byID[key]
		for i, r := range list {
			if r == ref {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(c.byID, key)
		} else {
			c.byID[key] = list
		}
		c.mu.Unlock()
		cancel()
	}
}

// cancel ends the contexts of the requests whose id is key (ids should be
// unique among requests in flight; a client that reuses one cancels all).
func (c *inflight) cancel(key string) {
	c.mu.Lock()
	list := c.byID[key]
	c.mu.Unlock()
	for _, cancel := range list {
		(*cancel)()
	}
}

// cancelAll ends the contexts of every request of the session: it ended
// (DELETE, the server's shutdown), and no one waits for their answers.
func (c *inflight) cancelAll() {
	c.mu.Lock()
	var all []*context.CancelFunc
	for _, list := range c.byID {
		all = append(all, list...)
	}
	c.mu.Unlock()
	for _, cancel := range all {
		(*cancel)()
	}
}

// cancellation reports whether m is a notifications/cancelled, and the key
// of the request it names (ok false when it names none that can be in
// flight). Its reason, if any, changes nothing.
func cancellation(m *inbound) (key string, isCancel, ok bool) {
	if m.method != string(mcp.MethodNotificationCancelled) || m.id != nil || m.idSpan.Present() {
		return "", false, false
	}
	if !m.params.Present() {
		return "", true, false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.body[m.params.Start:m.params.End], &p) != nil {
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
