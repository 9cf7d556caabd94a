package transport

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// Config is what a transport serves: the server's identity and
// instructions, its tools, and the state each client session gets.
type Config struct {
	// Name and Version identify the server (serverInfo).
	Name, Version string
	// Instructions are sent with initialize's and server/discover's
	// answers.
	Instructions string
	// Tools are the tools served, each under its unique name; tools/list
	// lists them sorted by name. They must not change while the transport
	// serves.
	Tools []Tool
	// NewSession returns the state of a new client session: one for the
	// stdio connection, one per MCP session over HTTP.
	NewSession func() Session
	// MaxMessageBytes caps one message (--max-message-bytes).
	MaxMessageBytes int64
	// IdleTimeout ends an HTTP session idle this long (--idle-timeout); 0
	// never does.
	IdleTimeout time.Duration
	// StepGap is --step-gap: a tool call that reaches an idle session at
	// least this long after its last tool-call answer begins a step
	// (Call.NewStep, stepgap.go); 0 never does.
	StepGap time.Duration
	// Log is where recovered panics are logged, with their stacks; nil:
	// stderr.
	Log io.Writer
}

// A Tool is one tool the transport serves: its definition, as tools/list
// shows it, and its handler.
type Tool struct {
	Tool    mcp.Tool
	Handler Handler
}

// A Handler runs one call of its tool and returns the answer: a tool
// result, an error the caller can act on included (SPEC section 8). An
// error is an internal fault, answered with JSON-RPC -32603 and its text,
// and so is a nil result. ctx is the call's: it carries the session's
// state (Session.Bind) and is done when a notifications/cancelled names
// the call, when the session ends, or when the transport stops (Stop).
type Handler func(ctx context.Context, call Call) (*mcp.CallToolResult, error)

// A Call is one tools/call as the transport read it.
type Call struct {
	// Arguments is the call's "arguments" member, a value of the index
	// that the one reading of the message built (its bytes exactly as the
	// client sent them); the zero Sub when the call has none.
	Arguments jsontape.Sub
	// ProgressToken is params._meta.progressToken, nil when absent: the
	// token of the notifications/progress that Notify sends for the call.
	ProgressToken mcp.ProgressToken
	// NewStep says that the call came after a pause of at least
	// Config.StepGap (stepgap.go): a step begins before it runs.
	NewStep bool
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
// HTTP (ListenAndServeHTTP): it reads every message once (readMessage),
// answers each method itself (dispatch.go), and encodes the answers
// (AppendMessage).
type Transport struct {
	cfg   Config
	tools map[string]*Tool // by name
	list  []mcp.Tool       // tools/list's, sorted by name
	calls *calls           // the messages being handled, for Stop and Wait

	// readAheadFull, when set, is called as a stdio reader starts waiting
	// for room for the message in its hand (tests: to act once the
	// read-ahead is full).
	readAheadFull func()
}

// New returns a transport of cfg.
func New(cfg Config) *Transport {
	tr := &Transport{cfg: cfg, tools: make(map[string]*Tool, len(cfg.Tools)), calls: newCalls()}
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		tr.tools[t.Tool.Name] = t
		tr.list = append(tr.list, t.Tool)
	}
	slices.SortFunc(tr.list, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return tr
}
