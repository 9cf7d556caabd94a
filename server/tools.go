package server

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

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
	Answers  Answers // "" is the step mode's default (DefaultAnswers)
	Write    bool
	Commands []workspace.Command // run's commands (--run); none: no run
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

// answers is the answer mode in force.
func (cfg ToolConfig) answers() Answers {
	if cfg.Answers == "" {
		return DefaultAnswers(cfg.Steps)
	}
	return cfg.Answers
}

// describe picks a tool's description for the step mode. With --steps
// model every definition is sent to the model on every turn, so a
// description says only what is particular to its tool: the loop and the
// budget are the instructions' (SPEC section 2).
func (cfg ToolConfig) describe(client, model string) string {
	if cfg.modelSteps() {
		return model
	}
	return client
}

// Tools returns the tools of SPEC section 5 for cfg (tools/list sorts them
// by name): with --steps model without expand_edit and retain_output,
// which a stock client cannot use, and with compact input schemas;
// write_file only with cfg.Write, run only with cfg.Commands. With
// --answers text no tool has an
// outputSchema and no answer a structured content.
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
		if cfg.modelSteps() {
			t.Tool.RawInputSchema = compactSchema(t.Tool.RawInputSchema)
		}
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
// write_file, the one tool that writes, sets its own (SPEC section 9).
func hints(title string, idempotent bool) mcp.ToolAnnotation {
	return mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}
}

// prop is one property of an input schema.
type prop struct {
	name   string
	schema string // the property's JSON schema
}

// schema returns an object input schema that allows only the given
// properties, requiring those named in required.
func schema(props []prop, required ...string) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshal(p.name)...)
		b = append(b, ':')
		b = append(b, p.schema...)
	}
	b = append(b, `},"additionalProperties":false`...)
	if len(required) > 0 {
		b = append(b, `,"required":`...)
		b = append(b, marshal(required)...)
	}
	b = append(b, '}')
	return b
}

// refProps are the properties that name a result (SPEC section 4).
var refProps = []prop{
	{"result", `{"type":"string","description":"Result ID from a descriptor, e.g. r3."}`},
	{"sha256", `{"type":"string","pattern":"^[0-9a-fA-F]{12,64}$","description":"Optional prefix (12-64 hex digits) of the result's SHA-256; a mismatch fails with digest_mismatch."}`},
}

func props(ps ...[]prop) []prop {
	var out []prop
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

// compactKeywords are the schema keywords that model mode's input schemas
// leave out (SPEC section 2): property descriptions, defaults, and range
// and length keywords. Names, types, required and enum stay.
var compactKeywords = map[string]bool{
	"description": true, "default": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
}

// compactSchema returns a JSON schema without compactKeywords, in compact
// JSON with its members in their order. The members of "properties" are
// names, not keywords: a property may be called "default".
func compactSchema(schema json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	out, err := compactValue(dec, nil, false)
	if err != nil {
		panic("compactSchema: " + err.Error()) // every schema here is the server's own
	}
	return out
}

// compactValue copies the next value of dec to dst; names says that the
// value, if an object, maps names to schemas rather than keywords.
func compactValue(dec *json.Decoder, dst []byte, names bool) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		dst = append(dst, '{')
		for n := 0; dec.More(); {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := tok.(string)
			if !names && compactKeywords[key] {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return nil, err
				}
				continue
			}
			if n++; n > 1 {
				dst = append(dst, ',')
			}
			dst = append(append(dst, marshal(key)...), ':')
			if dst, err = compactValue(dec, dst, !names && (key == "properties" || key == "$defs")); err != nil {
				return nil, err
			}
		}
		_, err = dec.Token()
		return append(dst, '}'), err
	case json.Delim('['):
		dst = append(dst, '[')
		for n := 0; dec.More(); n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			if dst, err = compactValue(dec, dst, false); err != nil {
				return nil, err
			}
		}
		_, err = dec.Token()
		return append(dst, ']'), err
	}
	if num, ok := tok.(json.Number); ok {
		return append(dst, num...), nil
	}
	return append(dst, marshal(tok)...), nil
}
