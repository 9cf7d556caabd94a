package server

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/server/transport"
)

type getLinesArgs struct {
	Result   *string `arg:"result"`
	SHA256   *string `arg:"sha256"`
	Path     *string `arg:"path"`
	First    int64   `arg:"first"`
	Last     *int64  `arg:"last"`
	Numbered *bool   `arg:"numbered"`
}

func getLinesTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name: "get_lines",
			Description: cfg.describe(
				"Return lines first..last (inclusive, numbered from 1, newlines included) of a stored result or a file (path, "+
					"retained as inspect retains it; the text then starts with its header line, which names its result); "+
					"omitted last means the last line. With numbered, each line comes as \"N: <line>\", as find shows it: "+
					"the numbers and \": \" are not part of the text, so never copy them into an edit. "+lookupLimits(cfg),
				"Lines first..last (inclusive, from 1; no last: to the end) of a stored result or a file (path: the text "+
					"starts with its header line, which names its result), newlines included. "+
					"With numbered, each line comes as \"N: <line>\", as find shows it: the numbers and \": \" are not part "+
					"of the text, so never copy them into an edit."),
			RawInputSchema: schema(props(pathRefProps, []prop{
				{"first", `{"type":"integer","description":"First line, from 1."}`},
				{"last", `{"type":"integer","description":"Last line, inclusive (default: the last line)."}`},
				{"numbered", `{"type":"boolean","default":false,"description":"Prefix each line with its number and \": \" (default false); the prefixes are not part of the text."}`},
			}), "first"),
			Annotations:     hints("Get lines", false),
			RawOutputSchema: outputSchema(getLinesOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			return lookup(b, raw, func(a getLinesArgs) (string, any, *errcode.Error) {
				ref, err := briefing.CheckRef(a.Result, a.SHA256, a.Path)
				if err != nil {
					return "", nil, err
				}
				sel, err := b.GetLines(ref, a.First, a.Last, a.Numbered != nil && *a.Numbered)
				if err != nil {
					return "", nil, err
				}
				return sel.Text, sel, nil
			})
		}),
	}
}
