package server

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/selectors"
)

type findArgs struct {
	Result     string  `arg:"result"`
	SHA256     *string `arg:"sha256"`
	Pattern    string  `arg:"pattern"`
	Regex      *bool   `arg:"regex"`
	IgnoreCase *bool   `arg:"ignore_case"`
	MaxMatches *int64  `arg:"max_matches"`
}

func findTool(cfg limits.Config) mcpserver.ServerTool {
	return mcpserver.ServerTool{
		Tool: mcp.Tool{
			Name: "find",
			Description: fmt.Sprintf("Locate lines of a stored result without reading it: returns \"N: <line>\" for each line that "+
				"contains pattern (a literal substring, or an RE2 expression with regex; ^ and $ are the line's ends), lines cut "+
				"to %d bytes, at most max_matches (1-%d, default %d) and %d bytes of text, then \"… N more\" when matches were withheld. "+
				"Use the line numbers with get_lines. ", selectors.MaxFindLine, briefing.MaxMaxMatches, briefing.DefaultMaxMatches, cfg.MaxLookupBytes) +
				lookupLimits(cfg),
			RawInputSchema: schema(props(refProps, []prop{
				{"pattern", `{"type":"string","minLength":1,"description":"Literal substring, or an RE2 expression when regex is true."}`},
				{"regex", `{"type":"boolean","default":false,"description":"Treat pattern as an RE2 expression (default false)."}`},
				{"ignore_case", `{"type":"boolean","default":false,"description":"Match case-insensitively, with Unicode simple case folding (default false)."}`},
				{"max_matches", fmt.Sprintf(`{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"Most matches to show (default %d)."}`, briefing.MaxMaxMatches, briefing.DefaultMaxMatches, briefing.DefaultMaxMatches)},
			}), "result", "pattern"),
			Annotations:     hints("Find lines", false),
			RawOutputSchema: outputSchema(findOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw json.RawMessage) *mcp.CallToolResult {
			return lookup(b, raw, func(a findArgs) (string, any, *errcode.Error) {
				ref := briefing.Ref{Result: a.Result, SHA256: a.SHA256}
				if err := ref.Check(); err != nil {
					return "", nil, err
				}
				q := briefing.FindQuery{MaxMatches: briefing.DefaultMaxMatches}
				if a.MaxMatches != nil {
					if *a.MaxMatches < 1 || *a.MaxMatches > briefing.MaxMaxMatches {
						return "", nil, errcode.New(errcode.InvalidArgument, "max_matches %d outside 1-%d", *a.MaxMatches, briefing.MaxMaxMatches)
					}
					q.MaxMatches = int(*a.MaxMatches)
				}
				m, err := selectors.NewMatcher(a.Pattern, a.Regex != nil && *a.Regex, a.IgnoreCase != nil && *a.IgnoreCase)
				if err != nil {
					return "", nil, err
				}
				q.Matcher = m
				found, err := b.Find(ref, q)
				if err != nil {
					return "", nil, err
				}
				return found.Text, found, nil
			})
		}),
	}
}
