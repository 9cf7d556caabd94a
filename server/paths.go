package server

import (
	"fmt"

	"github.com/loom-results/loom-results/briefing"
)

// pathRefProps are the properties that name what a selection lookup
// selects from: a result, or a file by path (SPEC section 4).
var pathRefProps = props(refProps, []prop{
	{"path", `{"type":"string","description":"Instead of result: a file under the root, retained as inspect retains it."}`},
})

// findPathsProp is find's "paths" (SPEC 5.3).
var findPathsProp = prop{"paths", fmt.Sprintf(`{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":%d,"description":"Instead of result: files or directories to search (a directory: its listing's files); files with matches are retained."}`, briefing.MaxPaths)}
