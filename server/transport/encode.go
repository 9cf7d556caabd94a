package transport

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/limits"
)

// AppendMessage appends the JSON of v, one JSON-RPC message, to dst: the
// exact bytes json.Marshal(v) returns, without the intermediate encodings.
//
// json.Marshal encodes a tool's answer several times over: mcp-go's
// CallToolResult.MarshalJSON marshals a map holding the content and the
// structured content, and encoding/json then re-scans (compacts) that
// output, and the RequestId's, to nest them. A tool answer's text is thus
// escaped once and scanned twice more, and the structured content, walked
// by reflection, once more. appendMessage writes the envelope and a
// CallToolResult in one pass, escaping each string once (a selection's
// text, which the structured content repeats, is copied as escaped for the
// content), and has the tools' answer types write their own structured
// content (jsonAppender); any other message or value goes to json.Marshal.
// The tests (encode_test.go) hold both to equal bytes.
//
// On an error dst is returned as it was.
func AppendMessage(dst []byte, v any) ([]byte, error) {
	switch m := v.(type) {
	case mcp.JSONRPCResponse:
		if r, ok := m.Result.(*mcp.CallToolResult); ok && plainResult(r) {
			out, err := appendToolResponse(dst, m, r)
			if err != nil {
				return dst, err
			}
			return out, nil
		}
	case mcp.JSONRPCError:
		if m.Error.Data == nil {
			out := append(dst, `{"jsonrpc":`...)
			out = AppendString(out, m.JSONRPC)
			out = append(out, `,"id":`...)
			out, err := appendID(out, m.ID)
			if err != nil {
				return dst, err
			}
			out = append(out, `,"error":{"code":`...)
			out = strconv.AppendInt(out, int64(m.Error.Code), 10)
			out = append(out, `,"message":`...)
			out = AppendString(out, m.Error.Message)
			return append(out, "}}"...), nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// plainResult reports a CallToolResult that appendToolResponse writes:
// one without the multi-round-trip members or structured content kept as
// raw wire bytes (which json.Marshal would compact).
func plainResult(r *mcp.CallToolResult) bool {
	return r != nil && len(r.InputRequests) == 0 && r.RequestState == "" && len(r.RawStructuredContent) == 0
}

// appendToolResponse writes a JSON-RPC response whose result is r as
// json.Marshal does: the envelope's members in struct order, then r as
// CallToolResult.MarshalJSON writes it, a map, so its members in name order
// ("_meta", "content", "isError", "resultType", "structuredContent").
func appendToolResponse(dst []byte, m mcp.JSONRPCResponse, r *mcp.CallToolResult) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":`...)
	dst = AppendString(dst, m.JSONRPC)
	dst = append(dst, `,"id":`...)
	dst, err := appendID(dst, m.ID)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `,"result":{`...)
	if r.Meta != nil {
		// (*mcp.Meta).MarshalJSON returns json.Marshal's output, which
		// compacting leaves as it is.
		b, err := json.Marshal(r.Meta)
		if err != nil {
			return dst, err
		}
		dst = append(dst, `"_meta":`...)
		dst = append(dst, b...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"content":[`...)
	// A structured content that repeats the text and holds it escaped
	// already (a selection's "text", escaped when it was measured).
	var quotedText string
	var quoted []byte
	if q, ok := r.StructuredContent.(quotedTexter); ok {
		quotedText, quoted = q.QuotedText()
	}
	for i, c := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		if t, ok := c.(mcp.TextContent); ok && t.Annotations == nil && t.Meta == nil {
			dst = append(dst, `{"type":`...)
			dst = AppendString(dst, t.Type)
			dst = append(dst, `,"text":`...)
			if quoted != nil && t.Text == quotedText {
				dst = append(dst, quoted...)
			} else {
				dst = AppendString(dst, t.Text)
			}
			dst = append(dst, '}')
			continue
		}
		// Any other item: json.Marshal encodes it as it would nested.
		b, err := json.Marshal(c)
		if err != nil {
			return dst, err
		}
		dst = append(dst, b...)
	}
	dst = append(dst, ']')
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	if r.ResultType != "" {
		dst = append(dst, `,"resultType":`...)
		dst = AppendString(dst, string(r.ResultType))
	}
	if r.StructuredContent != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst, err = appendStructured(dst, r.StructuredContent)
		if err != nil {
			return dst, err
		}
	}
	return append(dst, "}}"...), nil
}

// quotedTexter is structured content that repeats the answer's text and
// holds it escaped (a lookup's selection): the text content copies those
// bytes instead of escaping the text again.
type quotedTexter interface {
	QuotedText() (text string, quoted []byte)
}

// appendID writes a request ID as RequestId.MarshalJSON does: its value
// marshalled. The dispatch gives an answer its request's id as written
// (json.RawMessage); strings and numbers are written as json.Marshal
// writes them, others go to json.Marshal.
func appendID(dst []byte, id mcp.RequestId) ([]byte, error) {
	switch v := id.Value().(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, v), nil
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return appendFloat(dst, v), nil
		}
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case json.RawMessage:
		// An id as the client wrote it (withRequestID): one string or
		// number token, which json.Marshal copies but for white space
		// and the HTML characters in a string.
		if bytes.ContainsAny(v, " \t\r\n<>&\u2028\u2029") {
			var compact, escaped bytes.Buffer
			if err := json.Compact(&compact, v); err != nil {
				return dst, err
			}
			json.HTMLEscape(&escaped, compact.Bytes())
			return append(dst, escaped.Bytes()...), nil
		}
		return append(dst, v...), nil
	}
	b, err := json.Marshal(id)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendFloat writes a finite float64 as encoding/json does: like ES6's
// number to string, %f-style between 1e-6 and 1e21, else exponent form
// without a padded exponent.
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendStructured writes a tool's structured content as json.Marshal
// does. The tools' answer types encode themselves (jsonAppender); any
// other value is marshalled once (json.Marshal nests a value's encoding
// unchanged).
func appendStructured(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		return a.AppendJSON(dst), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// jsonAppender is an answer type that encodes itself: AppendJSON writes
// the bytes json.Marshal writes for it (where those would differ, as for
// a type without json tags, its MarshalJSON derives from AppendJSON), a
// nil pointer as null, and a lone surrogate kept in its 3-byte form as its
// escape (AppendString).
type jsonAppender interface{ AppendJSON(dst []byte) []byte }

// AppendString writes s as a JSON string as json.Marshal does (the one
// writer of strings in answers: server's encoders call it too), except that
// a surrogate in its 3-byte form (a lone surrogate escape that a client sent
// in a member name or path, decoded as in WTF-8) is written as its \uXXXX
// escape, so that the client gets back what it sent (SPEC 5.1's at,
// inspect's path): limits.AppendJSONString with HTML escaping.
func AppendString(dst []byte, s string) []byte {
	return limits.AppendJSONString(dst, s, true)
}
