// Package server wires loom-results to MCP: the tool definitions, thin
// adapters from tool calls to a briefing, and the transports. It is the only
// package that imports the MCP library.
package server

import (
	"context"
	"encoding/json"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/workspace"
)

// Name and Version identify the server in the MCP handshake.
const (
	Name    = "loom-results"
	Version = "0.1.0"
)

// Options configure a server.
type Options struct {
	Limits  limits.Config
	Context briefing.Context
	Root    *workspace.Root
	Log     io.Writer // where recovered panics are logged, with their stacks; nil: stderr
	// MemorySlack, when positive, makes the runtime's soft memory limit
	// follow the stored bytes of all briefings, with this much slack for
	// garbage (results.FollowMemory); 0 leaves Go's default collector.
	MemorySlack int64
}

// DefaultMemorySlack is the command's --memory-slack.
const DefaultMemorySlack = 24 << 20

// Server is an MCP server whose briefings share one root and one
// process-wide byte quota.
type Server struct {
	opts  Options
	quota *results.Quota
	mcp   *mcpserver.MCPServer
}

// New returns a server with every tool of SPEC section 5.
func New(opts Options) *Server {
	s := &Server{opts: opts, quota: results.NewQuota(opts.Limits.MaxTotalBytes)}
	results.FollowMemory(s.quota, opts.MemorySlack)
	s.mcp = mcpserver.NewMCPServer(Name, Version,
		mcpserver.WithToolCapabilities(false),
		// logging/setLevel is accepted; the server sends no log messages (logs go to stderr).
		mcpserver.WithLogging(),
		mcpserver.WithInstructions(instructions),
	)
	for _, t := range Tools(opts.Limits) {
		s.mcp.AddTool(t.Tool, t.Handler)
	}
	return s
}

const instructions = "loom-results keeps the exact bytes of files you inspect for this session. " +
	"inspect shows a descriptor (ID, sha256, size, lines, preview); find locates lines; get_lines, get_range " +
	"and get_json return only the selection you ask for, within a per-step budget. expand_edit turns " +
	"$compose and $splice nodes into file contents so unchanged text is never written again."

// newBriefing returns a fresh briefing of this server.
func (s *Server) newBriefing() *briefing.Briefing {
	return briefing.New(briefing.Options{Limits: s.opts.Limits, Context: s.opts.Context, Root: s.opts.Root, Quota: s.quota})
}

type briefingKey struct{}

// withBriefing returns ctx carrying the briefing that tool calls in it use.
func withBriefing(ctx context.Context, b *briefing.Briefing) context.Context {
	return context.WithValue(ctx, briefingKey{}, b)
}

func briefingFrom(ctx context.Context) *briefing.Briefing {
	b, _ := ctx.Value(briefingKey{}).(*briefing.Briefing)
	return b
}

// handler is what each tool implements: given its briefing and its raw
// arguments, the answer. It runs inside the briefing's Do.
type handler func(b *briefing.Briefing, raw json.RawMessage) *mcp.CallToolResult

// serve adapts a handler to mcp-go: it finds the call's briefing and runs
// the handler as one call of it.
func serve(h handler) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b := briefingFrom(ctx)
		if b == nil {
			return nil, errNoBriefing
		}
		raw := argumentsFrom(ctx)
		if raw == nil {
			raw = req.Params.RawArguments
		}
		var res *mcp.CallToolResult
		b.Do(func() { res = h(b, raw) })
		return res, nil
	}
}

var errNoBriefing = errcode.New(errcode.InvalidArgument, "no briefing for this session")
