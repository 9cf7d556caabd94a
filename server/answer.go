package server

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
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
// strings written by transport.AppendString.
func errorJSON(err *errcode.Error) json.RawMessage {
	return err.AppendJSON(nil, transport.AppendString)
}

// marshal is json.Marshal, but strings are written by transport.AppendString, which
// gives lone surrogates back as their escapes.
func marshal(v any) []byte {
	switch x := v.(type) {
	case string:
		return transport.AppendString(nil, x)
	case errcode.Code:
		return transport.AppendString(nil, string(x))
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(err) // details are strings and integers
	}
	return out
}

// appendCompactHTML appends valid JSON as json.Marshal nests a
// json.RawMessage: white space outside strings dropped, '<', '>' and '&'
// written as \u003c, \u003e and \u0026, U+2028 and U+2029 as \u2028 and
// \u2029 (encoding/json's compact with HTML escaping). Nothing else
// changes, invalid UTF-8 included. src must be valid JSON: every value
// here is one the server built or the transport accepted.
func appendCompactHTML(dst, src []byte) []byte {
	const hex = "0123456789abcdef"
	if src == nil {
		return append(dst, "null"...)
	}
	inString, escaped := false, false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 2
			start = i + 1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
