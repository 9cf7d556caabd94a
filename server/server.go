package server

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/version"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// Name identifies the server in the MCP handshake, with the version of
// the running build (package version), the one --version prints.
const Name = "loom-results"

// Options configure a server.
type Options struct {
	Limits  limits.Config
	Policy  briefing.Policy
	Steps   limits.Steps       // who calls begin_step (--steps); "" is limits.ClientSteps
	StepGap time.Duration      // --step-gap: with --steps model, a pause this long before a tool call begins a step (SPEC 6); 0 never does
	Answers Answers            // what answers carry (--answers); "" is DefaultAnswers(Steps)
	Write   bool               // serve write_file (--write)
	Run     briefing.RunConfig // run's commands (--run); none: no run
	Root    *workspace.Root
	Log     io.Writer // where recovered panics are logged, with their stacks; nil: stderr
	// MemorySlack, when positive, makes the runtime's soft memory limit
	// follow the stored bytes of all briefings, with this much slack for
	// garbage (results.FollowMemory); 0 leaves Go's default collector.
	MemorySlack int64
}

// tools is the tool configuration of these options.
func (o Options) tools() ToolConfig {
	return ToolConfig{Config: o.Limits, Steps: o.Steps, StepGap: o.StepGap, Answers: o.Answers, Write: o.Write,
		Commands: o.Run.Commands, Failure: o.Run.Failure, NoFailure: o.Run.NoFailure}
}

// DefaultStepGap is the command's --step-gap (with --steps model): longer
// than the calls of one turn are apart (milliseconds), shorter than a
// model's thinking between turns (seconds).
const DefaultStepGap = 500 * time.Millisecond

// DefaultMemorySlack is the command's --memory-slack.
const DefaultMemorySlack = 24 << 20

// Server is an MCP server whose briefings share one root and one
// process-wide byte quota.
type Server struct {
	opts      Options
	quota     *results.Quota
	transport *transport.Transport
}

// New returns a server with every tool of SPEC section 5.
func New(opts Options) *Server { return newServer(opts) }

// newServer is New with more tools beside those of SPEC section 5 (tests
// add faulty ones).
func newServer(opts Options, extra ...transport.Tool) *Server {
	s := &Server{opts: opts, quota: results.NewQuota(opts.Limits.MaxTotalBytes)}
	results.FollowMemory(s.quota, opts.MemorySlack)
	s.transport = transport.New(transport.Config{
		Name:            Name,
		Version:         version.String(),
		Instructions:    instructions(opts.tools()),
		Tools:           append(Tools(opts.tools()), extra...),
		NewSession:      func() transport.Session { return Session{s.newBriefing()} },
		MaxMessageBytes: opts.Limits.MaxMessageBytes,
		IdleTimeout:     opts.Limits.IdleTimeout,
		StepGap:         opts.tools().stepGap(),
		Log:             opts.Log,
	})
	return s
}

// ServeStdio serves one briefing over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done (transport.Transport.ServeStdio).
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.transport.ServeStdio(ctx, in, out)
}

// ListenAndServeHTTP serves Streamable HTTP, one briefing per MCP session,
// until ctx is done (transport.Transport.ListenAndServeHTTP).
func (s *Server) ListenAndServeHTTP(ctx context.Context, opts transport.HTTPOptions) error {
	return s.transport.ListenAndServeHTTP(ctx, opts)
}

// instructions describe the loop for the mode the server runs in, in a few
// lines a model reads once (initialize and server/discover).
func instructions(cfg ToolConfig) string {
	if cfg.modelSteps() {
		return modelInstructions(cfg)
	}
	s := "loom-results keeps the exact bytes of files you inspect for this session, so you never read or retype them twice.\n" +
		"1. inspect the files: each answer is a descriptor (result ID, sha256, size, lines, a short preview), not the contents.\n" +
		"2. find the lines you need (pattern, or several patterns at once); get_lines (numbered: true shows line numbers), " +
		"get_range or get_json return only that selection, within a per-step budget.\n"
	if cfg.Write {
		s += "3. write_file writes an edit of a result you inspected: splice line edits into it ({\"result\", \"edits\"}), or " +
			"compose the new text from stored selections and new text; unchanged text is never generated again. It checks the " +
			"file is still what you read (a conflict otherwise, which retains the file's current text as a result to redo the edit on), writes atomically, answers with the diff " +
			"and a new result ID for the next edit.\n"
	} else {
		s += "3. expand_edit turns $compose and $splice nodes in a write action's arguments into file contents, so unchanged " +
			"text is never generated again; the executor of the action writes the file (this server writes nothing).\n"
	}
	if cfg.modelSteps() {
		s += "Call begin_step when you start a new action, and whenever an answer is lookup_limit or step_refused; then repeat the refused call.\n"
	}
	return s
}

// modelInstructions are the instructions for a model that steps itself
// (--steps model): the one text that a client deferring its tools (loading
// a tool's definition only when the model asks for it) always shows, so
// they name the tools of the loop and when to use each, and carry the
// budget, which the descriptions leave out. The first line says on its own
// what the server is for: some clients show only that line.
func modelInstructions(cfg ToolConfig) string {
	s := "loom-results keeps the exact bytes of the project's files for this session, so that you read only the lines you " +
		"need and edit without retyping unchanged text.\n" +
		"- find {paths: [\".\"], pattern}: search files and directories (.gitignore honoured); each file with matches " +
		"comes as its result ID and path, then \"41#xy: <line>\" per match (41#xy the line's anchor, not part of its text).\n" +
		"- get_lines {path or result, first, last, numbered: true}: read those lines, each after its anchor.\n"
	if cfg.Write {
		s += "- write_file {splice: {result, edits: [{lines: [\"41#xy\", \"43#pq\"], text}]}}: replace those lines of a result you " +
			"read, named by the anchors that find and numbered get_lines show; answers with the diff and the file's new result. " +
			"After a conflict, redo the edit on the current result it names.\n"
	} else {
		s += "This server writes no files.\n"
	}
	if len(cfg.Commands) > 0 {
		s += "- run {name}: run a test or build named at start (" + commandNames(cfg.Commands) + "); answers with the output's " +
			"last lines and its result ID: find FAIL or error in it, get_lines around what it finds.\n"
	}
	s += fmt.Sprintf("Each step allows %d lookups (find, get_*, list_results) of at most %d bytes, "+
		"%d in all. ", cfg.MaxLookups, cfg.MaxLookupBytes, cfg.MaxStepBytes)
	if cfg.stepGap() > 0 {
		// SPEC section 5: with a gap, steps begin by themselves between
		// turns, and nothing asks for a call per action.
		return s + "A step begins by itself between your turns; call begin_step only when an answer is lookup_limit or " +
			"step_refused, then repeat that call.\n"
	}
	return s + "Call begin_step when you start a new action, and whenever an answer is lookup_limit or step_refused; " +
		"then repeat that call.\n"
}

// newBriefing returns a fresh briefing of this server.
func (s *Server) newBriefing() *briefing.Briefing {
	return briefing.New(briefing.Options{Limits: s.opts.Limits, Policy: s.opts.Policy, Steps: s.opts.Steps, Root: s.opts.Root, Quota: s.quota,
		Header: headerLine, Run: s.opts.Run})
}

// Session is the transport's state of one client session: its briefing.
type Session struct{ Briefing *briefing.Briefing }

// Bind returns ctx carrying the briefing, where the tools find it.
func (s Session) Bind(ctx context.Context) context.Context { return withBriefing(ctx, s.Briefing) }

// Close frees the briefing: its store and its share of the quota.
func (s Session) Close() { s.Briefing.Close() }

type briefingKey struct{}

// withBriefing returns ctx carrying the briefing that tool calls in it use.
func withBriefing(ctx context.Context, b *briefing.Briefing) context.Context {
	return context.WithValue(ctx, briefingKey{}, b)
}

func briefingFrom(ctx context.Context) *briefing.Briefing {
	b, _ := ctx.Value(briefingKey{}).(*briefing.Briefing)
	return b
}

// errNoBriefing answers a call whose context carries no briefing: a
// transport serving the tools without their Session.
var errNoBriefing = errcode.New(errcode.InvalidArgument, "no session state for this call")

// HTTPHandler is the handler that ListenAndServeHTTP serves, for an HTTP
// server of the caller's own (transport.Transport.HTTPHandler).
func (s *Server) HTTPHandler(opts transport.HTTPOptions) *transport.HTTPHandler {
	return s.transport.HTTPHandler(opts)
}

// Transport is the transport serving this server's tools.
func (s *Server) Transport() *transport.Transport { return s.transport }

// StoredBytes is what all briefings hold, counted against
// --max-total-bytes.
func (s *Server) StoredBytes() int64 { return s.quota.Used() }
