package server

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/server/transport"
)

type retainOutputArgs struct {
	Label        string `arg:"label"`
	Text         string `arg:"text,not_utf8"`
	ExitCode     *int64 `arg:"exit_code"`
	TimedOut     *bool  `arg:"timed_out"`
	Complete     *bool  `arg:"complete"`
	DroppedBytes *int64 `arg:"dropped_bytes"`
}

func retainOutputTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name: "retain_output",
			Description: fmt.Sprintf("Keep a runner's captured output (a test run's tail, say) as a result, with its exit code and "+
				"time-out facts, and show its descriptor. Output is incomplete unless complete is true; a text over %d bytes keeps its "+
				"tail and counts the rest in dropped_bytes. Not a lookup: it spends no budget.", cfg.MaxResultBytes),
			RawInputSchema: schema([]prop{
				{"label", `{"type":"string","description":"What produced the output, e.g. the command."}`},
				{"text", `{"type":"string","description":"The captured text (UTF-8)."}`},
				{"exit_code", `{"type":"integer","description":"The runner's exit code."}`},
				{"timed_out", `{"type":"boolean","description":"Whether the runner timed out."}`},
				{"complete", `{"type":"boolean","default":false,"description":"Whether text is the whole output (default false)."}`},
				{"dropped_bytes", `{"type":"integer","minimum":0,"default":0,"description":"Bytes the runner already discarded (default 0)."}`},
			}, "label", "text"),
			Annotations:     hints("Retain output", true),
			RawOutputSchema: outputSchema(retainOutputOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			var a retainOutputArgs
			if err := decodeArgs(raw, &a); err != nil {
				return failure(err, nil)
			}
			o := briefing.Output{Label: a.Label, Text: a.Text, ExitCode: a.ExitCode, TimedOut: a.TimedOut, Complete: a.Complete != nil && *a.Complete}
			if a.DroppedBytes != nil {
				if err := briefing.CheckDropped(*a.DroppedBytes); err != nil {
					return failure(err, nil)
				}
				o.DroppedBytes = *a.DroppedBytes
			}
			d, err := b.RetainOutput(o)
			if err != nil {
				return failure(err, nil)
			}
			var text strings.Builder
			renderDescriptor(&text, *d)
			return success(text.String(), d)
		}),
	}
}
