package server

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/jsontest"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/server/transport"
)

// The answer types encode themselves (AppendJSON), and the transport's
// encoder (transport.AppendMessage) writes the envelope around them: these
// tests hold both to json.Marshal's bytes. The transport's own tests hold
// its direct path to mcp-go's.

// jsonAppender is what the transport's encoder asks of structured content
// to let it encode itself.
type jsonAppender interface{ AppendJSON(dst []byte) []byte }

// jsonrpcError is a JSON-RPC error answer with no data.
func jsonrpcError(id any, code int, msg string) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, msg, nil)}
}

// TestAppendMessageSynthetic holds the transport's encoder to json.Marshal on
// answers no tool gives today but the encoder must still write exactly.
func TestAppendMessageSynthetic(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	yes, no := true, false
	exit, next := int64(-1), int64(3)
	var signalled *int64
	pexit := &exit
	snap := limits.Snapshot{Step: 1, LookupsUsed: 2, LookupsLeft: 3, BytesUsed: 4, BytesLeft: 5, ExpandBytesUsed: 6, ExpandBytesLeft: 7, Refused: true}
	full := results.Descriptor{
		ID: str("r1"), SHA256: "ab<>", Bytes: 1, Lines: 1, Complete: true, JSON: str("object"),
		Source:  results.Source{Kind: "edit", At: str("/a<b>"), Path: str("p\u2028"), Label: str("l&"), ExitCode: &pexit, TimedOut: &no, DroppedBytes: 9},
		Preview: str(""), PreviewComplete: &yes, Reused: &no, Retained: true, Reason: "store_full",
	}
	bare := results.Descriptor{SHA256: "x"}
	ran := results.Descriptor{SHA256: "y", Source: results.Source{Kind: "output", Label: str("test"), ExitCode: &signalled, TimedOut: &yes,
		Cancelled: true, DroppedBytes: 1, Replaced: 2}, Preview: str("tail"), PreviewComplete: &no, Reused: &no}
	ids := []any{nil, "", "id<>&\u2028", "bad\xff", float64(0), math.Copysign(0, -1), 1.5, 1e21, 1e20, 1e-7, 1e-6, 123456789, -1e300,
		int64(-7), 42, json.RawMessage(` "raw" `), json.RawMessage("7")}

	var values []any
	for _, text := range jsontest.Awkward {
		sel := &briefing.Selection{Result: new("r1"), SHA256: text, Selection: briefing.ByteSelection{Start: 1, End: 2}, Text: text, Bytes: 3, EscapedBytes: 4, Budget: snap}
		other := *sel
		other.Text, other.Type, other.Selection = text+"!", "string<>", briefing.PointerSelection{Pointer: "/a~1<b>", As: text}
		lines := *sel
		lines.Selection = briefing.LineSelection{First: 1, Last: 2}
		none := *sel
		none.Selection = nil
		errText := errcode.New(errcode.InvalidArgument, "bad %q", text).With(errcode.Details{
			At: &text, Lines: new(int64(1)), Cause: errcode.New(errcode.NotFound, "%s", text), File: &errcode.File{Path: text, SHA256: &text},
		})
		meta := &mcp.CallToolResult{
			Result:  mcp.Result{Meta: &mcp.Meta{ProgressToken: text, AdditionalFields: map[string]any{"k<": text}}, ResultType: mcp.ResultTypeComplete},
			Content: []mcp.Content{mcp.NewTextContent(text), mcp.NewTextContent(text)}, StructuredContent: sel,
		}
		annotated := mcp.NewTextContent(text)
		annotated.Annotations = &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}}
		annotated.Meta = &mcp.Meta{AdditionalFields: map[string]any{"a": text}}
		mixed := &mcp.CallToolResult{
			Content:           []mcp.Content{annotated, mcp.NewImageContent(text, "image/png"), &annotated, mcp.NewTextContent(text)},
			StructuredContent: json.RawMessage("{ \"a\" : [ 1 , \"<\u2028>\" ] }"),
		}
		values = append(values,
			success(text, nil), success(text, sel), success(text, &other), success(text, &lines), success(text, &none),
			success(text, &briefing.Page{Page: 1, Pages: 2, Total: 3, Results: []results.Descriptor{full, bare}, Next: &next, Budget: snap, Text: text}),
			success(text, &briefing.Page{Results: []results.Descriptor{}}), success(text, &briefing.Page{}),
			success(text, &full), success(text, &bare), success(text, &ran), success(text, stepAnswer{Step: 3, Limits: limits.Defaults().Step()}),
			success(text, map[string]any{"b": text, "a": []any{1.5, nil, true}}), success(text, (*briefing.Selection)(nil)),
			success(text, (*briefing.Page)(nil)), success(text, struct{ X string }{text}),
			success(text, inspectAnswer{Results: []inspectEntry{{Descriptor: &full}, {pathError: &pathError{text, errorJSON(errText)}},
				{pathError: &pathError{Path: text}}, {}}}), success(text, inspectAnswer{}),
			failure(errText, &snap), failure(errText, nil), &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: failureBody{}},
			meta, mixed,
			&mcp.CallToolResult{}, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{}},
			&mcp.CallToolResult{RawStructuredContent: json.RawMessage(`{ "raw" : 1 }`), Content: []mcp.Content{mcp.NewTextContent(text)}},
			&mcp.CallToolResult{MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: text}},
			(*mcp.CallToolResult)(nil), mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}},
			&mcp.EmptyResult{},
		)
	}
	count := 0
	for k, id := range ids {
		for i, v := range values {
			if k > 1 && i >= 40 {
				break // the first texts' answers suffice for the other ids
			}
			check := func(msg any) {
				t.Helper()
				want, err := json.Marshal(msg)
				require.NoError(t, err)
				got, err := transport.AppendMessage(nil, msg)
				require.NoError(t, err)
				require.Equal(t, string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)), "id %#v, value %d", id, i)
				count++
			}
			check(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), v))
			if r, ok := v.(*mcp.CallToolResult); ok && r != nil && len(r.Content) > 0 {
				text := r.Content[len(r.Content)-1].(mcp.TextContent).Text
				check(jsonrpcError(id, mcp.INTERNAL_ERROR, text))
				check(mcp.JSONRPCError{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(-1, text, map[string]any{"d": text})})
				check(mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: text}})
			}
		}
	}
	t.Logf("%d messages compared", count)

	// What json.Marshal refuses, appendMessage refuses, leaving dst as is.
	for _, bad := range []any{
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(math.NaN()), success("x", nil)),
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), success("x", map[string]any{"f": math.Inf(1)})),
		jsonrpcError(math.Inf(-1), 1, "x"),
	} {
		_, want := json.Marshal(bad)
		require.Error(t, want)
		got, err := transport.AppendMessage([]byte("keep"), bad)
		assert.Error(t, err)
		assert.Equal(t, "keep", string(got))
	}
}

// TestAppendString holds the server's string encoder to json.Marshal on
// the jsontest.Awkward strings (limits' TestAppendJSONString takes every character
// class).
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range append(jsontest.Awkward, "\u2027\u2028\u2029\u202a", "\xe2\x80", "\xe2", "a\xe2\x80\xa8") {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(jsontest.AsMarshal(transport.AppendString(nil, s))), "%q", s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range jsontest.Awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(jsontest.AsMarshal(transport.AppendString(nil, s))))
	})
}

// FuzzAppendMessage holds a lookup's whole answer, and its error answer,
// to json.Marshal's bytes for any text and numeric id.
func FuzzAppendMessage(f *testing.F) {
	for i, s := range jsontest.Awkward {
		f.Add(s, float64(i)*1.25e10, "id")
	}
	f.Fuzz(func(t *testing.T, text string, num float64, id string) {
		sel := &briefing.Selection{Result: &id, SHA256: text, Selection: briefing.PointerSelection{Pointer: id, As: text}, Type: id, Text: text}
		for _, msg := range []any{
			mcp.NewJSONRPCResultResponse(mcp.NewRequestId(num), success(text, sel)),
			mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), failure(errcode.New(errcode.InvalidArgument, "%s", text), nil)),
			jsonrpcError(id, -32600, text),
		} {
			want, wantErr := json.Marshal(msg)
			got, err := transport.AppendMessage(nil, msg)
			if wantErr != nil {
				require.Error(t, err)
				continue
			}
			require.NoError(t, err)
			require.Equal(t, string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)))
		}
	})
}

// TestAppendStringSurrogates checks that the 3-byte form of a lone
// surrogate is written as its escape, and every other invalid byte as
// \ufffd.
func TestAppendStringSurrogates(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"k\xed\xa0\x80":             `"k\ud800"`,
		"\xed\xbf\xbfx\xed\xb0\x80": `"\udfff` + `x\udc00"`,
		"\xed\xa0":                  `"\ufffd\ufffd"`,
		"\xed\x9f\xbf":              "\"\xed\x9f\xbf\"", // U+D7FF is a character: written as it is
		"\xed\xa0\x80\xed\xb0\x80":  `"\ud800\udc00"`,
		`\ud800`:                    `"\\ud800"`,
	} {
		assert.Equal(t, want, string(transport.AppendString(nil, in)), "%q", in)
	}
}

// TestEncodedShapes pins the members of every type written by hand, by
// appendMessage or by its own AppendJSON: a member added must be added to
// its encoder too (the differential tests then check its bytes).
func TestEncodedShapes(t *testing.T) {
	t.Parallel()
	shape := func(v any) string {
		var parts []string
		var walk func(reflect.Type, string)
		walk = func(rt reflect.Type, prefix string) {
			for f := range rt.Fields() {
				if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
					walk(f.Type, prefix+f.Name+".")
					continue
				}
				parts = append(parts, prefix+f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
			}
		}
		walk(reflect.TypeOf(v), "")
		return strings.Join(parts, "; ")
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{mcp.JSONRPCResponse{}, "JSONRPC string jsonrpc; ID mcp.RequestId id; Result interface {} result"},
		{mcp.JSONRPCError{}, "JSONRPC string jsonrpc; ID mcp.RequestId id; Error mcp.JSONRPCErrorDetails error"},
		{mcp.JSONRPCErrorDetails{}, "Code int code; Message string message; Data interface {} data,omitempty"},
		{mcp.CallToolResult{}, "Result.Meta *mcp.Meta _meta,omitempty; Result.ResultType mcp.ResultType resultType,omitempty; " +
			"MultiRoundTripResult.InputRequests mcp.InputRequests inputRequests,omitempty; MultiRoundTripResult.RequestState string requestState,omitempty; " +
			"Content []mcp.Content content; StructuredContent interface {} structuredContent,omitempty; " +
			"RawStructuredContent json.RawMessage -; IsError bool isError,omitempty"},
		{mcp.TextContent{}, "Annotated.Annotations *mcp.Annotations annotations,omitempty; Meta *mcp.Meta _meta,omitempty; Type string type; Text string text"},
		{briefing.Selection{}, "Result *string result; SHA256 string sha256; Selection briefing.Selector selection; Type string type,omitempty; " +
			"Text string text; Bytes int64 bytes; EscapedBytes int64 escaped_bytes; Budget limits.Snapshot budget; Quoted []uint8 -"},
		{briefing.ByteSelection{}, "Start int64 start; End int64 end"},
		{briefing.LineSelection{}, "First int64 first; Last int64 last; Numbered bool numbered,omitempty"},
		{briefing.PointerSelection{}, "Pointer string pointer; As string as"},
		{briefing.Page{}, "Page int64 page; Pages int64 pages; Total int64 total; Results []results.Descriptor results; " +
			"Next *int64 next; Budget limits.Snapshot budget; Text string -"},
		{results.Descriptor{}, "ID *string id; SHA256 string sha256; Bytes int64 bytes; Lines int64 lines; Complete bool complete; " +
			"Source results.Source source; JSON *string json; Preview *string preview,omitempty; PreviewComplete *bool preview_complete,omitempty; " +
			"Reused *bool reused,omitempty; Retained bool retained; Reason string reason,omitempty; NoFinalNewline bool -; CRLF bool -"},
		{results.Source{}, "Kind string kind; At *string at,omitempty; Path *string path,omitempty; Label *string label,omitempty; " +
			"ExitCode **int64 exit_code,omitempty; TimedOut *bool timed_out,omitempty; Cancelled bool cancelled,omitempty; " +
			"DroppedBytes int64 dropped_bytes,omitempty; Replaced int64 replaced,omitempty"},
		{limits.Snapshot{}, "Step int64 step; LookupsUsed int64 lookups_used; LookupsLeft int64 lookups_left; BytesUsed int64 bytes_used; " +
			"BytesLeft int64 bytes_left; ExpandBytesUsed int64 expand_bytes_used; ExpandBytesLeft int64 expand_bytes_left; Refused bool refused"},
		{limits.Limit{}, "Name string ; Value int64 "},
		{briefing.Expansion{}, "At string at; Bytes int64 bytes; SHA256 string sha256; Parts int parts; Result *string result"},
		{briefing.Written{}, "Path string path; Bytes int64 bytes; SHA256 string sha256; Base *string base; Result results.Descriptor result; Diff string diff; " +
			"Budget limits.Snapshot budget; Text string -; lines int64 "},
		{failureBody{}, "Error json.RawMessage error; Budget *limits.Snapshot budget,omitempty"},
		{inspectAnswer{}, "Results []server.inspectEntry results"},
		{inspectEntry{}, "Descriptor *results.Descriptor ; pathError *server.pathError "},
		{pathError{}, "Path string path; Error json.RawMessage error"},
		{stepAnswer{}, "Step int64 step; Limits server.orderedInts limits"},
		{expandAnswer{}, "Arguments json.RawMessage arguments; Expansions []briefing.Expansion expansions; Budget limits.Snapshot budget"},
	} {
		assert.Equal(t, c.want, shape(c.v), "%T", c.v)
	}
	// The types json.Marshal reaches by reflection, so that the twins
	// check the encoder and every AppendJSON against it: a MarshalJSON
	// here (one derived from AppendJSON) would hold AppendJSON to itself.
	// orderedInts (an ordered object) derives its own from AppendJSON, and
	// failureBody's "error" is errorJSON's, both
	// sides alike: errcode's tests check those bytes.
	marshaler := reflect.TypeFor[json.Marshaler]()
	for _, v := range []any{briefing.Selection{}, briefing.Page{}, results.Descriptor{}, results.Source{}, limits.Snapshot{},
		briefing.ByteSelection{}, briefing.LineSelection{}, briefing.PointerSelection{}, briefing.Expansion{}, briefing.Written{},
		failureBody{}, inspectAnswer{}, inspectEntry{}, pathError{}, stepAnswer{}, expandAnswer{},
		mcp.JSONRPCResponse{}, mcp.JSONRPCError{}, mcp.JSONRPCErrorDetails{}, mcp.TextContent{}} {
		rt := reflect.TypeOf(v)
		assert.False(t, rt.Implements(marshaler) || reflect.PointerTo(rt).Implements(marshaler), "%s has a MarshalJSON", rt)
	}
}

// TestAnswersEncodeThemselves: the answer types stay jsonAppenders, so
// that none is left to json.Marshal by a changed signature: it would write
// a lone surrogate escape that a client sent as U+FFFD, a difference the
// twins' asMarshal hides. (find's briefing.Found is marshalled: its
// strings are a result's ID, digest and lines, all valid UTF-8.)
func TestAnswersEncodeThemselves(t *testing.T) {
	t.Parallel()
	for _, v := range []any{&briefing.Selection{}, &briefing.Page{}, &results.Descriptor{}, &briefing.Written{},
		failureBody{}, inspectAnswer{}, stepAnswer{}, expandAnswer{}} {
		_, ok := v.(jsonAppender)
		assert.True(t, ok, "%T", v)
	}
	for _, v := range []briefing.Selector{briefing.ByteSelection{}, briefing.LineSelection{}, briefing.PointerSelection{}} {
		_, ok := v.(jsonAppender)
		assert.True(t, ok, "%T", v)
	}
}

// compactHTMLCases are arguments as expand_edit returns them: the client's
// own JSON, white space and all, with strings that json.Marshal escapes.
var compactHTMLCases = []string{
	`{}`,
	`{"path": "a.go", "content": "x<y && z>w\n"}`,
	" {\n\t\"a\" : [ 1 , 2.5e3 , true , false , null ] ,\r\n \"b\" : { } } ",
	`{"s":"quote \" backslash \\ slash \/ \u003c tab\t"}`,
	"{\"ls\":\"\u2028\u2029\",\"k\u2028\":1}",
	"{\"raw\":\"\xff\xfe \xe2\x80\"}",
	`{"nested":[[["<>"]],{"&":{"":""}}]}`,
	`{"lone":"\ud800"}`,
}

func TestAppendExpandAnswer(t *testing.T) {
	t.Parallel()
	snap := limits.Snapshot{Step: 2, LookupsUsed: 1, ExpandBytesUsed: 5}
	r := "r7"
	exp := []briefing.Expansion{{At: "/a<b>", Bytes: 3, SHA256: "ab", Parts: 1}, {At: "", Bytes: 0, SHA256: "cd&", Parts: 2, Result: &r}}
	for _, args := range compactHTMLCases {
		t.Run(args, func(t *testing.T) {
			for _, a := range []expandAnswer{{json.RawMessage(args), exp, snap}, {json.RawMessage(args), nil, snap}, {json.RawMessage(args), []briefing.Expansion{}, snap}} {
				want, err := json.Marshal(a)
				require.NoError(t, err)
				got := a.AppendJSON([]byte("x"))
				assert.Equal(t, "x"+string(want), string(got))
			}
		})
	}
}

// FuzzAppendCompactHTML holds appendCompactHTML to json.Marshal's
// encoding of a json.RawMessage, for any valid JSON.
func FuzzAppendCompactHTML(f *testing.F) {
	for _, c := range compactHTMLCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		want, err := json.Marshal(json.RawMessage(src))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(appendCompactHTML(nil, src)))
	})
}
