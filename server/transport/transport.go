package transport

import (
	"context"
	"io"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Config is what a transport serves: the MCP server, the tools of its
// direct path, and the state each client session gets.
type Config struct {
	// MCP answers every message that the direct path does not run itself
	// (Transport.handle). It must have no hooks, middleware, filters,
	// validators or tracing set: the direct path would skip them.
	MCP *mcpserver.MCPServer
	// Tools are the tools added to MCP, by name: the set the direct path
	// runs. It must not change while the transport serves.
	Tools map[string]*mcpserver.ServerTool
	// NewSession returns the state of a new client session: one for the
	// stdio connection, one per MCP session over HTTP.
	NewSession func() Session
	// MaxMessageBytes caps one message (--max-message-bytes).
	MaxMessageBytes int64
	// IdleTimeout ends an HTTP session idle this long (--idle-timeout); 0
	// never does.
	IdleTimeout time.Duration
	// Log is where recovered panics are logged, with their stacks; nil:
	// stderr.
	Log io.Writer
}

// A Session is the server's state of one client session.
type Session interface {
	// Bind returns ctx carrying the state, for a message of the session:
	// the tool handlers find it there.
	Bind(ctx context.Context) context.Context
	// Close frees the state. The transport calls it once, after the
	// session ended and none of its messages is still being served.
	Close()
}

// Transport serves one MCP server over stdio (ServeStdio) or Streamable
// HTTP (ListenAndServeHTTP). It reads every message once (readMessage),
// runs plain tool calls itself and hands every other message to mcp-go,
// and encodes the answers (appendMessage).
type Transport struct {
	cfg   Config
	calls *calls // the messages being handled, for Stop and Wait
}

// New returns a transport of cfg.
func New(cfg Config) *Transport { return &Transport{cfg: cfg, calls: newCalls()} }
