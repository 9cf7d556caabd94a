package server

import (
	"context"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"

	"github.com/loom-results/loom-results/limits"
)

// The direct path (doc.go) runs a plain tools/call's handler without
// mcp-go's dispatch, so nothing that dispatch would apply may be set on
// the MCP server. These are the fields of mcp-go's MCPServer that its
// options set to act on a call; forbiddenSet names those that differ from
// a server built with no option.
var forbiddenFields = []string{
	"toolHandlerMiddlewares", // WithToolHandlerMiddleware, WithRecovery, WithTracer, WithLogger
	"toolFilters",            // WithToolFilter
	"hooks",                  // WithHooks
	"taskHooks",              // WithTaskHooks
	"taskTools",              // AddTaskTool
	"maxConcurrentTasks",     // WithMaxConcurrentTasks
	"inputValidator",         // WithInputSchemaValidation
	"outputValidator",        // WithOutputSchemaValidation
	"strictInputSchemaDefault",
	"tracer",         // WithTracer
	"propagator",     // WithPropagator
	"metaPropagator", // WithMetaPropagator
	"requestLogger",  // WithLogger
}

// allowedFields are the other fields: what a plain call does not reach
// (locks, identity, the other kinds of entries, sessions, capabilities,
// tools/list's paging and hints, tasks' bookkeeping).
var allowedFields = []string{
	"resourcesMu", "resourceMiddlewareMu", "promptsMu", "toolsMu", "toolMiddlewareMu", "promptMiddlewareMu",
	"notificationHandlersMu", "capabilitiesMu", "toolFiltersMu", "promptFiltersMu", "tasksMu",
	"name", "version", "implementation", "instructions",
	"resources", "resourceTemplates", "prompts", "promptHandlers", "tools",
	"resourceHandlerMiddlewares", "promptHandlerMiddlewares", "promptFilters", "notificationHandlers",
	"promptCompletionProvider", "resourceCompletionProvider", "capabilities", "cacheHints",
	"allowServerInitiatedRequests", "paginationLimit", "sessions", "listenSessions",
	"tasks", "expiredTasks", "activeTasks", "inflightCancels",
}

// forbiddenSet names the forbidden fields of m that an option or a call
// has set: a slice or map that is not empty, a pointer or a flag that is
// set, an interface that holds another type than a bare server's.
func forbiddenSet(m *mcpserver.MCPServer) []string {
	got := reflect.ValueOf(m).Elem()
	bare := reflect.ValueOf(mcpserver.NewMCPServer("bare", "0")).Elem()
	var set []string
	for _, name := range forbiddenFields {
		f, b := got.FieldByName(name), bare.FieldByName(name)
		var differs bool
		switch f.Kind() {
		case reflect.Slice, reflect.Map:
			differs = f.Len() > 0
		case reflect.Pointer:
			differs = !f.IsNil()
		case reflect.Bool:
			differs = f.Bool()
		case reflect.Interface:
			differs = f.IsNil() != b.IsNil() || !f.IsNil() && f.Elem().Type() != b.Elem().Type()
		default:
			differs = true // a kind this check does not know: classify it
		}
		if differs {
			set = append(set, name)
		}
	}
	return set
}

func TestMCPServerFieldsClassified(t *testing.T) {
	t.Parallel()
	// A field mcp-go adds must be judged: forbidden (the direct path would
	// skip what it does) or allowed. A name that no longer exists fails
	// too, so that the lists stay true.
	var fields []string
	for f := range reflect.TypeFor[mcpserver.MCPServer]().Fields() {
		fields = append(fields, f.Name)
	}
	known := slices.Concat(forbiddenFields, allowedFields)
	slices.Sort(fields)
	slices.Sort(known)
	assert.Equal(t, fields, known)
}

func TestDirectPathForbidsOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Limits: limits.Defaults()},
		{Limits: limits.Defaults(), Write: true, Steps: limits.ModelSteps},
	} {
		s := New(opts)
		assert.Empty(t, forbiddenSet(s.mcp), "the server's MCP options")
	}
	// The check sees each option that the direct path would skip.
	noop := func(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc { return next }
	for name, opt := range map[string]mcpserver.ServerOption{
		"WithHooks":                    mcpserver.WithHooks(&mcpserver.Hooks{}),
		"WithToolHandlerMiddleware":    mcpserver.WithToolHandlerMiddleware(noop),
		"WithRecovery":                 mcpserver.WithRecovery(),
		"WithToolFilter":               mcpserver.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool { return tools }),
		"WithInputSchemaValidation":    mcpserver.WithInputSchemaValidation(),
		"WithOutputSchemaValidation":   mcpserver.WithOutputSchemaValidation(),
		"WithStrictInputSchemaDefault": mcpserver.WithStrictInputSchemaDefault(),
		"WithTracer":                   mcpserver.WithTracer(nil),
		"WithLogger":                   mcpserver.WithLogger(slog.Default()),
		"WithTaskHooks":                mcpserver.WithTaskHooks(&mcpserver.TaskHooks{}),
		"WithMaxConcurrentTasks":       mcpserver.WithMaxConcurrentTasks(1),
		"WithPropagator":               mcpserver.WithPropagator(headerPropagator{}),
		"WithMetaPropagator":           mcpserver.WithMetaPropagator(nil),
	} {
		assert.NotEmpty(t, forbiddenSet(mcpserver.NewMCPServer("x", "1", opt)), name)
	}
}

// headerPropagator is a tracing propagator that propagates nothing.
type headerPropagator struct{}

func (headerPropagator) Inject(context.Context, http.Header)                        {}
func (headerPropagator) Extract(ctx context.Context, _ http.Header) context.Context { return ctx }
