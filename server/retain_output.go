package server

import (
	"fmt"
	"strings"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/server/transport"
)

func retainOutputTool(cfg ToolConfig) transport.Tool {
	return define[briefing.RetainOutputRequest](cfg, definition{
		name: "retain_output",
		client: fmt.Sprintf("Keep a runner's captured output (a test run's tail, say) as a result, with its exit code and "+
			"time-out facts, and show its descriptor. Output is incomplete unless complete is true; a text over %d bytes keeps its "+
			"tail and counts the rest in dropped_bytes. Not a lookup: it spends no budget.", cfg.MaxResultBytes),
		annotations: hints("Retain output", true),
		input: map[string]keywords{
			"label":         {description: "What produced the output, e.g. the command."},
			"text":          {description: "The captured text (UTF-8)."},
			"exit_code":     {description: "The runner's exit code."},
			"timed_out":     {description: "Whether the runner timed out."},
			"complete":      {dflt: false, description: "Whether text is the whole output (default false)."},
			"dropped_bytes": {minimum: bound(0), dflt: 0, description: "Bytes the runner already discarded (default 0)."},
		},
		output: retainOutputOutput,
	}, renderRetained)
}

// renderRetained renders a retained output's descriptor.
func renderRetained(d *results.Descriptor) (string, any) {
	var text strings.Builder
	renderDescriptor(&text, *d)
	return text.String(), d
}
