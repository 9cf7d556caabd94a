package replayserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDSpan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, msg, want string
		ok              bool
	}{
		{"number", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `7`, true},
		{"string", `{"jsonrpc":"2.0","id":"a,}b","method":"ping"}`, `"a,}b"`, true},
		{"escaped quote in the id", `{"id":"a\"b","result":{}}`, `"a\"b"`, true},
		{"big number kept as written", `{"id":12345678901234567891,"result":{}}`, `12345678901234567891`, true},
		{"fraction", `{"id":1.0,"result":{}}`, `1.0`, true},
		{"white space", " {\n \"jsonrpc\" : \"2.0\" ,\t\"id\" : 3 , \"result\":{}}", `3`, true},
		{"after params", `{"jsonrpc":"2.0","method":"m","params":{"id":9,"a":["}",{"id":8}]},"id":4}`, `4`, true},
		{"last member", `{"result":{},"id":5}`, `5`, true},
		{"id inside a string value is not the id", `{"method":"\"id\":1","id":2}`, `2`, true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``, false},
		{"not an object", `[{"id":1}]`, ``, false},
		{"empty", ``, ``, false},
		{"unterminated", `{"jsonrpc":"2.0","params":{"a":1`, ``, false},
		{"no value", `{"id":}`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, e, ok := idSpan([]byte(tt.msg))
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.want, tt.msg[s:e])
			}
		})
	}
}

// FuzzIDSpan holds idSpan to encoding/json on messages with one "id"
// member: the span is exactly the value encoding/json finds.
func FuzzIDSpan(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"x"}`, `{"a":[1,{"b":"}"}],"id":"q"}`, `{"id":-0.5e3}`, `{"x":"\\","id":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		s, e, ok := idSpan(msg)
		if ok && (s < 0 || e > len(msg) || s >= e) {
			t.Fatalf("span %d-%d of %d bytes", s, e, len(msg))
		}
		if bytes.Count(msg, []byte(`"id"`)) != 1 || bytes.Contains(msg, []byte(`\u`)) {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(msg, &m) != nil {
			return
		}
		want, has := m["id"]
		if !has {
			return
		}
		if !ok || string(msg[s:e]) != string(want) {
			t.Fatalf("idSpan(%q) = %v %q, encoding/json %q", msg, ok, msg[s:min(e, len(msg))], want)
		}
	})
}

// tape is a tape whose requests are written as different clients write
// them.
var tape = []Exchange{
	{Request: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`),
		Answer: []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"loom-results"}}}`),
		Status: 200, ContentType: "application/json", Session: true},
	{Request: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1,"last":2}}}`),
		Answer: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a\n\"id\":9\n"}],"structuredContent":{"id":"x"}}}`),
		Status: 200, ContentType: "application/json"},
	{Request: []byte(`{"method":"tools/call","params":{"name":"begin_step","arguments":{}},"jsonrpc":"2.0","id":"s-3"}`),
		Answer: []byte(`{"jsonrpc":"2.0","id":"s-3","result":{"step":2}}`),
		Status: 200, ContentType: "application/json"},
}

// withID is msg with its id replaced by id.
func withID(t *testing.T, msg []byte, id string) []byte {
	t.Helper()
	s, e, ok := idSpan(msg)
	require.True(t, ok, "%s", msg)
	return append(append(append([]byte(nil), msg[:s]...), id...), msg[e:]...)
}

func TestAppendAnswer(t *testing.T) {
	t.Parallel()
	r, err := New(tape)
	require.NoError(t, err)
	for _, x := range tape {
		assert.Equal(t, string(x.Answer), string(r.appendAnswer(nil, x.Request)), "the recorded id: the recorded bytes")
		assert.Equal(t, string(withID(t, x.Answer, `"other"`)), string(r.appendAnswer(nil, withID(t, x.Request, `"other"`))))
		assert.Equal(t, string(withID(t, x.Answer, `123456`)), string(r.appendAnswer([]byte("kept"), withID(t, x.Request, `123456`)))[4:])
	}
	assert.Empty(t, r.appendAnswer(nil, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	unknown := r.appendAnswer(nil, []byte(`{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1,"last":3}}}`))
	var e struct {
		ID    int `json:"id"`
		Error struct{ Code int }
	}
	require.NoError(t, json.Unmarshal(unknown, &e), "%s", unknown)
	assert.Equal(t, 44, e.ID)
	assert.Equal(t, -32601, e.Error.Code)
}

func TestNewReplacesEarlierExchange(t *testing.T) {
	t.Parallel()
	req := `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`
	r, err := New([]Exchange{
		{Request: []byte(strings.Replace(req, "%s", "1", 1)), Answer: []byte(`{"jsonrpc":"2.0","id":1,"result":{"step":2}}`)},
		{Request: []byte(strings.Replace(req, "%s", "2", 1)), Answer: []byte(`{"jsonrpc":"2.0","id":2,"result":{"step":3}}`)},
	})
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":9,"result":{"step":3}}`, string(r.appendAnswer(nil, []byte(strings.Replace(req, "%s", "9", 1)))))

	_, err = New([]Exchange{{Request: []byte(`{"method":"x"}`), Answer: []byte(`{"id":1}`)}})
	assert.ErrorContains(t, err, "request has no id")
}

func TestServeStdio(t *testing.T) {
	t.Parallel()
	r, err := New(tape)
	require.NoError(t, err)
	var in bytes.Buffer
	var want []string
	for i, x := range tape {
		in.Write(x.Request)
		in.WriteString("\r\n\n   \n") // CRLF, then blank lines, which get no answer
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		want = append(want, string(x.Answer))
		in.Write(withID(t, x.Request, strings.Repeat("9", i+1)))
		in.WriteString("\n")
		want = append(want, string(withID(t, x.Answer, strings.Repeat("9", i+1))))
	}
	long := `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 200<<10) + `","method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1,"last":2}}}`
	in.WriteString(long) // longer than the read buffer, and no final newline
	want = append(want, string(withID(t, tape[1].Answer, `"`+strings.Repeat("x", 200<<10)+`"`)))
	var out bytes.Buffer
	require.NoError(t, r.ServeStdio(&in, &out))
	assert.Equal(t, strings.Join(want, "\n")+"\n", out.String())
}

func TestHandler(t *testing.T) {
	t.Parallel()
	r, err := New(tape)
	require.NoError(t, err)
	ts := httptest.NewServer(r.Handler())
	t.Cleanup(ts.Close)
	post := func(body []byte) (*http.Response, string) {
		resp, err := http.Post(ts.URL+"/mcp", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	sessions := map[string]bool{}
	for range 2 {
		for _, x := range tape {
			resp, body := post(x.Request)
			assert.Equal(t, x.Status, resp.StatusCode)
			assert.Equal(t, x.ContentType, resp.Header.Get("Content-Type"))
			assert.Equal(t, string(x.Answer), body)
			if id := resp.Header.Get("Mcp-Session-Id"); x.Session {
				assert.NotEmpty(t, id)
				assert.False(t, sessions[id], "a fresh session ID each time")
				sessions[id] = true
			} else {
				assert.Empty(t, id)
			}
		}
	}
	resp, body := post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Empty(t, body)
	_, body = post([]byte(`{"jsonrpc":"2.0","id":5,"method":"nope"}`))
	assert.Contains(t, body, `"code":-32601`)

	req, err := http.NewRequest(http.MethodDelete, ts.URL+"/mcp", nil)
	require.NoError(t, err)
	del, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	del.Body.Close()
	assert.Equal(t, http.StatusNoContent, del.StatusCode)
	get, err := http.Get(ts.URL + "/mcp")
	require.NoError(t, err)
	get.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, get.StatusCode)
}

func TestTapeRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tape")
	in := append([]Exchange{{Request: []byte("{\"id\":1,\"x\":\"\xff\"}"), Answer: []byte(`{"id":1}`)}}, tape...)
	require.NoError(t, WriteTape(path, in))
	got, err := ReadTape(path)
	require.NoError(t, err)
	assert.Equal(t, in, got, "the bytes come back exactly, invalid UTF-8 too")
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	rec := NewRecorder()
	var toServer bytes.Buffer
	w := rec.Writer(nopCloser{&toServer})
	// Two requests and a notification, written in pieces.
	msgs := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\r\n"
	for i := 0; i < len(msgs); i += 7 {
		_, err := w.Write([]byte(msgs[i:min(i+7, len(msgs))]))
		require.NoError(t, err)
	}
	assert.Equal(t, msgs, toServer.String(), "the writer passes every byte on")
	// The answers, out of order, with a server notification between.
	answers := "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":\"B\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"note\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"A\"}\n"
	rd := bufio.NewReaderSize(rec.Reader(io.NopCloser(strings.NewReader(answers))), 16)
	got, err := io.ReadAll(rd)
	require.NoError(t, err)
	assert.Equal(t, answers, string(got))
	assert.Equal(t, []Exchange{
		{Request: []byte(`{"jsonrpc":"2.0","id":2,"method":"b"}`), Answer: []byte(`{"jsonrpc":"2.0","id":2,"result":"B"}`)},
		{Request: []byte(`{"jsonrpc":"2.0","id":1,"method":"a"}`), Answer: []byte(`{"jsonrpc":"2.0","id":1,"result":"A"}`)},
	}, rec.Tape())

	body := []byte(`{"id":3}`)
	rec.Add(Exchange{Request: body, Answer: []byte(`{"id":3}`), Status: 200})
	body[1] = 'X'
	assert.Equal(t, `{"id":3}`, string(rec.Tape()[2].Request), "Add copies")
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// answeringWriter answers each request while it is being written, as a
// fast server does before the client's Write returns.
type answeringWriter struct{ rec *Recorder }

func (w answeringWriter) Write(p []byte) (int, error) {
	w.rec.Received([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	return len(p), nil
}

func (answeringWriter) Close() error { return nil }

func TestRecorderAnswerBeforeWriteReturns(t *testing.T) {
	t.Parallel()
	rec := NewRecorder()
	_, err := rec.Writer(answeringWriter{rec}).Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	require.NoError(t, err)
	assert.Len(t, rec.Tape(), 1, "the request was noted before it was passed on")
}
