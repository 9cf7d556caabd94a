package server

import (
	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/server/transport"
)

func getLinesTool(cfg ToolConfig) transport.Tool {
	return define[briefing.GetLinesRequest](cfg, definition{
		name: "get_lines",
		client: "Return lines first..last (inclusive, numbered from 1, newlines included) of a stored result or a file (path, " +
			"retained as inspect retains it; the text then starts with its header line, which names its result); " +
			"omitted last means the last line. With numbered, each line comes as \"N#xy: <line>\", its anchor first, as find shows it: " +
			"edits name lines by these anchors; the anchors and \": \" are not part of the text, so never copy them into an edit's text. " + lookupLimits(cfg),
		model: "Lines first..last (inclusive, from 1; no last: to the end) of a stored result or a file (path: the text " +
			"starts with its header line, which names its result), newlines included. " +
			"With numbered, each line comes as \"N#xy: <line>\", its anchor first, as find shows it: edits name lines by " +
			"anchors, which are not part of the text.",
		annotations: hints("Get lines", false),
		input: with(pathRefKeywords, map[string]keywords{
			"first":    {description: "First line, from 1."},
			"last":     {description: "Last line, inclusive (default: the last line)."},
			"numbered": {dflt: false, description: "Prefix each line with its anchor (N#xy) and \": \" (default false); the prefixes are not part of the text."},
		}),
		output: getLinesOutput,
	}, textContent[*briefing.Selection])
}
