package server

import (
	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/server/transport"
)

func getJSONTool(cfg ToolConfig) transport.Tool {
	return define[briefing.GetJSONRequest](cfg, definition{
		name: "get_json",
		client: "Return one value of a stored strict-JSON result or file (path, retained as inspect retains it; the text then " +
			"starts with its header line) by RFC 6901 pointer (\"\" is the whole document; " +
			"the #-fragment form is accepted): as \"lexeme\" (default) its exact original text, every digit kept, " +
			"or as \"string\" a JSON string's decoded text. Duplicate member names on the path fail with ambiguous_json. " +
			lookupLimits(cfg),
		model: "One value of a stored strict-JSON result or file (path) by RFC 6901 pointer (\"\" is the whole): as lexeme (default) its " +
			"exact text, every digit kept, or as string a JSON string's decoded text.",
		annotations: hints("Get a JSON value", false),
		input: with(pathRefKeywords, map[string]keywords{
			"pointer": {description: "RFC 6901 JSON pointer, e.g. /dependencies/0/version."},
			"as": {enum: []string{briefing.AsLexeme, briefing.AsString}, dflt: briefing.AsLexeme,
				description: "lexeme (default): the value's original text; string: a string's decoded text."},
		}),
		output: getJSONOutput,
	}, textContent[*briefing.Selection])
}
