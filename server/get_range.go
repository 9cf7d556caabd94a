package server

import (
	"fmt"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/server/transport"
)

func getRangeTool(cfg ToolConfig) transport.Tool {
	return define[briefing.GetRangeRequest](cfg, definition{
		name: "get_range",
		client: "Return the bytes [start, end) of a stored result or a file (path, retained as inspect retains it; the text then " +
			"starts with its header line) (half-open; offsets must lie on UTF-8 character boundaries; " +
			"omitted start is 0, omitted end the size). " + lookupLimits(cfg),
		model:       "Bytes [start, end) of a stored result or a file (path), on UTF-8 character boundaries (default: 0 to the size).",
		annotations: hints("Get a byte range", false),
		input: with(pathRefKeywords, map[string]keywords{
			"start": {dflt: 0, description: "First byte, from 0 (default 0)."},
			"end":   {description: "Byte after the last (default: the size)."},
		}),
		output: getRangeOutput,
	}, textContent[*briefing.Selection])
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
