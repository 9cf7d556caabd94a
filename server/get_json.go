package server

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/server/transport"
)

type getJSONArgs struct {
	Result  *string `arg:"result"`
	SHA256  *string `arg:"sha256"`
	Path    *string `arg:"path"`
	Pointer string  `arg:"pointer"`
	As      *string `arg:"as"`
}

func getJSONTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name: "get_json",
			Description: cfg.describe(
				"Return one value of a stored strict-JSON result or file (path, retained as inspect retains it; the text then "+
					"starts with its header line) by RFC 6901 pointer (\"\" is the whole document; "+
					"the #-fragment form is accepted): as \"lexeme\" (default) its exact original text, every digit kept, "+
					"or as \"string\" a JSON string's decoded text. Duplicate member names on the path fail with ambiguous_json. "+
					lookupLimits(cfg),
				"One value of a stored strict-JSON result or file (path) by RFC 6901 pointer (\"\" is the whole): as lexeme (default) its "+
					"exact text, every digit kept, or as string a JSON string's decoded text."),
			RawInputSchema: schema(props(pathRefProps, []prop{
				{"pointer", `{"type":"string","description":"RFC 6901 JSON pointer, e.g. /dependencies/0/version."}`},
				{"as", `{"type":"string","enum":["lexeme","string"],"default":"lexeme","description":"lexeme (default): the value's original text; string: a string's decoded text."}`},
			}), "pointer"),
			Annotations:     hints("Get a JSON value", false),
			RawOutputSchema: outputSchema(getJSONOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			return lookup(b, raw, func(a getJSONArgs) (string, any, *errcode.Error) {
				ref, err := briefing.CheckRef(a.Result, a.SHA256, a.Path)
				if err != nil {
					return "", nil, err
				}
				as := briefing.AsLexeme
				if a.As != nil {
					as = *a.As
				}
				if err := briefing.CheckAs(as); err != nil {
					return "", nil, err
				}
				sel, err := b.GetJSON(ref, a.Pointer, as)
				if err != nil {
					return "", nil, err
				}
				return sel.Text, sel, nil
			})
		}),
	}
}
