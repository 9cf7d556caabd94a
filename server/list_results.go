package server

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/server/transport"
)

type listResultsArgs struct {
	Page     *int64 `arg:"page"`
	PageSize *int64 `arg:"page_size"`
}

func listResultsTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name: "list_results",
			Description: cfg.describe(
				fmt.Sprintf("List the results retained in this session, oldest first, %d a page (page from 0), as compact "+
					"descriptors without previews. ", cfg.PageSize)+lookupLimits(cfg),
				fmt.Sprintf("The results kept in this session, oldest first, %d a page (page from 0), without previews.", cfg.PageSize)),
			RawInputSchema: schema([]prop{
				{"page", `{"type":"integer","default":0,"description":"Page number, from 0 (default 0)."}`},
				{"page_size", fmt.Sprintf(`{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"Results a page (default %d)."}`, cfg.PageSize, cfg.PageSize, cfg.PageSize)},
			}),
			Annotations:     hints("List results", false),
			RawOutputSchema: outputSchema(listResultsOutput),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			return lookup(b, raw, func(a listResultsArgs) (string, any, *errcode.Error) {
				if a.PageSize != nil {
					if err := b.CheckPageSize(*a.PageSize); err != nil {
						return "", nil, err
					}
				}
				page := int64(0)
				if a.Page != nil {
					page = *a.Page
				}
				p, err := b.ListResults(page, a.PageSize)
				if err != nil {
					return "", nil, err
				}
				return p.Text, p, nil
			})
		}),
	}
}
