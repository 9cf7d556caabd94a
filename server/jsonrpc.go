package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/internal/jsontape"
)

// inbound is one JSON-RPC message as both transports read it before mcp-go
// handles it.
type inbound struct {
	id       json.RawMessage // as the client wrote it; nil when absent or null
	method   string
	response bool   // a response to the server (there are none to wait for): dropped
	body     []byte // the message as sent
	args     []byte // tools/call's arguments exactly as sent, or nil
	argsAt   int    // where args start in body

	// A plain tools/call (see plainCall), which the server runs itself:
	// the tool's name, and the id as mcp-go decodes it (a string or a
	// float64).
	plain   bool
	tool    string
	idValue any
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

// readMessage checks the JSON-RPC envelope of body (JSON-RPC 2.0 section
// 4): an object whose id, when present, is a string or a number (null only
// in a response), with a string method, or else a response (result or
// error). A body that is not JSON is a parse error (-32700); a batch or any
// other shape is an invalid request (-32600); both are answered with id
// null.
//
// For tools/call it takes the arguments out of the message: the tools
// read them exactly as sent (SPEC 5: raw invalid UTF-8 and numbers beyond
// float64 are the tool's to judge, and a lookup with malformed arguments
// still counts), and mcp-go does not decode a large edit into maps.
func readMessage(body []byte) (inbound, *mcp.JSONRPCError) {
	ix, err := jsontape.Build(body, jsontape.Options{AllowInvalidUTF8: true})
	if err != nil {
		if !json.Valid(body) {
			return inbound{}, envelopeError(nil, mcp.PARSE_ERROR, "the message is not valid JSON")
		}
		// Valid for encoding/json but past the index's depth limit: mcp-go
		// reads it as it is, and the tool answers its arguments.
		return inbound{body: body, method: methodOf(body), id: idOf(body)}, nil
	}
	root := ix.Root()
	switch ix.Kind(root) {
	case jsontape.Object:
	case jsontape.Array:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "JSON-RPC batches are not supported: send one message at a time")
	default:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "the message is not a JSON-RPC object")
	}
	m := inbound{body: body}
	var params, idNode jsontape.Node
	hasMethod, badMethod, hasParams, hasResult, nullID := false, false, false, false, false
	// plain holds while the envelope has exactly the members of a plain
	// call, each once; seen counts them by bit.
	plain, seen := true, 0
	for member, v := range ix.Members(root) {
		bit := 0
		switch member.Name {
		case "jsonrpc":
			bit = 1
			s, bad := ix.StringText(v)
			plain = plain && ix.Kind(v) == jsontape.String && bad < 0 && s == mcp.JSONRPC_VERSION
		case "id":
			bit = 2
			switch ix.Kind(v) {
			case jsontape.String, jsontape.Number:
				start, end := ix.Span(v)
				m.id = json.RawMessage(body[start:end])
				idNode = v
			case jsontape.Null:
				nullID = true
			default:
				return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a JSON-RPC id is a string or a number")
			}
		case "method":
			bit = 4
			s, bad := ix.StringText(v)
			badMethod = ix.Kind(v) != jsontape.String || bad >= 0 || s == ""
			m.method, hasMethod = s, true
		case "params":
			bit = 8
			params, hasParams = v, true
		case "result", "error":
			hasResult = true
		}
		plain = plain && bit != 0 && seen&bit == 0 && !member.InvalidUTF8
		seen |= bit
	}
	if badMethod {
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "a JSON-RPC method is a non-empty UTF-8 string")
	}
	if hasMethod && nullID {
		// JSON-RPC allows a null id but discourages it; MCP forbids it
		// (a request's id is a string or an integer). mcp-go would take
		// the request for a notification and never answer it.
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a request's id is a string or a number, never null (MCP); a notification has no id")
	}
	if !hasMethod {
		if hasResult {
			m.response = true
			return m, nil
		}
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "the message is not a JSON-RPC request, notification or response")
	}
	if m.method == string(mcp.MethodToolsCall) && hasParams && ix.Kind(params) == jsontape.Object {
		var args, name jsontape.Node
		count, names, others := 0, 0, false
		for member, v := range ix.Members(params) {
			switch member.Name {
			case "arguments":
				args = v
				count++
			case "name":
				name = v
				names++
			default:
				others = true
			}
		}
		// A repeated "arguments" is left to mcp-go, which keeps the last;
		// the tool then reads what mcp-go kept.
		if count == 1 {
			start, end := ix.Span(args)
			m.args, m.argsAt = body[start:end], start
		}
		if plain && seen == 15 && count <= 1 && names == 1 && !others {
			m.plainCall(ix, name, idNode)
		}
	}
	return m, nil
}

// mcpBody is what mcp-go handles: the message, with tools/call's
// arguments (taken out by readMessage) replaced by {}.
func (m *inbound) mcpBody() []byte {
	if m.args == nil {
		return m.body
	}
	start, end := m.argsAt, m.argsAt+len(m.args)
	return append(append(append(make([]byte, 0, len(m.body)-len(m.args)+2), m.body[:start]...), "{}"...), m.body[end:]...)
}

// plainCall marks m as a plain tools/call: one whose envelope has exactly
// "jsonrpc" ("2.0"), "id" (a string or a number), "method" and "params",
// and whose params has exactly a "name" and at most one "arguments" (any
// value: the tool judges it), each member once, its name as written or
// escaped but never in another case (encoding/json would match that too);
// name is a string, and no string mcp-go reads holds invalid UTF-8 or a
// lone surrogate (encoding/json would read U+FFFD). mcp-go decodes such a
// message without fail, reads every member as written and finds no _meta,
// so no protocol-era metadata: answering it needs none of its dispatch
// (Server.handle).
func (m *inbound) plainCall(ix *jsontape.Index, name, idNode jsontape.Node) {
	tool, bad := ix.StringText(name)
	if ix.Kind(name) != jsontape.String || bad >= 0 {
		return
	}
	// The id as encoding/json decodes it into an any.
	var id any
	switch ix.Kind(idNode) {
	case jsontape.String:
		s, bad := ix.StringText(idNode)
		if bad >= 0 {
			return
		}
		id = s
	case jsontape.Number:
		f, err := strconv.ParseFloat(string(m.id), 64)
		if err != nil {
			return // out of float64's range: mcp-go refuses the message
		}
		id = f
	default:
		return
	}
	m.plain, m.tool, m.idValue = true, tool, id
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
// two to the same bytes). Tools that mcp-go does not know, and calls
// without a briefing, still go to mcp-go, which answers them. Either way
// the answer carries the request's id as the client wrote it
// (withRequestID).
func (s *Server) handle(ctx context.Context, m inbound) mcp.JSONRPCMessage {
	return withRequestID(s.answer(ctx, m), m.id)
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
func (s *Server) answer(ctx context.Context, m inbound) mcp.JSONRPCMessage {
	ctx = withArguments(ctx, m.args)
	if !m.plain || briefingFrom(ctx) == nil {
		return s.mcp.HandleMessage(ctx, m.mcpBody())
	}
	tool := s.mcp.GetTool(m.tool)
	if tool == nil || tool.Tool.Execution != nil {
		return s.mcp.HandleMessage(ctx, m.mcpBody())
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

// methodOf and idOf read the envelope with encoding/json, for messages the
// index does not take.
func methodOf(body []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(body, &m)
	return m.Method
}

func idOf(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || bytes.Equal(m.ID, []byte("null")) {
		return nil
	}
	return m.ID
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

// argumentsFrom returns the raw arguments the transport took out of the
// message, or nil.
func argumentsFrom(ctx context.Context) []byte {
	args, _ := ctx.Value(argumentsKey{}).([]byte)
	return args
}
