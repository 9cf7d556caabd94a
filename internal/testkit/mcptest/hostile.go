package mcptest

import "strings"

// The hostile messages that the tests of both transports send, and that
// seed the transport's fuzz target.

// ToolCall is a tools/call request with a raw id.
func ToolCall(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// Nested is depth arrays (or objects) nested in each other.
func Nested(depth int, objects bool) string {
	if objects {
		return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	}
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// Malformed are messages that are not valid JSON-RPC requests, with the
// JSON-RPC error code each gets over stdio and over HTTP (where it is also
// the HTTP status), and the id of the answer (nil: null).
var Malformed = []struct {
	Name       string
	Body       string
	Stdio      float64 // JSON-RPC error code over stdio
	HTTP       float64 // ... and over HTTP
	HTTPStatus int     // 400 when the transport refuses the body, 200 when the dispatch answers
	WantID     any
	Note       string // why the stdio code differs from what JSON-RPC 2.0 prescribes, if it does
}{
	{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_st`, -32700, -32700, 400, nil, ""},
	{"empty array", `[]`, -32600, -32600, 400, nil, "JSON-RPC 2.0 answers an empty batch with -32600"},
	{"batch", `[` + ToolCall("1", "begin_step", `{}`) + `]`, -32600, -32600, 400, nil, "batches are not supported"},
	{"empty object", `{}`, -32600, -32600, 400, nil, ""},
	{"null", `null`, -32600, -32600, 400, nil, ""},
	{"bare string", `"tools/call"`, -32600, -32600, 400, nil, "valid JSON that is not a request object is -32600 in JSON-RPC 2.0"},
	{"bare number", `42`, -32600, -32600, 400, nil, "valid JSON that is not a request object is -32600 in JSON-RPC 2.0"},
	{"binary garbage", "\x00\x01\x7f\xff\xfe\x80garbage\xc3", -32700, -32700, 400, nil, ""},
	{"BOM-prefixed request", "\xef\xbb\xbf" + ToolCall("3", "begin_step", `{}`), -32700, -32700, 400, nil, ""},
	{"NUL between members", `{"jsonrpc":"2.0","id":4,` + "\x00" + `"method":"ping"}`, -32700, -32700, 400, nil, ""},
	{"NUL inside a string", `{"jsonrpc":"2.0","id":4,"method":"pi` + "\x00" + `ng"}`, -32700, -32700, 400, nil, ""},
	{"invalid UTF-8 in the method", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no\xffsuch\"}", -32600, -32600, 400, float64(4), ""},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, -32600, 200, float64(5), ""},
	{"jsonrpc missing", `{"id":5,"method":"ping"}`, -32600, -32600, 200, float64(5), ""},
	{"method of the wrong type", `{"jsonrpc":"2.0","id":5,"method":42}`, -32600, -32600, 400, float64(5), ""},
	{"params an array", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]}`, -32600, -32600, 200, float64(6), ""},
	{"params a string", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"x"}`, -32600, -32600, 200, float64(6), ""},
	{"tool name of the wrong type", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":42}}`, -32600, -32600, 200, float64(6), ""},
	{"tools/call without params", `{"jsonrpc":"2.0","id":6,"method":"tools/call"}`, -32602, -32602, 200, float64(6), ""},
	{"unknown tool", ToolCall("7", "no_such_tool", `{}`), -32602, -32602, 200, float64(7), ""},
	{"empty tool name", ToolCall("7", "", `{}`), -32602, -32602, 200, float64(7), ""},
	{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"no/such/method"}`, -32601, -32601, 200, float64(8), ""},
	{"empty method", `{"jsonrpc":"2.0","id":8,"method":""}`, -32600, -32600, 400, float64(8), ""},
	{"notification method as a request", `{"jsonrpc":"2.0","id":8,"method":"notifications/initialized"}`, -32601, -32601, 200, float64(8), ""},
	{"100,000 nested arrays", ToolCall("9", "expand_edit", `{"arguments":{"x":`+Nested(100_000, false)+`}}`), -32700, -32700, 400, nil, ""},
	{"100,000 nested objects", ToolCall("9", "expand_edit", `{"arguments":{"x":`+Nested(100_000, true)+`}}`), -32700, -32700, 400, nil, ""},
	{"100,000 nested arrays as the id", `{"jsonrpc":"2.0","id":` + Nested(100_000, false) + `,"method":"ping"}`, -32700, -32700, 400, nil, ""},
}

// OneReading are messages whose members differ from JSON-RPC's names only
// by case, or that mix a request's members with a response's, or that nest
// past the 1,000 levels of the tools' own JSON index: the transport decides
// what each message is once, and answers it from that reading alone. The
// same table runs over stdio and over HTTP.
var OneReading = []struct {
	Name       string
	Body       string
	Answered   bool    // an answer comes (else: none, and over HTTP 202)
	WantID     any     // the answer's id
	Code       float64 // its JSON-RPC error code; 0 for a result
	Steps      int     // begin_steps the message runs
	Tool       string  // the tool whose answer comes, if any ("" for ping's {})
	HTTPStatus int
}{
	{"ID beside id", `{"jsonrpc":"2.0","id":11,"method":"ping","ID":null}`, true, float64(11), 0, 0, "", 200},
	{"result beside method", `{"jsonrpc":"2.0","id":12,"method":"ping","result":{}}`, true, float64(12), -32600, 0, "", 400},
	{"error beside method", `{"jsonrpc":"2.0","id":12,"method":"ping","error":{"code":1,"message":"x"}}`, true, float64(12), -32600, 0, "", 400},
	{"Result beside a call", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"begin_step","arguments":{}},"Result":1}`, true, float64(13), 0, 1, "begin_step", 200},
	{"Id on a notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"begin_step","arguments":{}},"Id":14}`, false, nil, 0, 0, "", 202},
	{"Method beside method", `{"jsonrpc":"2.0","id":15,"method":"ping","Method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, true, float64(15), 0, 0, "", 200},
	{"METHOD beside a call", `{"jsonrpc":"2.0","id":15,"method":"tools/call","METHOD":"ping","params":{"name":"begin_step","arguments":{}}}`, true, float64(15), 0, 1, "begin_step", 200},
	{"Jsonrpc for jsonrpc", `{"Jsonrpc":"2.0","id":16,"method":"ping"}`, true, float64(16), -32600, 0, "", 200},
	{"Params for params", `{"jsonrpc":"2.0","id":17,"method":"tools/call","Params":{"name":"begin_step","arguments":{}}}`, true, float64(17), -32602, 0, "", 200},
	{"Name beside name", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"list_results","Name":"begin_step","arguments":{}}}`, true, float64(18), 0, 0, "list_results", 200},
	{"Arguments beside arguments", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"begin_step","arguments":{},"Arguments":{"x":1}}}`, true, float64(19), 0, 1, "begin_step", 200},
	{"an escaped name is the name", `{"jsonrpc":"2.0","id":20,"\u006dethod":"ping"}`, true, float64(20), 0, 0, "", 200},
	{"null id past 1,000 levels", `{"jsonrpc":"2.0","id":null,"method":"ping","params":{"x":` + Nested(2_000, false) + `}}`, true, nil, -32600, 0, "", 400},
	{"object id past 1,000 levels", `{"jsonrpc":"2.0","id":{"a":` + Nested(2_000, true) + `},"method":"ping"}`, true, nil, -32600, 0, "", 400},
	{"batch past 1,000 levels", `[` + ToolCall("21", "begin_step", `{}`) + `,` + Nested(2_000, false) + `]`, true, nil, -32600, 0, "", 400},
	{"ping past 1,000 levels", `{"jsonrpc":"2.0","id":22,"method":"ping","params":{"x":` + Nested(2_000, true) + `}}`, true, float64(22), 0, 0, "", 200},
	{"Id past 1,000 levels", `{"jsonrpc":"2.0","method":"ping","params":{"x":` + Nested(2_000, false) + `},"Id":23}`, false, nil, 0, 0, "", 202},
}
