package server

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// ToolConfig is what the tool definitions depend on: the limits their
// descriptions state, the step mode (SPEC section 2, --steps), whose
// sentences about begin_step they use, and whether write_file is served
// (--write).
type ToolConfig struct {
	limits.Config
	Steps    limits.Steps
	Write    bool
	Commands []workspace.Command // run's commands (--run); none: no run
}

// modelSteps reports whether the model calls begin_step itself.
func (cfg ToolConfig) modelSteps() bool { return cfg.Steps == limits.ModelSteps }

// Tools returns every tool of SPEC section 5 (tools/list sorts them by
// name), write_file only with cfg.Write and run only with cfg.Commands;
// descriptions state cfg's limits.
func Tools(cfg ToolConfig) []mcpserver.ServerTool {
	tools := []mcpserver.ServerTool{
		inspectTool(cfg),
		findTool(cfg),
		getLinesTool(cfg),
		getRangeTool(cfg),
		getJSONTool(cfg),
		listResultsTool(cfg),
		expandEditTool(cfg),
		retainOutputTool(cfg),
		beginStepTool(cfg),
	}
	if cfg.Write {
		tools = append(tools, writeFileTool(cfg))
	}
	if len(cfg.Commands) > 0 {
		tools = append(tools, runTool(cfg))
	}
	return tools
}

// hints are a tool's four annotation hints for a tool that writes no file
// and runs nothing (SPEC section 1): read-only, not destructive and
// closed-world; idempotent says whether a repeated call changes nothing,
// which lookups do not promise: each one spends the step's budget.
// write_file, the one tool that writes, sets its own (SPEC section 9).
func hints(title string, idempotent bool) mcp.ToolAnnotation {
	return mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}
}

// prop is one property of an input schema.
type prop struct {
	name   string
	schema string // the property's JSON schema
}

// schema returns an object input schema that allows only the given
// properties, requiring those named in required.
func schema(props []prop, required ...string) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshal(p.name)...)
		b = append(b, ':')
		b = append(b, p.schema...)
	}
	b = append(b, `},"additionalProperties":false`...)
	if len(required) > 0 {
		b = append(b, `,"required":`...)
		b = append(b, marshal(required)...)
	}
	b = append(b, '}')
	return b
}

// refProps are the properties that name a result (SPEC section 4).
var refProps = []prop{
	{"result", `{"type":"string","description":"Result ID from a descriptor, e.g. r3."}`},
	{"sha256", `{"type":"string","pattern":"^[0-9a-fA-F]{12,64}$","description":"Optional prefix (12-64 hex digits) of the result's SHA-256; a mismatch fails with digest_mismatch."}`},
}

func props(ps ...[]prop) []prop {
	var out []prop
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}
