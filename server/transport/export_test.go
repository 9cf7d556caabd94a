package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"
)

// What the transport's tests (package transport_test, which also imports
// server for real tools) reach inside the package for.

const SessionHeader = sessionHeader

type (
	Inbound       = inbound
	HTTPTransport = HTTPHandler
	HTTPSession   = httpSession
	StdioSession  = stdioSession
	Stopper       = stopper
)

var (
	ReadMessage   = readMessage
	WithRequestID = withRequestID
	WithArguments = withArguments
	Oversize      = oversize
	IsNilMessage  = isNilMessage
	RPCError      = rpcError
)

func (m *inbound) Plain() bool                  { return m.plain }
func (m *inbound) Response() bool               { return m.response }
func (m *inbound) Args() []byte                 { return m.args }
func (m *inbound) ID() json.RawMessage          { return m.id }
func (m *inbound) Method() string               { return m.method }
func (m *inbound) Tool() string                 { return m.tool }
func (m *inbound) Call() bool                   { return m.call }
func (m *inbound) Body() []byte                 { return m.body }
func (m *inbound) MCPBody() []byte              { return m.mcpBody() }
func (tr *Transport) MCP() *mcpserver.MCPServer { return tr.cfg.MCP }

// Handle is the transport's answer to one message it read.
func (tr *Transport) Handle(ctx context.Context, m inbound) mcp.JSONRPCMessage {
	return tr.handle(ctx, m)
}

// StdioContext registers a stdio session with the MCP server and returns
// the context its messages are handled in, bound to a new session state
// that closes when the test ends, and the session's notifications.
func (tr *Transport) StdioContext(t testing.TB) (context.Context, chan mcp.JSONRPCNotification) {
	sess := &stdioSession{notes: make(chan mcp.JSONRPCNotification, 64)}
	ctx := context.Background()
	require.NoError(t, tr.cfg.MCP.RegisterSession(ctx, sess))
	state := tr.cfg.NewSession()
	t.Cleanup(state.Close)
	return state.Bind(tr.cfg.MCP.WithContext(ctx, sess)), sess.notes
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
