package server

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
)

// expandEditDescription states the rules a model needs to write nodes: what
// a part and an edit are, what before: n means, the order of edits, the
// newline rule, and that a failing part refuses the step.
func expandEditDescription(cfg ToolConfig) string {
	s := "Turn the arguments of a write or replace action into their final form without regenerating unchanged text. " +
		`Anywhere in arguments, {"$compose": [part, ...]} becomes the concatenation of its parts: a string is literal text; ` +
		`{"result", "sha256"?, one of "bytes": [start, end] | "lines": [first, last] | "pointer" (+ "as")} is a stored selection ` +
		`(no selector: the whole result). {"$splice": {"result", "sha256"?, "edits": [...]}} is the stored result with edits applied: ` +
		`{"lines": [first, last], "text"} replaces those whole lines (newlines included), {"before": n, "text"} inserts text before ` +
		`line n (n = lines + 1 appends), {"after": n, "text"} after line n; text is a string or a $compose node. Each position (and a ` +
		`reference's lines) is a line number or, better, the line's anchor ("41#xy") as numbered get_lines and find show it: ` +
		"an anchor whose line does not hold the text you saw fails (anchor_mismatch) instead of landing; anchors are not part of " +
		"the text. Line numbers refer to the result as stored; edits come " +
		`in file order and must not overlap; a non-empty text must end with "\n" unless it is the last edit and reaches the end of ` +
		"the result. Returns the expanded arguments for your executor and retains each expansion as a result. " +
		fmt.Sprintf("At most %d expanded bytes a step. ", cfg.MaxExpandBytes) +
		"All or nothing: any part that does not resolve fails with unresolved_edit and refuses the step."
	if cfg.modelSteps() {
		s += " Then call begin_step to start a new one, and send the corrected call."
	}
	return s
}

func expandEditTool(cfg ToolConfig) transport.Tool {
	return define[briefing.ExpandEditRequest](cfg, definition{
		name:        "expand_edit",
		client:      expandEditDescription(cfg),
		annotations: hints("Expand an edit", false),
		input: map[string]keywords{
			"arguments": {description: `The action's ordinary arguments, in which each node is replaced by its text. ` +
				`A node is exactly {"$compose": [part, ...]} (a part: a string, or a reference {"result", "sha256"?, ` +
				`and at most one of "bytes", "lines" or "pointer"}) or exactly {"$splice": {"result", "sha256"?, "edits"}}; ` +
				`e.g. {"path": "a.go", "content": {"$splice": {"result": "r1", "edits": [{"lines": ["3#xy", "3#xy"], "text": "x\n"}]}}}.`},
		},
		output: expandEditOutput,
	}, func(x *briefing.Expanded) (string, any) {
		return x.Text, expandAnswer{x.Arguments, x.Expansions, x.Budget}
	})
}

// expandAnswer is expand_edit's structured content.
type expandAnswer struct {
	Arguments  json.RawMessage      `json:"arguments"`
	Expansions []briefing.Expansion `json:"expansions"`
	Budget     limits.Snapshot      `json:"budget"`
}

// AppendJSON appends the answer as json.Marshal writes it, but for an
// "at" holding a lone surrogate escape, which is given back as the escape
// (Expansion.AppendJSON). Its arguments are an edit's whole text (up to
// --max-expand-bytes and more): written in one pass into room made once,
// where json.Marshal would compact them into a buffer of its own, copy
// that, and have it copied again.
func (a expandAnswer) AppendJSON(dst []byte) []byte {
	const perExpansion = 160 // an expansion's members, a 64-digit sha256 and short at and result
	dst = slices.Grow(dst, len(a.Arguments)+perExpansion*len(a.Expansions)+len(`{"arguments":,"expansions":,"budget":}`)+256)
	dst = append(dst, `{"arguments":`...)
	dst = appendCompactHTML(dst, a.Arguments)
	dst = append(dst, `,"expansions":`...)
	if a.Expansions == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range a.Expansions {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = a.Expansions[i].AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"budget":`...)
	dst = a.Budget.AppendJSON(dst)
	return append(dst, '}')
}
