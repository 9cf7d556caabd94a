package server

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"loom-results/selectors"
)

// inbound is one JSON-RPC message as both transports read it before mcp-go
// handles it.
type inbound struct {
	id       json.RawMessage // as the client wrote it; nil when absent or null
	method   string
	response bool   // a response to the server (there are none to wait for): dropped
	body     []byte // what mcp-go handles: the message, tools/call's arguments replaced by {}
	args     []byte // tools/call's arguments exactly as sent, or nil
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
// 4): an object whose id, when present, is a string or a number, with a
// string method, or else a response (result or error). A body that is not
// JSON is a parse error (-32700); a batch or any other shape is an invalid
// request (-32600); both are answered with id null.
//
// For tools/call it takes the arguments out of the message: the tools
// read them exactly as sent (SPEC 5: raw invalid UTF-8 and numbers beyond
// float64 are the tool's to judge, and a lookup with malformed arguments
// still counts), and mcp-go does not decode a large edit into maps.
func readMessage(body []byte) (inbound, *mcp.JSONRPCError) {
	ix, err := selectors.IndexJSONWith(body, selectors.IndexJSONOptions{AllowInvalidUTF8: true})
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
	case selectors.JSONObject:
	case selectors.JSONArray:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "JSON-RPC batches are not supported: send one message at a time")
	default:
		return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "the message is not a JSON-RPC object")
	}
	m := inbound{body: body}
	var params selectors.NodeID
	hasMethod, badMethod, hasParams, hasResult := false, false, false, false
	for member, v := range ix.Members(root) {
		switch member.Name {
		case "id":
			switch ix.Kind(v) {
			case selectors.JSONString, selectors.JSONNumber:
				start, end := ix.Span(v)
				m.id = json.RawMessage(body[start:end])
			case selectors.JSONNull:
			default:
				return inbound{}, envelopeError(nil, mcp.INVALID_REQUEST, "a JSON-RPC id is a string or a number")
			}
		case "method":
			s, bad := ix.StringText(v)
			badMethod = ix.Kind(v) != selectors.JSONString || bad >= 0 || s == ""
			m.method, hasMethod = s, true
		case "params":
			params, hasParams = v, true
		case "result", "error":
			hasResult = true
		}
	}
	if badMethod {
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "a JSON-RPC method is a non-empty UTF-8 string")
	}
	if !hasMethod {
		if hasResult {
			m.response = true
			return m, nil
		}
		return inbound{}, envelopeError(m.errorID(), mcp.INVALID_REQUEST, "the message is not a JSON-RPC request, notification or response")
	}
	if m.method == string(mcp.MethodToolsCall) && hasParams && ix.Kind(params) == selectors.JSONObject {
		var args selectors.NodeID
		count := 0
		for member, v := range ix.Members(params) {
			if member.Name == "arguments" {
				args = v
				count++
			}
		}
		// A repeated "arguments" is left to mcp-go, which keeps the last;
		// the tool then reads what mcp-go kept.
		if count == 1 {
			start, end := ix.Span(args)
			m.args = body[start:end]
			m.body = append(append(append(make([]byte, 0, len(body)-(end-start)+2), body[:start]...), "{}"...), body[end:]...)
		}
	}
	return m, nil
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
