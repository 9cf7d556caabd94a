package server

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/server/transport"
)

type getRangeArgs struct {
	Result *string `arg:"result"`
	SHA256 *string `arg:"sha256"`
	Path   *string `arg:"path"`
	Start  *int64  `arg:"start"`
	End    *int64  `arg:"end"`
}

func getRangeTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name: "get_range",
			Description: cfg.describe(
				"Return the bytes [start, end) of a stored result or a file (path, retained as inspect retains it; the text then "+
					"starts with its header line) (half-open; offsets must lie on UTF-8 character boundaries; "+
					"omitted start is 0, omitted end the size). "+lookupLimits(cfg),
				"Bytes [start, end) of a stored result or a file (path), on UTF-8 character boundaries (default: 0 to the size)."),
			RawInputSchema: schema(props(pathRefProps, []prop{
				{"start", `{"type":"integer","default":0,"description":"First byte, from 0 (default 0)."}`},
				{"end", `{"type":"integer","description":"Byte after the last (default: the size)."}`},
			})),
			Annotations:     hints("Get a byte range", false),
			RawOutputSchema: outputSchema(getRangeOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			return lookup(b, raw, func(a getRangeArgs) (string, any, *errcode.Error) {
				ref, err := briefing.CheckRef(a.Result, a.SHA256, a.Path)
				if err != nil {
					return "", nil, err
				}
				sel, err := b.GetRange(ref, a.Start, a.End)
				if err != nil {
					return "", nil, err
				}
				return sel.Text, sel, nil
			})
		}),
	}
}

// lookupLimits is the sentence every lookup's description ends with; its
// last clause is about begin_step, so it differs by step mode.
func lookupLimits(cfg ToolConfig) string {
	next := "a refused or spent step needs begin_step."
	if cfg.modelSteps() {
		next = "when an answer is lookup_limit or step_refused, call begin_step, then repeat the call."
	}
	return fmt.Sprintf("A lookup: each step allows %d lookups of at most %d bytes each and %d escaped bytes in all; %s",
		cfg.MaxLookups, cfg.MaxLookupBytes, cfg.MaxStepBytes, next)
}
