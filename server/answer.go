package server

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

// success is a tool result: text for the model, structured for the client.
func success(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(text)},
		StructuredContent: structured,
	}
}

// failure is the error shape of SPEC section 8: isError, the structured
// {"error": {...}, "budget"?} and the one-line text "error <code>: <message>".
func failure(err *errcode.Error, budget *limits.Snapshot) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(err.Text())},
		StructuredContent: failureBody{errorJSON(err), budget},
		IsError:           true,
	}
}

// failureBody is the structured content of an error answer.
type failureBody struct {
	Error  json.RawMessage  `json:"error"`
	Budget *limits.Snapshot `json:"budget,omitempty"`
}

// AppendJSON appends the body as json.Marshal writes it. Its "error" is
// errorJSON's output: compact already, so nesting leaves it as it is.
func (f failureBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"error":`...)
	if f.Error == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, f.Error...)
	}
	if f.Budget != nil {
		dst = append(dst, `,"budget":`...)
		dst = f.Budget.AppendJSON(dst)
	}
	return append(dst, '}')
}

// errorJSON renders an error as {"code", "message", ...details}, its
// strings written by appendString.
func errorJSON(err *errcode.Error) json.RawMessage { return err.AppendJSON(nil, appendString) }

// marshal is json.Marshal, but strings are written by appendString, which
// gives lone surrogates back as their escapes.
func marshal(v any) []byte {
	switch x := v.(type) {
	case string:
		return appendString(nil, x)
	case errcode.Code:
		return appendString(nil, string(x))
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(err) // details are strings and integers
	}
	return out
}

// lookup runs a lookup tool (SPEC section 4's order): the budget's first
// checks, then the arguments, then run. Every answer carries the budget.
func lookup[A any](b *briefing.Briefing, raw json.RawMessage, run func(A) (text string, structured any, err *errcode.Error)) *mcp.CallToolResult {
	fail := func(err *errcode.Error) *mcp.CallToolResult {
		snap := b.Budget()
		return failure(err, &snap)
	}
	if err := b.StartLookup(); err != nil {
		return fail(err)
	}
	var args A
	if err := decodeArgs(raw, &args); err != nil {
		return fail(err)
	}
	text, structured, err := run(args)
	if err != nil {
		return fail(err)
	}
	return success(text, structured)
}
