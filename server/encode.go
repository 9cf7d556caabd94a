package server

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// appendMessage appends the JSON of v, one JSON-RPC message, to dst: the
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
// content), and encodes the structured content of the tools' own answer
// types by hand; any other message or value goes to json.Marshal. The
// tests (encode_test.go) hold both to equal bytes.
//
// On an error dst is returned as it was.
func appendMessage(dst []byte, v any) ([]byte, error) {
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
			out = appendString(out, m.JSONRPC)
			out = append(out, `,"id":`...)
			out, err := appendID(out, m.ID)
			if err != nil {
				return dst, err
			}
			out = append(out, `,"error":{"code":`...)
			out = strconv.AppendInt(out, int64(m.Error.Code), 10)
			out = append(out, `,"message":`...)
			out = appendString(out, m.Error.Message)
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
	dst = appendString(dst, m.JSONRPC)
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
	// The escaped span of the only text item, for a structured content that
	// repeats the text (a selection's "text").
	var text textSpan
	sel, _ := r.StructuredContent.(*briefing.Selection)
	for i, c := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		if t, ok := c.(mcp.TextContent); ok && t.Annotations == nil && t.Meta == nil {
			dst = append(dst, `{"type":`...)
			dst = appendString(dst, t.Type)
			dst = append(dst, `,"text":`...)
			start := len(dst)
			if sel != nil && sel.Quoted != nil && t.Text == sel.Text {
				// The selection's text, escaped when it was measured.
				dst = append(dst, sel.Quoted...)
			} else {
				dst = appendString(dst, t.Text)
			}
			if len(r.Content) == 1 {
				text = textSpan{t.Text, start, len(dst)}
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
		dst = appendString(dst, string(r.ResultType))
	}
	if r.StructuredContent != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst, err = appendStructured(dst, r.StructuredContent, text)
		if err != nil {
			return dst, err
		}
	}
	return append(dst, "}}"...), nil
}

// textSpan is a string and where its escaped form lies in the output.
type textSpan struct {
	s          string
	start, end int
}

// appendText appends s escaped; when s is the string of span, it copies
// the escaped bytes already written instead of escaping s again.
func appendText(dst []byte, s string, span textSpan) []byte {
	if span.end > span.start && len(s) == len(span.s) && s == span.s {
		return append(dst, dst[span.start:span.end]...)
	}
	return appendString(dst, s)
}

// appendID writes a request ID as RequestId.MarshalJSON does: its value
// marshalled. Decoded IDs are strings or float64 (mcp-go reads them into
// an any); others go to json.Marshal.
func appendID(dst []byte, id mcp.RequestId) ([]byte, error) {
	switch v := id.Value().(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, v), nil
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
// does. The answer types of the lookups, list_results, retain_output,
// begin_step and errors are written by hand; any other value is marshalled
// once (json.Marshal nests a value's encoding unchanged).
func appendStructured(dst []byte, v any, text textSpan) ([]byte, error) {
	switch s := v.(type) {
	case *briefing.Selection:
		if s != nil {
			return appendSelection(dst, s, text)
		}
	case *briefing.Page:
		if s != nil {
			return appendPage(dst, s), nil
		}
	case *results.Descriptor:
		if s != nil {
			return appendDescriptor(dst, s), nil
		}
	case failureBody:
		return appendFailure(dst, s), nil
	case inspectAnswer:
		return appendInspect(dst, s), nil
	case stepAnswer:
		return appendStepAnswer(dst, s), nil
	case expandAnswer:
		return appendExpandAnswer(dst, s), nil
	case jsonAppender:
		return s.AppendJSON(dst), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// jsonAppender is an answer type that encodes itself as json.Marshal
// would (its MarshalJSON derives from AppendJSON).
type jsonAppender interface{ AppendJSON(dst []byte) []byte }

// appendSelection writes a briefing.Selection. Its text is most often the
// content's text, whose escaped bytes are copied.
func appendSelection(dst []byte, s *briefing.Selection, text textSpan) ([]byte, error) {
	dst = append(dst, `{"result":`...)
	dst = appendString(dst, s.Result)
	dst = append(dst, `,"sha256":`...)
	dst = appendString(dst, s.SHA256)
	dst = append(dst, `,"selection":`...)
	switch sel := s.Selection.(type) {
	case briefing.ByteSelection:
		dst = append(dst, `{"start":`...)
		dst = strconv.AppendInt(dst, sel.Start, 10)
		dst = append(dst, `,"end":`...)
		dst = strconv.AppendInt(dst, sel.End, 10)
		dst = append(dst, '}')
	case briefing.LineSelection:
		dst = append(dst, `{"first":`...)
		dst = strconv.AppendInt(dst, sel.First, 10)
		dst = append(dst, `,"last":`...)
		dst = strconv.AppendInt(dst, sel.Last, 10)
		if sel.Numbered {
			dst = append(dst, `,"numbered":true`...)
		}
		dst = append(dst, '}')
	case briefing.PointerSelection:
		dst = append(dst, `{"pointer":`...)
		dst = appendString(dst, sel.Pointer)
		dst = append(dst, `,"as":`...)
		dst = appendString(dst, sel.As)
		dst = append(dst, '}')
	default:
		b, err := json.Marshal(sel)
		if err != nil {
			return dst, err
		}
		dst = append(dst, b...)
	}
	if s.Type != "" {
		dst = append(dst, `,"type":`...)
		dst = appendString(dst, s.Type)
	}
	dst = append(dst, `,"text":`...)
	dst = appendText(dst, s.Text, text)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, s.Bytes, 10)
	dst = append(dst, `,"escaped_bytes":`...)
	dst = strconv.AppendInt(dst, s.EscapedBytes, 10)
	dst = append(dst, `,"budget":`...)
	dst = appendSnapshot(dst, &s.Budget)
	return append(dst, '}'), nil
}

// appendSnapshot writes a limits.Snapshot.
func appendSnapshot(dst []byte, s *limits.Snapshot) []byte { return s.AppendJSON(dst) }

// appendPage writes list_results' briefing.Page (its Text is not a member).
func appendPage(dst []byte, p *briefing.Page) []byte {
	dst = append(dst, `{"page":`...)
	dst = strconv.AppendInt(dst, p.Page, 10)
	dst = append(dst, `,"pages":`...)
	dst = strconv.AppendInt(dst, p.Pages, 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, p.Total, 10)
	dst = append(dst, `,"results":`...)
	if p.Results == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range p.Results {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendDescriptor(dst, &p.Results[i])
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"next":`...)
	dst = appendIntPtr(dst, p.Next)
	if p.Budget != nil {
		dst = append(dst, `,"budget":`...)
		dst = appendSnapshot(dst, p.Budget)
	}
	return append(dst, '}')
}

// appendDescriptor writes a results.Descriptor.
func appendDescriptor(dst []byte, d *results.Descriptor) []byte {
	return d.AppendJSON(dst)
}

// appendInspect writes inspect's structured content: each entry a
// descriptor, or {"path", "error"}.
func appendInspect(dst []byte, a inspectAnswer) []byte {
	dst = append(dst, `{"results":`...)
	if a.Results == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, e := range a.Results {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.Descriptor != nil {
				dst = appendDescriptor(dst, e.Descriptor)
				continue
			}
			dst = append(dst, '{')
			if e.Path != nil {
				dst = append(dst, `"path":`...)
				dst = appendString(dst, *e.Path)
				if e.Error != nil {
					dst = append(dst, ',')
				}
			}
			if e.Error != nil {
				dst = append(dst, `"error":`...)
				dst = append(dst, e.Error...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendExpandAnswer writes expand_edit's structured content. Its
// arguments are an edit's whole text (up to --max-expand-bytes and more):
// written in one pass into room made once, where json.Marshal would
// compact them into a buffer of its own, copy that, and have it copied
// again.
func appendExpandAnswer(dst []byte, a expandAnswer) []byte {
	dst = slices.Grow(dst, len(a.Arguments)+len(a.Expansions)+len(`{"arguments":,"expansions":,"budget":}`)+256)
	dst = append(dst, `{"arguments":`...)
	dst = appendCompactHTML(dst, a.Arguments)
	dst = append(dst, `,"expansions":`...)
	dst = appendCompactHTML(dst, a.Expansions)
	dst = append(dst, `,"budget":`...)
	dst = appendSnapshot(dst, &a.Budget)
	return append(dst, '}')
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

// appendExpansions writes expand_edit's expansions.
func appendExpansions(dst []byte, xs []briefing.Expansion) []byte {
	if xs == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"at":`...)
		dst = appendString(dst, x.At)
		dst = append(dst, `,"bytes":`...)
		dst = strconv.AppendInt(dst, x.Bytes, 10)
		dst = append(dst, `,"sha256":`...)
		dst = appendString(dst, x.SHA256)
		dst = append(dst, `,"parts":`...)
		dst = strconv.AppendInt(dst, int64(x.Parts), 10)
		dst = append(dst, `,"result":`...)
		dst = appendStringPtr(dst, x.Result)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendFailure writes the structured content of an error answer. Its
// "error" is errorJSON's output, made of json.Marshal's: compact already,
// so nesting it leaves it as it is.
func appendFailure(dst []byte, f failureBody) []byte {
	dst = append(dst, `{"error":`...)
	if f.Error == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, f.Error...)
	}
	if f.Budget != nil {
		dst = append(dst, `,"budget":`...)
		dst = appendSnapshot(dst, f.Budget)
	}
	return append(dst, '}')
}

// appendStepAnswer writes begin_step's structured content.
func appendStepAnswer(dst []byte, s stepAnswer) []byte {
	dst = append(dst, `{"step":`...)
	dst = strconv.AppendInt(dst, s.Step, 10)
	dst = append(dst, `,"limits":{`...)
	for i, l := range s.Limits {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, l.Name)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, l.Value, 10)
	}
	return append(dst, "}}"...)
}

func appendStringPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendString(dst, *s)
}

func appendIntPtr(dst []byte, n *int64) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, *n, 10)
}

// appendString writes s as a JSON string as json.Marshal does, except that
// a surrogate in its 3-byte form (a lone surrogate escape that a client sent
// in a member name or path, decoded as in WTF-8) is written as its \uXXXX
// escape, so that the client gets back what it sent (SPEC 5.1's at,
// inspect's path): limits.AppendJSONString with HTML escaping.
func appendString(dst []byte, s string) []byte {
	return limits.AppendJSONString(dst, s, true)
}
