package server

import (
	"fmt"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/server/transport"
)

func findTool(cfg ToolConfig) transport.Tool {
	return define[briefing.FindRequest](cfg, definition{
		name: "find",
		client: fmt.Sprintf("Locate lines of a stored result, or of files and directories (paths), without reading them: returns \"N#xy: <line>\" (the line's anchor, then the line) for each line that "+
			"contains pattern (a literal substring, or an RE2 expression with regex; ^ and $ are the line's ends), lines cut "+
			"to %d bytes, at most max_matches (1-%d, default %d) and %d bytes of text, then \"… N more\" when matches were withheld. "+
			"To locate several places in one lookup, give patterns (1-%d) instead of pattern: a line matching any of them is listed once, "+
			"in line order. With paths, a directory stands for the files of its listing (.gitignore honoured), and each file with "+
			"matches is retained and shown as \"<ID> <path>:\" before its lines. Use the line numbers with get_lines, and the anchors in edits: they name the lines; they are not part of the text. ",
			selectors.MaxFindLine, briefing.MaxMaxMatches, briefing.DefaultMaxMatches, cfg.MaxLookupBytes, selectors.MaxPatterns) +
			lookupLimits(cfg),
		model: fmt.Sprintf("Lines that contain pattern (a literal, or RE2 with regex: ^ and $ are the line's ends), or any of "+
			"patterns (1-%d), in a stored result or in files and directories (paths; a directory: its files, .gitignore "+
			"honoured): \"N#xy: <line>\" each (an anchor, which edits name the line by), cut at %d bytes, under \"<ID> <path>:\" for each file, at most max_matches "+
			"(default %d), then \"… N more\" when more matched.",
			selectors.MaxPatterns, selectors.MaxFindLine, briefing.DefaultMaxMatches),
		annotations: hints("Find lines", false),
		input: with(refKeywords, map[string]keywords{
			"paths": {
				description: "Instead of result: files or directories to search (a directory: its listing's files); files with matches are retained."},
			"pattern": {minLength: 1, maxLength: selectors.MaxPatternBytes,
				description: "Literal substring, or an RE2 expression when regex is true. Give pattern or patterns."},
			"patterns":    {description: "Several patterns at once: lines that match any of them. Give pattern or patterns."},
			"patterns[]":  {minLength: 1, maxLength: selectors.MaxPatternBytes},
			"regex":       {dflt: false, description: "Treat pattern as an RE2 expression (default false)."},
			"ignore_case": {dflt: false, description: "Match case-insensitively, with Unicode simple case folding (default false)."},
			"max_matches": {minimum: bound(1), maximum: bound(briefing.MaxMaxMatches), dflt: briefing.DefaultMaxMatches,
				description: fmt.Sprintf("Most matches to show (default %d).", briefing.DefaultMaxMatches)},
		}),
		output: findOutput,
	}, textContent[briefing.Answer])
}
