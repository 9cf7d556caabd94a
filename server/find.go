package server

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/server/transport"
)

type findArgs struct {
	Result     *string   `arg:"result"`
	SHA256     *string   `arg:"sha256"`
	Paths      *[]string `arg:"paths"`
	Pattern    *string   `arg:"pattern"`
	Patterns   *[]string `arg:"patterns"`
	Regex      *bool     `arg:"regex"`
	IgnoreCase *bool     `arg:"ignore_case"`
	MaxMatches *int64    `arg:"max_matches"`
}

func findTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name: "find",
			Description: cfg.describe(
				fmt.Sprintf("Locate lines of a stored result, or of files and directories (paths), without reading them: returns \"N: <line>\" for each line that "+
					"contains pattern (a literal substring, or an RE2 expression with regex; ^ and $ are the line's ends), lines cut "+
					"to %d bytes, at most max_matches (1-%d, default %d) and %d bytes of text, then \"… N more\" when matches were withheld. "+
					"To locate several places in one lookup, give patterns (1-%d) instead of pattern: a line matching any of them is listed once, "+
					"in line order. With paths, a directory stands for the files of its listing (.gitignore honoured), and each file with "+
					"matches is retained and shown as \"<ID> <path>:\" before its lines. Use the line numbers with get_lines or in edits. ",
					selectors.MaxFindLine, briefing.MaxMaxMatches, briefing.DefaultMaxMatches, cfg.MaxLookupBytes, selectors.MaxPatterns)+
					lookupLimits(cfg),
				fmt.Sprintf("Lines that contain pattern (a literal, or RE2 with regex: ^ and $ are the line's ends), or any of "+
					"patterns (1-%d), in a stored result or in files and directories (paths; a directory: its files, .gitignore "+
					"honoured): \"N: <line>\" each, cut at %d bytes, under \"<ID> <path>:\" for each file, at most max_matches "+
					"(default %d), then \"… N more\" when more matched.",
					selectors.MaxPatterns, selectors.MaxFindLine, briefing.DefaultMaxMatches)),
			RawInputSchema: schema(props(refProps, []prop{
				findPathsProp,
				{"pattern", fmt.Sprintf(`{"type":"string","minLength":1,"maxLength":%d,"description":"Literal substring, or an RE2 expression when regex is true. Give pattern or patterns."}`, selectors.MaxPatternBytes)},
				{"patterns", fmt.Sprintf(`{"type":"array","items":{"type":"string","minLength":1,"maxLength":%d},"minItems":1,"maxItems":%d,"description":"Several patterns at once: lines that match any of them. Give pattern or patterns."}`, selectors.MaxPatternBytes, selectors.MaxPatterns)},
				{"regex", `{"type":"boolean","default":false,"description":"Treat pattern as an RE2 expression (default false)."}`},
				{"ignore_case", `{"type":"boolean","default":false,"description":"Match case-insensitively, with Unicode simple case folding (default false)."}`},
				{"max_matches", fmt.Sprintf(`{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"Most matches to show (default %d)."}`, briefing.MaxMaxMatches, briefing.DefaultMaxMatches, briefing.DefaultMaxMatches)},
			})),
			Annotations:     hints("Find lines", false),
			RawOutputSchema: outputSchema(findOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			return lookup(b, raw, func(a findArgs) (string, any, *errcode.Error) {
				var ref briefing.Ref
				switch {
				case (a.Result == nil) == (a.Paths == nil):
					return "", nil, errcode.New(errcode.InvalidArgument, "give exactly one of result (a result ID) and paths (files or directories under the root)")
				case a.Paths != nil && a.SHA256 != nil:
					return "", nil, errcode.New(errcode.InvalidArgument, "sha256 goes with result, not with paths")
				case a.Paths != nil:
					if err := briefing.CheckPaths(*a.Paths); err != nil {
						return "", nil, err
					}
				default:
					ref = briefing.Ref{Result: *a.Result, SHA256: a.SHA256}
					if err := ref.Check(); err != nil {
						return "", nil, err
					}
				}
				q := briefing.FindQuery{MaxMatches: briefing.DefaultMaxMatches}
				if a.MaxMatches != nil {
					if *a.MaxMatches < 1 || *a.MaxMatches > briefing.MaxMaxMatches {
						return "", nil, errcode.New(errcode.InvalidArgument, "max_matches %d outside 1-%d", *a.MaxMatches, briefing.MaxMaxMatches)
					}
					q.MaxMatches = int(*a.MaxMatches)
				}
				p := selectors.Patterns{Regex: a.Regex != nil && *a.Regex, IgnoreCase: a.IgnoreCase != nil && *a.IgnoreCase}
				switch {
				case (a.Pattern == nil) == (a.Patterns == nil):
					return "", nil, errcode.New(errcode.InvalidArgument, "give exactly one of pattern (one) and patterns (1 to %d)", selectors.MaxPatterns)
				case a.Pattern != nil:
					p.List = []string{*a.Pattern}
				default:
					p.List, p.Several = *a.Patterns, true
				}
				m, err := selectors.NewMatcher(p)
				if err != nil {
					return "", nil, err
				}
				q.Matcher = m
				if a.Paths != nil {
					found, err := b.FindPaths(*a.Paths, q)
					if err != nil {
						return "", nil, err
					}
					return found.Text, found, nil
				}
				found, err := b.Find(ref, q)
				if err != nil {
					return "", nil, err
				}
				return found.Text, found, nil
			})
		}),
	}
}
