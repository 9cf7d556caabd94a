package server

import (
	"fmt"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/server/transport"
)

func listResultsTool(cfg ToolConfig) transport.Tool {
	return define[briefing.ListResultsRequest](cfg, definition{
		name: "list_results",
		client: fmt.Sprintf("List the results retained in this session, oldest first, %d a page (page from 0), as compact "+
			"descriptors without previews. ", cfg.PageSize) + lookupLimits(cfg),
		model:       fmt.Sprintf("The results kept in this session, oldest first, %d a page (page from 0), without previews.", cfg.PageSize),
		annotations: hints("List results", false),
		input: map[string]keywords{
			"page": {dflt: 0, description: "Page number, from 0 (default 0)."},
			"page_size": {minimum: bound(1), maximum: bound(cfg.PageSize), dflt: cfg.PageSize,
				description: fmt.Sprintf("Results a page (default %d).", cfg.PageSize)},
		},
		output: listResultsOutput,
	}, textContent[*briefing.Page])
}
