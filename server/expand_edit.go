package server

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

type expandEditArgs struct {
	Arguments json.RawMessage `arg:"arguments"`
}

func expandEditTool(cfg ToolConfig) mcpserver.ServerTool {
	return mcpserver.ServerTool{
		Tool: mcp.Tool{
			Name: "expand_edit",
			Description: "Turn the arguments of a write or replace action into their final form without regenerating unchanged text. " +
				`Anywhere in arguments, {"$compose": [part, ...]} becomes the concatenation of its parts: a string is literal text; ` +
				`{"result", "sha256"?, one of "bytes": [start, end] | "lines": [first, last] | "pointer" (+ "as")} is a stored selection ` +
				`(no selector: the whole result). {"$splice": {"result", "sha256"?, "edits": [{"lines": [first, last], "text"} | ` +
				`{"before": n, "text"}]}} is the stored result with those whole lines replaced or text inserted; line numbers refer to ` +
				"the result as stored, edits in file order. Returns the expanded arguments for your executor and retains each expansion " +
				fmt.Sprintf("as a result. All or nothing: any part that does not resolve fails with unresolved_edit. At most %d expanded bytes a step.", cfg.MaxExpandBytes),
			RawInputSchema: schema([]prop{
				{"arguments", `{"type":"object","description":"The action's ordinary arguments, e.g. {\"path\": \"a.go\", \"content\": {\"$splice\": ...}}."}`},
			}, "arguments"),
			Annotations:     hints("Expand an edit", false),
			RawOutputSchema: outputSchema(expandEditOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw json.RawMessage) *mcp.CallToolResult {
			fail := func(err *errcode.Error) *mcp.CallToolResult {
				snap := b.Budget()
				return failure(err, &snap)
			}
			if err := b.CheckEdit(); err != nil {
				return fail(err)
			}
			var a expandEditArgs
			if err := decodeArgs(raw, &a); err != nil {
				return fail(err)
			}
			x, err := b.ExpandEdit(a.Arguments)
			if err != nil {
				return fail(err)
			}
			return success(x.Text, expandAnswer{x.Arguments, appendExpansions(nil, x.Expansions), x.Budget})
		}),
	}
}

// expandAnswer is expand_edit's structured content. Its expansions are
// written by appendExpansions, so that an "at" holding a lone surrogate
// escape is given back as the escape (json.Marshal would write U+FFFD).
type expandAnswer struct {
	Arguments  json.RawMessage `json:"arguments"`
	Expansions json.RawMessage `json:"expansions"`
	Budget     limits.Snapshot `json:"budget"`
}
