package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// What the transport's tests (package transport_test, which also imports
// server for real tools) reach inside the package for.

const SessionHeader = sessionHeader

type (
	Inbound       = inbound
	HTTPTransport = HTTPHandler
	HTTPSession   = httpSession
	Stopper       = stopper
)

var (
	ReadMessage  = readMessage
	Oversize     = oversize
	IsNilMessage = isNilMessage
	RPCError     = rpcError
)

func (m *inbound) Response() bool      { return m.response }
func (m *inbound) Args() []byte        { return subBytes(m.args) }
func (m *inbound) ID() json.RawMessage { return m.id }
func (m *inbound) Method() string      { return m.method }
func (m *inbound) Tool() string        { return m.tool }
func (m *inbound) Body() []byte        { return m.body }

// subBytes is a value's bytes, nil when absent.
func subBytes(s interface {
	Present() bool
	Bytes() []byte
}) []byte {
	if !s.Present() {
		return nil
	}
	return s.Bytes()
}

// WithTools returns a transport of the same configuration with more tools
// (faulty ones, in tests).
func (tr *Transport) WithTools(extra ...Tool) *Transport {
	cfg := tr.cfg
	cfg.Tools = append(append([]Tool(nil), cfg.Tools...), extra...)
	return New(cfg)
}

// TestSession is what a test needs to answer messages as one stdio session
// does, one at a time: the transport, the session's context, the notes
// its calls sent.
type TestSession struct {
	tr    *Transport
	ctx   context.Context
	peer  *peer
	notes *noteList
}

// StdioContext returns a session of tr as ServeStdio makes one, bound to a
// new session state that closes when the test ends, whose calls'
// notifications are kept for Notes.
func (tr *Transport) StdioContext(t testing.TB) *TestSession {
	state := tr.cfg.NewSession()
	t.Cleanup(state.Close)
	notes := &noteList{}
	// As ServeStdio's, the calls' contexts end with Stop.
	calls, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(tr.calls.stopping, cancel)
	t.Cleanup(func() { stop(); cancel() })
	return &TestSession{tr: tr, ctx: state.Bind(withNotifier(calls, notes)), peer: &peer{versions: mcp.ValidProtocolVersions}, notes: notes}
}

// Handle is the session's answer to one message it read.
func (s *TestSession) Handle(m inbound) mcp.JSONRPCMessage { return s.tr.handle(s.ctx, s.peer, &m) }

// Notes returns the notifications sent since the last call, and forgets
// them.
func (s *TestSession) Notes() []mcp.JSONRPCNotification { return s.notes.take() }

// noteList is a notifier that keeps what it is sent.
type noteList struct {
	mu   sync.Mutex
	list []mcp.JSONRPCNotification
}

func (l *noteList) notify(n mcp.JSONRPCNotification) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, n)
	return true
}

func (l *noteList) take() []mcp.JSONRPCNotification {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.list
	l.list = nil
	return out
}

// SetClock replaces the idle timer and the clock.
func (t *HTTPHandler) SetClock(after func(time.Duration, func()) stopper, now func() time.Time) {
	if after != nil {
		t.afterFunc = after
	}
	if now != nil {
		t.now = now
	}
}

// SetReadingBody sets the hook called as a POST starts reading its body.
func (t *HTTPHandler) SetReadingBody(f func(*http.Request)) { t.readingBody = f }

// Session is the live session id, or nil.
func (t *HTTPHandler) Session(id string) *httpSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[id]
}

// Sessions counts the live sessions.
func (t *HTTPHandler) Sessions() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// Active counts the requests of sess being served.
func (t *HTTPHandler) Active(sess *httpSession) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return sess.active
}

func (s *httpSession) ID() string     { return s.id }
func (s *httpSession) State() Session { return s.state }
