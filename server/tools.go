package server

import (
	"context"
	"reflect"
	"regexp"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// ToolConfig is what the tool definitions depend on: the limits their
// descriptions state, the step mode (SPEC section 2, --steps), which
// decides the tool set, the descriptions and the schemas' detail, what
// every answer carries (--answers), whether write_file is served
// (--write), and run's commands (--run).
type ToolConfig struct {
	limits.Config
	Steps    limits.Steps
	StepGap  time.Duration
	Answers  Answers // "" is the step mode's default (DefaultAnswers)
	Write    bool
	Commands []workspace.Command // run's commands (--run); none: no run
	// Failure and NoFailure are --run-failure's, as briefing.RunConfig
	// holds them (its FirstFailure says which expression is in force).
	Failure   *regexp.Regexp
	NoFailure bool
}

// Answers says what every answer carries (SPEC section 2, --answers).
type Answers string

// The answer modes.
const (
	// AnswersFull: the text content, the structured content, and an
	// outputSchema for every tool: what a governing client reads.
	AnswersFull Answers = "full"
	// AnswersText: the text content alone. Stock clients show the model a
	// success's structured content, as JSON, whenever it has one, and its
	// text only when it has none (SPEC section 1).
	AnswersText Answers = "text"
)

// DefaultAnswers is --answers' default for a step mode: text for a model
// that steps itself (a stock client), full for a governing client.
func DefaultAnswers(steps limits.Steps) Answers {
	if steps == limits.ModelSteps {
		return AnswersText
	}
	return AnswersFull
}

// modelSteps reports whether the model calls begin_step itself.
func (cfg ToolConfig) modelSteps() bool { return cfg.Steps == limits.ModelSteps }

// stepGap is the gap after which a step begins by itself (SPEC section 6):
// --step-gap with --steps model, else 0 (never).
func (cfg ToolConfig) stepGap() time.Duration {
	if !cfg.modelSteps() {
		return 0
	}
	return max(cfg.StepGap, 0)
}

// answers is the answer mode in force.
func (cfg ToolConfig) answers() Answers {
	if cfg.Answers == "" {
		return DefaultAnswers(cfg.Steps)
	}
	return cfg.Answers
}

// Tools returns the tools of SPEC section 5 for cfg (tools/list sorts them
// by name): with --steps model without expand_edit and retain_output,
// which a stock client cannot use, and with compact input schemas
// (inputSchema); write_file only with cfg.Write, run only with
// cfg.Commands. With --answers text no tool has an outputSchema and no
// answer a structured content.
func Tools(cfg ToolConfig) []transport.Tool {
	tools := []transport.Tool{
		inspectTool(cfg),
		findTool(cfg),
		getLinesTool(cfg),
		getRangeTool(cfg),
		getJSONTool(cfg),
		listResultsTool(cfg),
	}
	if !cfg.modelSteps() {
		tools = append(tools, expandEditTool(cfg), retainOutputTool(cfg))
	}
	tools = append(tools, beginStepTool(cfg))
	if cfg.Write {
		tools = append(tools, writeFileTool(cfg))
	}
	if len(cfg.Commands) > 0 {
		tools = append(tools, runTool(cfg))
	}
	for i := range tools {
		t := &tools[i]
		if cfg.answers() == AnswersText {
			t.Tool.RawOutputSchema = nil
			t.Handler = textOnly(t.Handler)
		}
	}
	return tools
}

// textOnly is h answering with its text content alone (--answers text):
// the same answer, built by the same code, without its structured content.
func textOnly(h transport.Handler) transport.Handler {
	return func(ctx context.Context, call transport.Call) (*mcp.CallToolResult, error) {
		res, err := h(ctx, call)
		if res != nil {
			res.StructuredContent = nil
		}
		return res, err
	}
}

// hints are a tool's four annotation hints for a tool that writes no file
// and runs nothing (SPEC section 1): read-only, not destructive and
// closed-world; idempotent says whether a repeated call changes nothing,
// which lookups do not promise: each one spends the step's budget.
// write_file and run change what is outside the server: theirs are
// writes'.
func hints(title string, idempotent bool) mcp.ToolAnnotation {
	return mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}
}

// writes are the annotation hints of a tool that changes what is outside
// the server: not read-only, destructive, not idempotent; openWorld for a
// tool that runs commands, which may do whatever their user may (SPEC
// sections 9 and 10).
func writes(title string, openWorld bool) mcp.ToolAnnotation {
	return mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(false),
		DestructiveHint: mcp.ToBoolPtr(true),
		IdempotentHint:  mcp.ToBoolPtr(false),
		OpenWorldHint:   mcp.ToBoolPtr(openWorld),
	}
}

// definition is what the server holds of a tool beside its request type:
// its name, its descriptions by step mode (SPEC section 2), its
// annotations, the keywords of its input schema beyond what the request
// type gives (inputSchema), and its output schema's success shape
// (outputSchema).
type definition struct {
	name string
	// client and model are the descriptions with --steps client and model
	// (model "" is client's). With --steps model every definition is sent
	// to the model on every turn, so a description says only what is
	// particular to its tool: the loop and the budget are the
	// instructions' (SPEC section 2).
	client, model string
	annotations   mcp.ToolAnnotation
	input         map[string]keywords
	order         []string // the input schema's properties in this order; nil: the request type's
	output        string
}

// define returns the tool of d whose arguments are the request type R and
// whose answer render turns into the text content and the structured
// content. Its handler is the one adapter of every tool: it finds the
// call's briefing and runs R's operation (briefing.OpOf: the checks in the
// SPEC's order, then the tool's work) as one call of it, and answers with
// success, or with failure and the budget the operation decided.
func define[R any, A any, P interface {
	*R
	briefing.Request[A]
}](cfg ToolConfig, d definition, render func(A) (string, any)) transport.Tool {
	description := d.client
	if cfg.modelSteps() && d.model != "" {
		description = d.model
	}
	op := briefing.OpOf[R, A, P]()
	return transport.Tool{
		Tool: mcp.Tool{
			Name:            d.name,
			Description:     description,
			RawInputSchema:  inputSchema(reflect.TypeFor[R](), d.input, d.order, cfg.modelSteps()),
			Annotations:     d.annotations,
			RawOutputSchema: outputSchema(d.output),
		},
		Handler: func(ctx context.Context, call transport.Call) (*mcp.CallToolResult, error) {
			b := briefingFrom(ctx)
			if b == nil {
				return nil, errNoBriefing
			}
			c := briefing.Call{Arguments: call.Arguments, NewStep: call.NewStep}
			if token := call.ProgressToken; token != nil {
				c.Progress = func(p briefing.Progress) { transport.Notify(ctx, progressNote(token, p)) }
			}
			var res *mcp.CallToolResult
			b.Do(func() {
				a, f := op(ctx, b, c)
				if f != nil {
					res = failure(f.Err, f.Budget)
					return
				}
				text, structured := render(a)
				res = success(text, structured)
			})
			return res, nil
		},
	}
}

// textContent renders an answer that carries its own text content: the
// text, and the answer as the structured content.
func textContent[A briefing.Answer](a A) (string, any) { return a.TextContent(), a }
