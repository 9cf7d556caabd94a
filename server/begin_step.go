package server

import (
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
)

type beginStepArgs struct{}

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
		dst = appendString(dst, l.Name)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, l.Value, 10)
	}
	return append(dst, '}')
}

// MarshalJSON is AppendJSON's encoding.
func (o orderedInts) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// beginStepDescription says who calls begin_step (SPEC section 5): the
// governing client, or with --steps model the model itself, told when.
func beginStepDescription(cfg ToolConfig) string {
	budget := "(" + strconv.FormatInt(cfg.MaxLookups, 10) + " lookups, " + strconv.FormatInt(cfg.MaxStepBytes, 10) +
		" escaped bytes, " + strconv.FormatInt(cfg.MaxExpandBytes, 10) + " expanded bytes)"
	if cfg.modelSteps() {
		// The budget itself is the instructions'.
		return "Start a new step with a fresh budget. Call it when you start a new action, and whenever an answer is " +
			"lookup_limit or step_refused; then repeat the call that was refused."
	}
	return "Governing client only: end the current step and start the next with a fresh budget " + budget +
		". Returns the step number and the limits."
}

func beginStepTool(cfg ToolConfig) transport.Tool {
	return transport.Tool{
		Tool: mcp.Tool{
			Name:            "begin_step",
			Description:     beginStepDescription(cfg),
			RawInputSchema:  schema(nil),
			Annotations:     hints("Begin a step", false),
			RawOutputSchema: outputSchema(beginStepOutput(cfg.Config)),
		},
		Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
			if err := decodeArgs(raw, &beginStepArgs{}); err != nil {
				return failure(err, nil)
			}
			s := b.BeginStep()
			return success("step "+strconv.FormatInt(s.Step, 10), stepAnswer{s.Step, s.Limits})
		}),
	}
}
