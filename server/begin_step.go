package server

import (
	"strconv"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
)

// stepAnswer is begin_step's structured content: the new step and the nine
// limits of SPEC section 5, by name, in flag order.
type stepAnswer struct {
	Step   int64       `json:"step"`
	Limits orderedInts `json:"limits"`
}

// AppendJSON appends the answer as json.Marshal writes it.
func (s stepAnswer) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"step":`...)
	dst = strconv.AppendInt(dst, s.Step, 10)
	dst = append(dst, `,"limits":`...)
	dst = s.Limits.AppendJSON(dst)
	return append(dst, '}')
}

// orderedInts is a JSON object that keeps its order, which a map would
// not: its MarshalJSON is AppendJSON's encoding.
type orderedInts []limits.Limit

// AppendJSON appends the limits as one object, by name, in their order.
func (o orderedInts) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, l := range o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = transport.AppendString(dst, l.Name)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, l.Value, 10)
	}
	return append(dst, '}')
}

// MarshalJSON is AppendJSON's encoding.
func (o orderedInts) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// beginStepTool is begin_step, whose description says who calls it (SPEC
// section 5): the governing client, or with --steps model the model
// itself, told when (the budget itself is then the instructions'): with
// --step-gap, only when an answer is lookup_limit or step_refused, since
// steps begin by themselves between turns; with --step-gap 0, also at
// every new action.
func beginStepTool(cfg ToolConfig) transport.Tool {
	budget := "(" + strconv.FormatInt(cfg.MaxLookups, 10) + " lookups, " + strconv.FormatInt(cfg.MaxStepBytes, 10) +
		" escaped bytes, " + strconv.FormatInt(cfg.MaxExpandBytes, 10) + " expanded bytes)"
	model := "Start a new step with a fresh budget. Call it when you start a new action, and whenever an answer is " +
		"lookup_limit or step_refused; then repeat the call that was refused."
	if cfg.stepGap() > 0 {
		model = "Start a new step with a fresh budget. Steps begin by themselves between your turns: call it only when an " +
			"answer is lookup_limit or step_refused, then repeat that call."
	}
	return define[briefing.BeginStepRequest](cfg, definition{
		name: "begin_step",
		client: "Governing client only: end the current step and start the next with a fresh budget " + budget +
			". Returns the step number and the limits.",
		model:       model,
		annotations: hints("Begin a step", false),
		output:      beginStepOutput(cfg.Config),
	}, func(s briefing.Stepped) (string, any) {
		return "step " + strconv.FormatInt(s.Step, 10), stepAnswer{s.Step, s.Limits}
	})
}
