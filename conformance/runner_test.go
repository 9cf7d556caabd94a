package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArchive(t *testing.T) {
	t.Parallel()
	data := "comment\n-- a --\nA\n-- b --\n-- c --\nC1\nC2" // c has no final newline
	a := parseArchive([]byte(data))
	assert.Equal(t, "comment\n", string(a.Comment))
	require.Len(t, a.Files, 3)
	assert.Equal(t, archiveFile{Name: "a", Data: []byte("A\n")}, a.Files[0])
	assert.Equal(t, "b", a.Files[1].Name)
	assert.Empty(t, a.Files[1].Data)
	assert.Equal(t, "C1\nC2\n", string(a.Files[2].Data))
	// Format round-trips once every file ends in a newline.
	assert.Equal(t, data+"\n", string(a.format()))
	// A line that only looks like a marker is data.
	b := parseArchive([]byte("-- x --\n-- not a marker\n--  --\n"))
	require.Len(t, b.Files, 1)
	assert.Equal(t, "-- not a marker\n--  --\n", string(b.Files[0].Data))
}

func TestParseScript(t *testing.T) {
	t.Parallel()
	s, err := parseScript([]byte(`What it checks (SPEC section 4).
More.
-- flags --
# a comment
--max-lookup-bytes 10 --max-step-bytes=30
-- files/d/a.txt --
a
-- quoted/b.txt --
"no newline\xff"
-- symlinks --
l -> d/a.txt
-- client --
{"jsonrpc":"2.0","id":1,"method":"tools/call",
 "params":{"name":"get_lines","arguments":{"result":"r1","first":1}}}
"{not json"
{"jsonrpc":"2.0","method":"notifications/initialized"}
-- server --
{"jsonrpc":"2.0","id":1,"result":{}}
`))
	require.NoError(t, err)
	assert.Equal(t, "What it checks (SPEC section 4).", s.Title())
	assert.Equal(t, []string{"--max-lookup-bytes", "10", "--max-step-bytes=30"}, s.Flags)
	assert.Equal(t, map[string][]byte{"d/a.txt": []byte("a\n"), "b.txt": []byte("no newline\xff")}, s.Files)
	assert.Equal(t, map[string]string{"l": "d/a.txt"}, s.Links)
	require.Len(t, s.Client, 3)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1}}}`, string(s.Client[0].Line))
	assert.Equal(t, "1", string(s.Client[0].ID))
	assert.Equal(t, "get_lines", s.Client[0].Tool)
	assert.Equal(t, ClientMessage{Line: []byte("{not json"), Raw: true}, s.Client[1])
	assert.Nil(t, s.Client[2].ID)
	require.Len(t, s.Server, 1)
	l, err := s.Limits()
	require.NoError(t, err)
	assert.Equal(t, Limits{MaxLookupBytes: 10, MaxStepBytes: 30, MaxMessageBytes: 32 << 20}, l)

	for name, bad := range map[string]string{
		"no client":       "x\n-- server --\n",
		"unknown section": "x\n-- client --\n-- tools --\n",
		"duplicate":       "x\n-- client --\n-- client --\n",
		"escaping file":   "x\n-- client --\n-- files/../a --\n",
		"bad quoted":      "x\n-- client --\n-- quoted/a --\nnot quoted\n",
		"bad client":      "x\n-- client --\n{\n",
	} {
		_, err := parseScript([]byte(bad))
		assert.Error(t, err, name)
	}
}

func TestDiffJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		want, got string
		diffs     []string
	}{
		{"order and space", `{"a": 1, "b": [1, 2]}`, `{"b":[1,2],"a":1}`, nil},
		{"numbers by value", `{"n": 1.0, "m": 1e2}`, `{"n": 1, "m": 100}`, nil},
		{"value", `{"a": {"b": "x"}}`, `{"a": {"b": "y"}}`, []string{`/a/b: want "x", got "y"`}},
		{"missing and extra", `{"a/b": 1}`, `{"c~": 2}`, []string{`/a~1b: missing, want 1`, `/c~0: unexpected, got 2`}},
		{"array length", `[1]`, `[1, 2]`, []string{`/1: unexpected, got 2`}},
		{"type", `{"a": null}`, `{"a": false}`, []string{`/a: want null, got false`}},
		{"lone surrogate is not U+FFFD", `"\ud800"`, `"\ufffd"`, []string{`(whole): want "<lone \\ud800>", got "�"`}},
		{"lone surrogate escapes in either case", `"a\uD800"`, `"a\ud800"`, nil},
		{"pair", `"\ud83d\ude00"`, `"😀"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.diffs, diffJSON([]byte(tt.want), []byte(tt.got)))
		})
	}
}

func TestPretty(t *testing.T) {
	t.Parallel()
	// The result is too wide for one line; its members are not.
	got := pretty([]byte(`{"jsonrpc":"2.0","id":1,"result":{"budget":{"step":1,"refused":false},"text":"\u003c\ud800","list":[],"nested":{"a":[1,{"b":2}]}}}`))
	want := "{\n" +
		"\t\"jsonrpc\": \"2.0\",\n" +
		"\t\"id\": 1,\n" +
		"\t\"result\": {\n" +
		"\t\t\"budget\": {\"step\": 1, \"refused\": false},\n" +
		"\t\t\"text\": \"\\u003c\\ud800\",\n" +
		"\t\t\"list\": [],\n" +
		"\t\t\"nested\": {\"a\": [1, {\"b\": 2}]}\n" +
		"\t}\n" +
		"}"
	assert.Equal(t, want, string(got))
	assert.Equal(t, "not json", string(pretty([]byte("not json"))))
}

func TestEscapedLen(t *testing.T) {
	t.Parallel()
	// Quotes, then '"' and '\\' (2 each), \t (2), 0x01 (6), DEL (1), U+2028 (3), é (2).
	assert.Equal(t, int64(2+2+2+2+6+1+3+2), EscapedLen("\"\\\t\x01\x7f\u2028é"))
}

func TestCheckBounds(t *testing.T) {
	t.Parallel()
	l := Limits{MaxLookupBytes: 4, MaxStepBytes: 8, MaxMessageBytes: 100}
	call := func(tool string) *ClientMessage {
		return &ClientMessage{Method: "tools/call", Tool: tool, ID: []byte("1")}
	}
	tests := []struct {
		name string
		c    *ClientMessage
		resp string
		want []string
	}{
		{"within", call("get_range"),
			`{"result":{"content":[{"type":"text","text":"a\n"}],"structuredContent":{"bytes":2,"escaped_bytes":5,"budget":{"bytes_used":5}}}}`, nil},
		{"text over the lookup cap", call("get_lines"),
			`{"result":{"content":[{"type":"text","text":"abcde"}],"structuredContent":{"bytes":5,"escaped_bytes":7}}}`,
			[]string{"get_lines text of 5 bytes is over --max-lookup-bytes 4"}},
		{"escaped over the step cap, and mismeasured", call("find"),
			`{"result":{"content":[{"type":"text","text":"ab"}],"structuredContent":{"bytes":2,"escaped_bytes":9,"budget":{"bytes_used":9}}}}`,
			[]string{"find escaped_bytes 9 is over --max-step-bytes 8", "find escaped_bytes is 9, its text measures 4", "find budget bytes_used 9 is over --max-step-bytes 8"}},
		{"bytes not the text's", call("get_json"),
			`{"result":{"content":[{"type":"text","text":"é"}],"structuredContent":{"bytes":1,"escaped_bytes":4}}}`,
			[]string{"get_json bytes is 1, its text has 2"}},
		{"an error's text is not a selection", call("get_lines"),
			`{"result":{"isError":true,"content":[{"type":"text","text":"error invalid_range: lines 9-9 outside 1-2"}],"structuredContent":{"error":{}}}}`, nil},
		{"not a lookup", call("inspect"),
			`{"result":{"content":[{"type":"text","text":"a long descriptor"}]}}`, nil},
		{"a protocol fault", call("get_lines"), `{"error":{"code":-32602}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, checkBounds(l, tt.c, []byte(tt.resp)))
		})
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	req := &ClientMessage{Line: []byte(`{"id":7,"method":"ping"}`), ID: []byte("7"), Method: "ping"}
	note := &ClientMessage{Line: []byte(`{"method":"notifications/initialized"}`), Method: "notifications/initialized"}
	raw := &ClientMessage{Line: []byte(`{not json`), Raw: true}
	assert.True(t, answers(req, []byte(`{"id":7,"result":{}}`), 100))
	assert.True(t, answers(req, []byte(`{"id":null,"error":{}}`), 100))
	assert.False(t, answers(req, []byte(`{"id":8,"result":{}}`), 100))
	assert.False(t, answers(note, []byte(`{"id":null,"error":{}}`), 100))
	assert.True(t, answers(note, []byte(`{"id":null,"error":{}}`), 10), "a notification over the limit is answered")
	assert.True(t, answers(raw, []byte(`{"id":null,"error":{}}`), 100))
}

func TestHideVersion(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, msg, want string }{
		{"initialize", `{"serverInfo":{"name":"loom-results","version":"v0.2.0+devel"}}`, `{"serverInfo":{"name":"loom-results","version":"$VERSION"}}`},
		{"discover's _meta, spaced", `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name": "loom-results", "version": "v0.2.1-0.20261201204705-f9120637bfdd+dirty"}}}`,
			`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name": "loom-results", "version": "$VERSION"}}}`},
		{"another server's version stays", `{"name":"other","version":"1"}`, `{"name":"other","version":"1"}`},
		{"a version with an escape", `{"name":"loom-results","version":"a\"b"}`, `{"name":"loom-results","version":"$VERSION"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(hideVersion([]byte(tt.msg))))
		})
	}
}

// TestParseClientWait: a "wait D" line sets the pause before the message
// after it; a wait with nothing after it, or without a positive duration,
// is an error.
func TestParseClientWait(t *testing.T) {
	t.Parallel()
	msgs, err := parseClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}
wait 300ms
{"jsonrpc":"2.0","id":2,
 "method":"ping"}
{"jsonrpc":"2.0","id":3,"method":"ping"}
  wait 1s
"raw"
`))
	require.NoError(t, err)
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprintf("%s %s", m.Line, m.Wait))
	}
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"} 0s`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"} 300ms`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"} 0s`,
		`raw 1s`,
	}, got)
	for body, want := range map[string]string{
		"{\"id\":1}\nwait 1s\n":   `client: "wait 1s" is not followed by a message`,
		"wait soon\n{\"id\":1}\n": `client: "wait soon": want "wait D", D a positive duration such as 600ms`,
		"wait 0s\n{\"id\":1}\n":   `client: "wait 0s": want "wait D", D a positive duration such as 600ms`,
		"wait -1s\n{\"id\":1}\n":  `client: "wait -1s": want "wait D", D a positive duration such as 600ms`,
	} {
		_, err := parseClient([]byte(body))
		assert.EqualError(t, err, want, body)
	}
}

// TestAnsweredWaitFor: a "wait D" line waits until every request before it
// is answered (notifications need no answer), and stops waiting when the
// server's output ends first.
func TestAnsweredWaitFor(t *testing.T) {
	t.Parallel()
	sent := []ClientMessage{{ID: []byte("1")}, {}, {ID: []byte(`"b"`)}}
	a := newAnswered()
	done := make(chan bool)
	go func() { done <- a.waitFor(sent) }()
	a.add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	a.add([]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`))
	select {
	case <-done:
		t.Fatal("waitFor returned before request \"b\" was answered")
	case <-time.After(50 * time.Millisecond):
	}
	a.add([]byte(`{"jsonrpc":"2.0","id": "b","error":{}}`))
	assert.True(t, <-done)

	ended := newAnswered()
	go func() { done <- ended.waitFor(sent) }()
	ended.end()
	assert.False(t, <-done, "the output ended before the answers")
}
