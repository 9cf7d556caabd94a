package transport

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// inbound is one JSON-RPC message as readMessage read it: one pass of the
// JSON engine over its bytes (jsontape.Build), and the members that
// dispatching it needs, found by their exact names in that pass's index.
// Nothing reads the message again: the dispatch decides from these, and a
// tool reads its arguments from the same index (Call.Arguments).
type inbound struct {
	body     []byte          // the message as sent
	ix       *jsontape.Index // its index; nil for the zero inbound (a line not read)
	id       json.RawMessage // as the client wrote it; nil when absent or null
	method   string
	response bool // a response to the server (there are none to wait for): dropped

	jsonrpc jsontape.Sub // the "jsonrpc" member's value; zero when absent
	params  jsontape.Sub // "params"; zero when absent
	// The members of an object params that the dispatch reads itself:
	// _meta (the protocol era, a progress token) and tools/call's own.
	meta                   jsontape.Sub
	name, args             jsontape.Sub
	task, responses, state jsontape.Sub
	tool                   string // tools/call's name, decoded as encoding/json decodes it; "" when absent, null or not a string
	weight                 int64  // what holding the message costs: its bytes and its index
	// newStep: a tool call that the gap rule begins a step for
	// (stepgap.go), as its transport read it.
	newStep bool
}

// maxMessageDepth is the deepest nesting a message may have: 10,000
// arrays and objects, what encoding/json accepts. A tool holds its own
// arguments to the 1,000 levels of SPEC section 4.3 (jsontape.Sub.Check),
// so that a deep argument is the tool's invalid_argument, counted as a
// lookup, and not a protocol error.
const maxMessageDepth = 10_000

// request reports a message that expects an answer.
func (m *inbound) request() bool { return m.method != "" && m.id != nil }

// errorID is the message's ID for an error answer: as written, or null.
func (m *inbound) errorID() any {
	if m.id == nil {
		return nil
	}
	return m.id
}

// readMessage decides what body is (JSON-RPC 2.0 section 4): an object
// whose id, when present, is a string or a number (null only in a
// response), with a string method, or else a response (result or error).
// A body that is not JSON is a parse error (-32700); a batch or any other
// shape is an invalid request (-32600); both are answered with id null. A
// message with both a method and a result or error is neither a request
// nor a response: -32600.
//
// The body is read once, by jsontape.Build: strict JSON (RFC 8259) but
// for raw invalid UTF-8 in strings, which is the tools' to judge (SPEC 5),
// nesting up to maxMessageDepth levels. Envelope members, and the members
// of params that the dispatch reads, are matched by their exact names
// (JSON-RPC 2.0 and MCP name them; "ID" is another member), a repeated
// member counting as its last occurrence. For tools/call the arguments are
// left where they are, as a value of the index: the tool reads them
// exactly as sent (raw invalid UTF-8 and numbers beyond float64 are the
// tool's to judge, and a lookup with malformed arguments still counts).
func readMessage(body []byte) (inbound, *mcp.JSONRPCError) {
	ix, err := jsontape.Build(body, jsontape.Options{AllowInvalidUTF8: true, MaxDepth: maxMessageDepth})
	if err != nil {
		return inbound{}, envelopeError(nil, mcp.PARSE_ERROR, "the message is not valid JSON")
	}
	root := ix.Root()
	switch ix.Kind(root) {
	case jsontape.Object:
	case jsontape.Array:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "JSON-RPC batches are not supported: send one message at a time")
	default:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "the message is not a JSON-RPC object")
	}
	m := inbound{body: body, ix: ix, weight: int64(len(body) + ix.Footprint())}
	var id, method jsontape.Sub
	hasResult := false
	for member, v := range ix.Members(root) {
		switch member.Name {
		case "jsonrpc":
			m.jsonrpc = ix.SubOf(v)
		case "id":
			id = ix.SubOf(v)
		case "method":
			method = ix.SubOf(v)
		case "params":
			m.params = ix.SubOf(v)
		case "result", "error":
			hasResult = true
		}
	}
	if id.Present() {
		switch id.Kind() {
		case jsontape.String, jsontape.Number:
			m.id = json.RawMessage(id.Bytes())
		case jsontape.Null:
		default:
			return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a JSON-RPC id is a string or a number")
		}
	}
	if !method.Present() {
		if hasResult {
			m.response = true
			return m, nil
		}
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "the message is not a JSON-RPC request, notification or response")
	}
	s, ok := exactString(method)
	if !ok || s == "" {
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "a JSON-RPC method is a non-empty UTF-8 string")
	}
	m.method = s
	if m.id == nil && id.Present() {
		// JSON-RPC allows a null id but discourages it; MCP forbids it (a
		// request's id is a string or an integer). Taken for a
		// notification, the request would never be answered.
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a request's id is a string or a number, never null (MCP); a notification has no id")
	}
	if hasResult {
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST,
			"a JSON-RPC message has a method (a request or notification) or a result or error (a response), not both")
	}
	if m.params.Present() && m.params.Kind() == jsontape.Object {
		m.readParams()
	}
	return m, nil
}

// readParams finds the members of an object params that the dispatch
// reads: _meta for every method, and tools/call's name, arguments and the
// members whose shape mcp.CallToolParams fixes.
func (m *inbound) readParams() {
	call := m.method == string(mcp.MethodToolsCall)
	for member, v := range m.ix.Members(m.params.Node) {
		switch {
		case member.Name == "_meta":
			m.meta = m.ix.SubOf(v)
		case !call:
		case member.Name == "name":
			m.name = m.ix.SubOf(v)
		case member.Name == "arguments":
			m.args = m.ix.SubOf(v)
		case member.Name == "task":
			m.task = m.ix.SubOf(v)
		case member.Name == "inputResponses":
			m.responses = m.ix.SubOf(v)
		case member.Name == "requestState":
			m.state = m.ix.SubOf(v)
		}
	}
	if m.name.Present() && m.name.Kind() == jsontape.String {
		m.tool = jsonString(m.name)
	}
}

// exactString returns the text of string v, and false when v is not a
// string or holds raw invalid UTF-8 or a lone surrogate escape.
func exactString(v jsontape.Sub) (string, bool) {
	if v.Kind() != jsontape.String {
		return "", false
	}
	s, bad := v.Index.StringText(v.Node)
	return s, bad < 0
}

// jsonString returns the text of string v as encoding/json decodes it:
// each raw invalid byte and each lone surrogate escape read as U+FFFD (a
// tool name in a message names no tool then, and the answer says which).
func jsonString(v jsontape.Sub) string {
	lex := v.Bytes()
	inner := lex[1 : len(lex)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	json.Unmarshal(lex, &s) // a string the index accepted: it decodes
	return s
}

func envelopeError(id any, code int, msg string) *mcp.JSONRPCError {
	e := rpcError(id, code, msg)
	return &e
}
