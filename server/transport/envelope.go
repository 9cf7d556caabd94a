package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// inbound is one JSON-RPC message as readMessage decided it is. Both
// transports read every message with readMessage, once, and mcp-go is
// given only what that reading took (mcpBody): the decision of what a
// message is (request, notification or response; its id, method and, for
// tools/call, tool and arguments) is made here and nowhere else.
type inbound struct {
	id       json.RawMessage // as the client wrote it; nil when absent or null
	method   string
	response bool   // a response to the server (there are none to wait for): dropped
	body     []byte // the message as sent
	args     []byte // tools/call's arguments exactly as sent, or nil

	// The spans in body of the members read (end 0: absent). For a
	// tools/call whose params is an object, callParams lists the spans of
	// the params members that mcp-go reads; otherwise params is passed as
	// written.
	jsonrpc, idSpan, methodSpan, params span
	call                                bool // tools/call with an object params
	callParams                          []namedSpan
	canonical                           []byte // mcpBody, built once for a message that is not plain

	// A plain tools/call (see plainCall), which the server runs itself:
	// the tool's name, and the id as mcp-go decodes it (a string or a
	// float64).
	plain   bool
	tool    string
	idValue any
}

// span is a value's lexeme, body[Start:End].
type span = jsontape.Span

// namedSpan is one member kept in a canonical params object.
type namedSpan struct {
	name string
	span
}

// request reports a message that expects an answer.
func (m *inbound) request() bool { return m.method != "" && m.id != nil }

// errorID is the message's ID for an error answer: as written, or null.
func (m *inbound) errorID() any {
	if m.id == nil {
		return nil
	}
	return m.id
}

// Envelope members are matched by their exact names (JSON-RPC 2.0 names
// them; encoding/json, which mcp-go decodes with, would also take "ID" for
// "id" and keep the last of the two). A repeated member counts as its last
// occurrence, as encoding/json reads it.
//
// callMembers are the members of tools/call's params that mcp-go reads
// (mcp.CallToolParams); the canonical params keeps these alone, arguments
// replaced by {} since the tools read the arguments that readMessage took.
var callMembers = []string{"name", "arguments", "_meta", "task", "inputResponses", "requestState"}

// readMessage decides what body is (JSON-RPC 2.0 section 4): an object
// whose id, when present, is a string or a number (null only in a
// response), with a string method, or else a response (result or error).
// A body that is not JSON is a parse error (-32700); a batch or any other
// shape is an invalid request (-32600); both are answered with id null. A
// message with both a method and a result or error is neither a request
// nor a response: -32600.
//
// JSON validity is encoding/json's (json.Valid), the verdict that mcp-go
// would reach: raw invalid UTF-8 in strings is accepted (the tools judge
// it: SPEC 5) and nesting up to 10,000 levels. Past that verdict
// readMessage reads only the top level and, for tools/call, the top level
// of params: no value is decoded or indexed that the decision does not
// need, so the memory a message takes is its own bytes and its canonical
// envelope (mcpBody), whatever it holds.
//
// For tools/call it takes the arguments out of the message: the tools
// read them exactly as sent (SPEC 5: raw invalid UTF-8 and numbers beyond
// float64 are the tool's to judge, and a lookup with malformed arguments
// still counts), and mcp-go does not decode a large edit into maps.
func readMessage(body []byte) (inbound, *mcp.JSONRPCError) {
	if !json.Valid(body) {
		return inbound{}, envelopeError(nil, mcp.PARSE_ERROR, "the message is not valid JSON")
	}
	i := jsontape.SkipSpace(body, 0)
	switch body[i] {
	case '{':
	case '[':
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "JSON-RPC batches are not supported: send one message at a time")
	default:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "the message is not a JSON-RPC object")
	}
	m := inbound{body: body}
	hasResult := false
	// plain holds while the envelope has exactly the members of a plain
	// call, each once; seen counts them by bit.
	plain, seen := true, 0
	for name, v := range jsontape.Members(body, i) {
		bit := 0
		switch name {
		case "jsonrpc":
			bit, m.jsonrpc = 1, v
		case "id":
			bit, m.idSpan = 2, v
		case "method":
			bit, m.methodSpan = 4, v
		case "params":
			bit, m.params = 8, v
		case "result", "error":
			hasResult = true
		}
		plain = plain && bit != 0 && seen&bit == 0
		seen |= bit
	}
	if m.idSpan.Present() {
		switch body[m.idSpan.Start] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			m.id = json.RawMessage(body[m.idSpan.Start:m.idSpan.End])
		case 'n':
		default:
			return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a JSON-RPC id is a string or a number")
		}
	}
	if m.methodSpan.Present() {
		s, ok := stringValue(body, m.methodSpan)
		if !ok || s == "" {
			return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "a JSON-RPC method is a non-empty UTF-8 string")
		}
		m.method = s
		if m.id == nil && m.idSpan.Present() {
			// JSON-RPC allows a null id but discourages it; MCP forbids it
			// (a request's id is a string or an integer). mcp-go would take
			// the request for a notification and never answer it.
			return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a request's id is a string or a number, never null (MCP); a notification has no id")
		}
		if hasResult {
			return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST,
				"a JSON-RPC message has a method (a request or notification) or a result or error (a response), not both")
		}
	} else {
		if hasResult {
			m.response = true
			return m, nil
		}
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "the message is not a JSON-RPC request, notification or response")
	}
	if m.method == string(mcp.MethodToolsCall) && m.params.Present() && body[m.params.Start] == '{' {
		m.call = true
		m.readCall(plain && seen == 15)
	}
	if !m.plain {
		m.canonical = m.mcpBody()
	}
	return m, nil
}

// readCall reads tools/call's params (an object): the arguments, the
// members of the canonical params, and whether the call is plain.
func (m *inbound) readCall(plainEnvelope bool) {
	var name, args span
	count, names, others := 0, 0, false
	kept := make(map[string]span, 2)
	for member, v := range jsontape.Members(m.body, m.params.Start) {
		switch member {
		case "arguments":
			args = v
			count++
		case "name":
			name = v
			names++
		default:
			others = true
		}
		for _, c := range callMembers {
			if member == c {
				kept[c] = v
			}
		}
	}
	for _, c := range callMembers {
		if v, ok := kept[c]; ok {
			m.callParams = append(m.callParams, namedSpan{c, v})
		}
	}
	if count > 0 {
		m.args = m.body[args.Start:args.End:args.End]
	}
	if plainEnvelope && count <= 1 && names == 1 && !others {
		m.plainCall(name)
	}
}

// mcpBody is what mcp-go handles: the canonical envelope of the message,
// made of the members readMessage read and nothing else, so that mcp-go's
// case-insensitive decoding finds no other reading of it. tools/call's
// params is rebuilt the same way from callMembers, with the arguments
// (taken out by readMessage) replaced by {}.
func (m *inbound) mcpBody() []byte {
	if m.canonical != nil {
		return m.canonical
	}
	size := len(`{"jsonrpc":,"id":,"method":,"params":}`) + m.jsonrpc.Len() + m.idSpan.Len() + m.methodSpan.Len() + m.params.Len()
	out := make([]byte, 0, size+64)
	out = append(out, '{')
	sep := false
	add := func(name string, v span) {
		if !v.Present() {
			return
		}
		if sep {
			out = append(out, ',')
		}
		sep = true
		out = append(out, '"')
		out = append(out, name...)
		out = append(out, '"', ':')
		out = append(out, m.body[v.Start:v.End]...)
	}
	add("jsonrpc", m.jsonrpc)
	add("id", m.idSpan)
	add("method", m.methodSpan)
	if !m.call {
		add("params", m.params)
	} else {
		if sep {
			out = append(out, ',')
		}
		out = append(out, `"params":{`...)
		for i, p := range m.callParams {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, '"')
			out = append(out, p.name...)
			out = append(out, '"', ':')
			if p.name == "arguments" {
				out = append(out, "{}"...)
			} else {
				out = append(out, m.body[p.Start:p.End]...)
			}
		}
		out = append(out, '}')
	}
	return append(out, '}')
}

// plainCall marks m as a plain tools/call: one whose envelope has exactly
// "jsonrpc" ("2.0"), "id" (a string or a number), "method" and "params",
// and whose params has exactly a "name" and at most one "arguments" (any
// value: the tool judges it), each member once, its name as written or
// escaped; name is a string, and no string mcp-go reads holds invalid
// UTF-8 or a lone surrogate (encoding/json would read U+FFFD). mcp-go
// decodes such a message without fail and finds no _meta, so no
// protocol-era metadata: answering it needs none of its dispatch
// (Server.handle).
func (m *inbound) plainCall(name span) {
	if v, ok := stringValue(m.body, m.jsonrpc); !ok || v != mcp.JSONRPC_VERSION {
		return
	}
	tool, ok := stringValue(m.body, name)
	if !ok {
		return
	}
	// The id as encoding/json decodes it into an any.
	var id any
	if m.body[m.idSpan.Start] == '"' {
		s, ok := stringValue(m.body, m.idSpan)
		if !ok {
			return
		}
		id = s
	} else {
		f, err := strconv.ParseFloat(string(m.id), 64)
		if err != nil {
			return // out of float64's range: mcp-go refuses the message
		}
		id = f
	}
	m.plain, m.tool, m.idValue = true, tool, id
}

// stringValue decodes the string value at v; ok is false when v is not a
// string or holds invalid UTF-8 or a lone surrogate escape, which
// encoding/json would read as U+FFFD.
func stringValue(body []byte, v span) (string, bool) {
	lex := body[v.Start:v.End]
	if len(lex) < 2 || lex[0] != '"' {
		return "", false
	}
	inner := lex[1 : len(lex)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), utf8.Valid(inner)
	}
	ix, err := jsontape.Build(lex, jsontape.Options{AllowInvalidUTF8: true})
	if err != nil {
		return "", false
	}
	s, bad := ix.StringText(ix.Root())
	return s, bad < 0
}

// handle answers one message that readMessage took (not a response): a
// plain tools/call by running the tool itself, any other through mcp-go.
//
// For a plain call mcp-go's HandleMessage would decode the message four
// times over, find the tool and run it with no hook, middleware, filter,
// validator or tracer (this server sets none), and answer what the handler
// returns. What else it puts in the call's context (the MCP server, the
// protocol era, a cancellation for notifications/cancelled) no handler
// reads: each reads its briefing and its raw arguments only. handle runs
// the same handler with the same arguments and builds the same answer,
// JSON-RPC errors included, without the decoding (encode_test.go holds the
// two to the same bytes). A tool the direct path does not hold (an
// unknown one, or a task tool) still goes to mcp-go, which answers it.
// Every message reaches handle in its session's context (Session.Bind, by
// both transports), so the direct path never meets a call without one.
// Either way the answer carries the request's id as the client wrote it
// (withRequestID).
//
// A panic in the tool or in mcp-go is recovered (recoverCall): the answer
// is JSON-RPC -32603, and the briefing goes on serving.
//
// Each message runs under a context of its own, which Stop cancels, and
// counts as in flight until it returns (Wait); after Stop, handle answers
// without running anything (refused).
func (tr *Transport) handle(ctx context.Context, m inbound) (resp mcp.JSONRPCMessage) {
	ctx, end, ok := tr.calls.begin(ctx)
	if !ok {
		return refused(m)
	}
	defer end()
	defer tr.recoverCall(&m, &resp)
	return withRequestID(tr.answer(ctx, m), m.id)
}

// withRequestID gives an answer the id of its request exactly as the
// client wrote it. mcp-go decodes ids into float64, so an integer id past
// 2^53 (12345678901234567891) came back as another number
// (12345678901234567000), and the client could not match its answer
// (JSON-RPC 2.0 section 5: the same value as the request's).
func withRequestID(resp mcp.JSONRPCMessage, id json.RawMessage) mcp.JSONRPCMessage {
	if id == nil {
		return resp
	}
	switch r := resp.(type) {
	case mcp.JSONRPCResponse:
		r.ID = mcp.NewRequestId(id)
		return r
	case mcp.JSONRPCError:
		r.ID = mcp.NewRequestId(id)
		return r
	}
	return resp
}

// answer is handle's answer, with the id as mcp-go decodes it.
func (tr *Transport) answer(ctx context.Context, m inbound) mcp.JSONRPCMessage {
	ctx = withArguments(ctx, m.args)
	if !m.plain {
		return tr.cfg.MCP.HandleMessage(ctx, m.mcpBody())
	}
	tool := tr.cfg.Tools[m.tool]
	if tool == nil || tool.Tool.Execution != nil {
		return tr.cfg.MCP.HandleMessage(ctx, m.mcpBody())
	}
	req := mcp.CallToolRequest{
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)},
		Params:  mcp.CallToolParams{Name: m.tool},
	}
	id := mcp.NewRequestId(m.idValue)
	res, err := tool.Handler(ctx, req)
	switch {
	case err != nil:
		return rpcError(m.idValue, mcp.INTERNAL_ERROR, err.Error())
	case res == nil:
		return rpcError(m.idValue, mcp.INTERNAL_ERROR, fmt.Sprintf("tool '%s' handler returned no result", m.tool))
	}
	return mcp.NewJSONRPCResultResponse(id, res)
}

func envelopeError(id any, code int, msg string) *mcp.JSONRPCError {
	e := rpcError(id, code, msg)
	return &e
}

type argumentsKey struct{}

// withArguments returns ctx carrying a tools/call's raw arguments.
func withArguments(ctx context.Context, args []byte) context.Context {
	if args == nil {
		return ctx
	}
	return context.WithValue(ctx, argumentsKey{}, args)
}

// Arguments returns the raw arguments of the tools/call that ctx serves,
// exactly as the client sent them (the transport takes them out of the
// message, and mcp-go sees {} in their place), or nil when the call had
// none.
func Arguments(ctx context.Context) []byte {
	args, _ := ctx.Value(argumentsKey{}).([]byte)
	return args
}
