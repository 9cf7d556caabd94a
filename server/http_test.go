package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testroot"
	"github.com/loom-results/loom-results/limits"
)

// newTestServer returns a server whose root holds files.
func newTestServer(t *testing.T, cfg limits.Config, files map[string]string) *Server {
	t.Helper()
	root, _ := testroot.Open(t, files)
	return New(Options{Limits: cfg, Policy: briefing.Legacy, Root: root})
}

// newHTTPFixture serves s's Streamable HTTP transport on a loopback
// httptest server; setup runs before the server accepts anything.
func newHTTPFixture(t *testing.T, s *Server, opts HTTPOptions, setup ...func(*httpTransport)) (*httpTransport, *httpClient) {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	tr := s.newHTTPTransport(opts)
	for _, f := range setup {
		f(tr)
	}
	ts := httptest.NewServer(tr)
	t.Cleanup(func() {
		ts.Close()
		tr.closeAll()
	})
	return tr, &httpClient{t: t, url: ts.URL + "/mcp", token: opts.Token, hc: ts.Client()}
}

// httpClient is a minimal Streamable HTTP client.
type httpClient struct {
	t     *testing.T
	url   string
	token string
	hc    *http.Client
}

// answer is one HTTP response, its body read.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.body, &m), "body: %s", a.body)
	return m
}

// do sends one HTTP request; headers are name, value pairs ("Host" sets the
// Host header).
func (c *httpClient) do(method, session, body string, headers ...string) answer {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

func (c *httpClient) post(session, body string, headers ...string) answer {
	c.t.Helper()
	return c.do(http.MethodPost, session, body, headers...)
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// initialize starts a session and returns its ID.
func (c *httpClient) initialize() string {
	c.t.Helper()
	a := c.post("", initBody)
	require.Equal(c.t, http.StatusOK, a.status, "%s", a.body)
	assert.Equal(c.t, "application/json", a.header.Get("Content-Type"))
	assert.Equal(c.t, "2025-11-25", a.json(c.t)["result"].(map[string]any)["protocolVersion"])
	id := a.header.Get(sessionHeader)
	require.NotEmpty(c.t, id)
	a = c.post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(c.t, http.StatusAccepted, a.status, "%s", a.body)
	assert.Empty(c.t, a.body)
	return id
}

func callBody(id int, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// call makes a tools/call in session and returns its result object.
func (c *httpClient) call(session string, id int, tool, args string) map[string]any {
	c.t.Helper()
	a := c.post(session, callBody(id, tool, args))
	require.Equal(c.t, http.StatusOK, a.status, "%s", a.body)
	resp := a.json(c.t)
	require.Equal(c.t, float64(id), resp["id"], resp)
	res, ok := resp["result"].(map[string]any)
	require.True(c.t, ok, "no result: %v", resp)
	return res
}

// rpcErr returns the JSON-RPC error object of an answer.
func rpcErr(t *testing.T, a answer) map[string]any {
	t.Helper()
	e, ok := a.json(t)["error"].(map[string]any)
	require.True(t, ok, "no JSON-RPC error in %s", a.body)
	return e
}

func TestHTTPSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()
	assert.GreaterOrEqual(t, len(id), 22, "128 random bits at least")
	assert.NotEqual(t, id, c.initialize(), "every session has its own ID")

	res := c.call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	assert.Equal(t, "r1", structured(res)["results"].([]any)[0].(map[string]any)["id"])
	assert.Equal(t, "beta\n", text(c.call(id, 2, "get_lines", `{"result":"r1","first":2,"last":2}`)))

	// Other JSON-RPC requests are served too; a response from the client is
	// accepted without an answer.
	a := c.post(id, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, a.status)
	assert.Len(t, a.json(t)["result"].(map[string]any)["tools"], len(Tools(ToolConfig{Config: limits.Defaults()})))
	a = c.post(id, `{"jsonrpc":"2.0","id":"s1","result":{}}`)
	assert.Equal(t, http.StatusAccepted, a.status)
	assert.Empty(t, a.body)
	// Protocol faults are JSON-RPC errors in a 200 answer.
	a = c.post(id, `{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`)
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, float64(-32601), rpcErr(t, a)["code"])
}

func TestHTTPSessionsIsolated(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\ny\n"})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	a, b := c.initialize(), c.initialize()
	c.call(a, 1, "inspect", `{"paths":["a.txt"]}`)

	assert.Equal(t, "unknown_result", errCode(c.call(b, 1, "get_lines", `{"result":"r1","first":1}`)))
	got := structured(c.call(b, 2, "list_results", `{}`))
	assert.Equal(t, float64(0), got["total"])
	assert.Empty(t, got["results"])
	assert.Equal(t, float64(1), structured(c.call(a, 2, "list_results", `{}`))["total"])
	// Steps are per session too.
	assert.Equal(t, "step 2", text(c.call(b, 3, "begin_step", `{}`)))
	assert.Equal(t, "step 2", text(c.call(a, 3, "begin_step", `{}`)))
}

func TestHTTPStatusCodes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	live := c.initialize()
	ended := c.initialize()
	require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, ended, "").status)
	call := callBody(1, "begin_step", `{}`)

	tests := []struct {
		name    string
		method  string
		session string
		body    string
		want    int
		code    float64 // JSON-RPC error code, when the answer has one
	}{
		{"unknown session", http.MethodPost, "no-such-session", call, http.StatusNotFound, -32001},
		{"ended session", http.MethodPost, ended, call, http.StatusNotFound, -32001},
		{"missing session", http.MethodPost, "", call, http.StatusBadRequest, -32600},
		{"notification without session", http.MethodPost, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusBadRequest, -32600},
		{"initialize inside a session", http.MethodPost, live, initBody, http.StatusBadRequest, -32600},
		{"batch", http.MethodPost, live, "[" + call + "]", http.StatusBadRequest, -32600},
		{"not a message", http.MethodPost, live, `{"jsonrpc":"2.0"}`, http.StatusBadRequest, -32600},
		{"not an object", http.MethodPost, live, `"tools/call"`, http.StatusBadRequest, -32600},
		{"malformed JSON", http.MethodPost, live, `{"jsonrpc":`, http.StatusBadRequest, -32700},
		{"GET", http.MethodGet, live, "", http.StatusMethodNotAllowed, 0},
		{"PUT", http.MethodPut, live, call, http.StatusMethodNotAllowed, 0},
		{"DELETE unknown", http.MethodDelete, "no-such-session", "", http.StatusNotFound, -32001},
		{"DELETE ended", http.MethodDelete, ended, "", http.StatusNotFound, -32001},
		{"DELETE without session", http.MethodDelete, "", "", http.StatusBadRequest, -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := c.do(tt.method, tt.session, tt.body)
			assert.Equal(t, tt.want, a.status, "%s", a.body)
			if tt.code != 0 {
				assert.Equal(t, tt.code, rpcErr(t, a)["code"])
			}
			if tt.want == http.StatusMethodNotAllowed {
				assert.Equal(t, "POST, DELETE", a.header.Get("Allow"))
			}
		})
	}

	// Only /mcp is served.
	c2 := *c
	c2.url = strings.TrimSuffix(c.url, "/mcp") + "/other"
	assert.Equal(t, http.StatusNotFound, c2.post(live, call).status)
	// Accept must allow JSON.
	assert.Equal(t, http.StatusNotAcceptable, c.post(live, call, "Accept", "text/event-stream").status)
	// After all that, the session still works.
	assert.Equal(t, "step 2", text(c.call(live, 1, "begin_step", `{}`)))
}

func TestHTTPMalformedJSONKeepsSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\n"})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()
	c.call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	a := c.post(id, `{not json`)
	assert.Equal(t, http.StatusBadRequest, a.status)
	e := rpcErr(t, a)
	assert.Equal(t, float64(-32700), e["code"])
	assert.Nil(t, a.json(t)["id"])
	assert.Equal(t, "x\n", text(c.call(id, 2, "get_lines", `{"result":"r1","first":1}`)))
}

func TestHTTPDeleteFreesBriefing(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "some bytes\n"})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()
	c.call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	require.Equal(t, int64(len("some bytes\n")), s.quota.Used())

	a := c.do(http.MethodDelete, id, "")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Equal(t, int64(0), s.quota.Used())
	assert.Equal(t, http.StatusNotFound, c.post(id, callBody(2, "list_results", `{}`)).status)
}

// sessionOf returns the live session with the given ID.
func sessionOf(t *testing.T, tr *httpTransport, id string) *httpSession {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	sess := tr.sessions[id]
	require.NotNil(t, sess)
	return sess
}

// activeRequests is how many requests of sess are being served.
func activeRequests(tr *httpTransport, sess *httpSession) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return sess.active
}

// eventually waits, without sleeping, until cond holds.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.False(t, time.Now().After(deadline), "condition not reached")
		runtime.Gosched()
	}
}

// hold blocks sess's briefing until the returned function is called, as a
// long call of that session would.
func hold(t *testing.T, sess *httpSession) (unhold func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go sess.b.Do(func() {
		close(held)
		<-done
	})
	<-held
	var once sync.Once
	unhold = func() { once.Do(func() { close(done) }) }
	t.Cleanup(unhold)
	return unhold
}

func TestHTTPSessionsRunInParallel(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	tr, c := newHTTPFixture(t, s, HTTPOptions{})
	a, b := c.initialize(), c.initialize()
	sessA := sessionOf(t, tr, a)
	unhold := hold(t, sessA)

	// A's call waits for A's briefing...
	got := make(chan string, 1)
	go func() { got <- text(c.call(a, 1, "begin_step", `{}`)) }()
	eventually(t, func() bool { return activeRequests(tr, sessA) == 1 })
	// ...while B is served meanwhile.
	assert.Equal(t, "step 2", text(c.call(b, 1, "begin_step", `{}`)))
	select {
	case g := <-got:
		t.Fatalf("A answered %q while its briefing was busy", g)
	default:
	}
	unhold()
	assert.Equal(t, "step 2", <-got)
}

func TestHTTPDeleteWaitsForInFlightCall(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "abc\n"})
	tr, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()
	c.call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	sess := sessionOf(t, tr, id)
	unhold := hold(t, sess)

	got := make(chan string, 1)
	go func() { got <- text(c.call(id, 2, "get_lines", `{"result":"r1","first":1}`)) }()
	eventually(t, func() bool { return activeRequests(tr, sess) == 1 })

	// DELETE ends the session at once; its briefing is freed only when the
	// call in flight has finished with it.
	assert.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, id, "").status)
	assert.Equal(t, http.StatusNotFound, c.post(id, callBody(3, "list_results", `{}`)).status)
	assert.Equal(t, int64(4), s.quota.Used())
	unhold()
	assert.Equal(t, "abc\n", <-got)
	eventually(t, func() bool { return s.quota.Used() == 0 })
}

func TestHTTPMessageLimit(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 300
	s := newTestServer(t, cfg, nil)
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()

	call := callBody(1, "begin_step", `{}`)
	exact := call + strings.Repeat(" ", 300-len(call))
	require.Len(t, exact, 300)
	assert.Equal(t, "step 2", text(c.call(id, 1, "begin_step", `{}`)))
	a := c.post(id, exact)
	assert.Equal(t, http.StatusOK, a.status, "exactly the limit is served")

	for _, over := range []string{exact + " ", call + strings.Repeat(" ", 1<<20)} {
		a = c.post(id, over)
		assert.Equal(t, http.StatusRequestEntityTooLarge, a.status)
		assert.Equal(t, float64(-32600), rpcErr(t, a)["code"])
		assert.Contains(t, rpcErr(t, a)["message"], "300-byte limit")
	}
	// The server goes on serving, the session too.
	assert.Equal(t, "step 4", text(c.call(id, 4, "begin_step", `{}`)))
}

func TestHTTPRefusesProtocol20260728(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

	tests := []struct {
		name    string
		session string
		body    string
		headers []string
		wantID  any
	}{
		{"header on discover", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28"}, nil},
		{"header on initialize", "", initBody, []string{"MCP-Protocol-Version", "2026-07-28"}, nil},
		{"header in a session", id, callBody(2, "begin_step", `{}`), []string{"MCP-Protocol-Version", "2026-07-28"}, nil},
		{"header of an unknown version", id, callBody(3, "begin_step", `{}`), []string{"MCP-Protocol-Version", "1999-01-01"}, nil},
		{"_meta without session", "", `{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{` + meta + `}}`, nil, float64(4)},
		{"_meta in a session", id, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"begin_step","arguments":{},` + meta + `}}`, nil, float64(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := c.post(tt.session, tt.body, tt.headers...)
			require.Equal(t, http.StatusBadRequest, a.status, "%s", a.body)
			assert.Equal(t, tt.wantID, a.json(t)["id"])
			msg := rpcErr(t, a)["message"].(string)
			for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
				assert.Contains(t, msg, v)
			}
			assert.Equal(t, []any{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"},
				rpcErr(t, a)["data"].(map[string]any)["supported"])
		})
	}
	// None of them ran: the session is still in step 1, and served.
	a := c.post(id, callBody(6, "begin_step", `{}`), "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "step 2", text(a.json(t)["result"].(map[string]any)))
}

func TestHTTPToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, HTTPOptions{Token: "s3cret"})
	id := c.initialize()

	tests := []struct {
		name string
		auth []string // Authorization header, if any
		want int
	}{
		{"missing", nil, http.StatusUnauthorized},
		{"wrong", []string{"Authorization", "Bearer s3cre"}, http.StatusUnauthorized},
		{"longer", []string{"Authorization", "Bearer s3cret2"}, http.StatusUnauthorized},
		{"other scheme", []string{"Authorization", "Basic s3cret"}, http.StatusUnauthorized},
		{"no scheme", []string{"Authorization", "s3cret"}, http.StatusUnauthorized},
		{"right", []string{"Authorization", "Bearer s3cret"}, http.StatusOK},
		{"scheme in lower case", []string{"Authorization", "bearer s3cret"}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noToken := *c
			noToken.token = ""
			a := noToken.post(id, callBody(1, "list_results", `{}`), tt.auth...)
			assert.Equal(t, tt.want, a.status, "%s", a.body)
			if tt.want == http.StatusUnauthorized {
				assert.True(t, strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer"))
				// Every request needs the token: initialize, GET and DELETE too.
				assert.Equal(t, http.StatusUnauthorized, noToken.post("", initBody, tt.auth...).status)
				assert.Equal(t, http.StatusUnauthorized, noToken.do(http.MethodGet, id, "", tt.auth...).status)
				assert.Equal(t, http.StatusUnauthorized, noToken.do(http.MethodDelete, id, "", tt.auth...).status)
			}
		})
	}
}

func TestCheckHTTPAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr      string
		okNoToken bool
		okToken   bool
	}{
		{"localhost:0", true, true},
		{"LocalHost:8080", true, true},
		{"127.0.0.5:80", true, true},
		{"127.255.255.255:65535", true, true},
		{"[::1]:1", true, true},
		{"0.0.0.0:80", false, true},
		{"192.168.1.2:80", false, true},
		{"example.com:80", false, true},
		{"[::]:80", false, true},
		{":8080", false, true},
		{"", false, false},
		{"garbage", false, false},
		{"127.0.0.1", false, false},
		{"127.0.0.1:", false, false},
		{"127.0.0.1:http", false, false},
		{"127.0.0.1:65536", false, false},
		{"127.0.0.1:-1", false, false},
		{"[::1:80", false, false},
		{"exa mple.com:80", false, false},
		{"localhost:80:80", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := CheckHTTPAddr(tt.addr, "")
			assert.Equal(t, tt.okNoToken, err == nil, "without token: %v", err)
			err = CheckHTTPAddr(tt.addr, "t")
			assert.Equal(t, tt.okToken, err == nil, "with token: %v", err)
		})
	}
}

func TestHTTPDNSRebinding(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, loop := newHTTPFixture(t, s, HTTPOptions{})
	_, public := newHTTPFixture(t, s, HTTPOptions{Addr: "0.0.0.0:0", Token: "t"})

	tests := []struct {
		name    string
		c       *httpClient
		headers []string
		want    int
	}{
		{"loopback Host", loop, []string{"Host", "localhost:1234"}, http.StatusOK},
		{"IPv6 loopback Host", loop, []string{"Host", "[::1]:1234"}, http.StatusOK},
		{"foreign Host", loop, []string{"Host", "evil.example"}, http.StatusForbidden},
		{"foreign Host with port", loop, []string{"Host", "evil.example:80"}, http.StatusForbidden},
		{"foreign Origin", loop, []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"null Origin", loop, []string{"Origin", "null"}, http.StatusForbidden},
		{"rebound Host and Origin", loop, []string{"Host", "evil.example:80", "Origin", "http://evil.example:80"}, http.StatusForbidden},
		{"loopback Origin", loop, []string{"Origin", "http://localhost:3000"}, http.StatusOK},
		{"loopback https Origin", loop, []string{"Origin", "https://127.0.0.1"}, http.StatusOK},
		{"token: any Host", public, []string{"Host", "evil.example"}, http.StatusOK},
		{"token: same origin", public, []string{"Host", "10.0.0.5:8080", "Origin", "http://10.0.0.5:8080"}, http.StatusOK},
		{"token: foreign Origin", public, []string{"Host", "10.0.0.5:8080", "Origin", "http://evil.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.c.post("", initBody, tt.headers...)
			assert.Equal(t, tt.want, a.status, "%s", a.body)
		})
	}
}

// fakeClock stands in for time.AfterFunc: its timers fire when the test
// says so.
type fakeClock struct {
	mu     sync.Mutex
	timers []*fakeTimer
}

type fakeTimer struct {
	c              *fakeClock
	d              time.Duration
	f              func()
	stopped, fired bool
}

func (c *fakeClock) afterFunc(d time.Duration, f func()) stopper {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &fakeTimer{c: c, d: d, f: f}
	c.timers = append(c.timers, tm)
	return tm
}

func (tm *fakeTimer) Stop() bool {
	tm.c.mu.Lock()
	defer tm.c.mu.Unlock()
	was := !tm.stopped && !tm.fired
	tm.stopped = true
	return was
}

// fire runs the timer's function, stopped or not (a stopped timer firing
// is the race between Stop and an expiring timer).
func (tm *fakeTimer) fire() {
	tm.c.mu.Lock()
	tm.fired = true
	tm.c.mu.Unlock()
	tm.f()
}

// armed returns the timers neither stopped nor fired.
func (c *fakeClock) armed() []*fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*fakeTimer
	for _, tm := range c.timers {
		if !tm.stopped && !tm.fired {
			out = append(out, tm)
		}
	}
	return out
}

func TestHTTPIdleTimeout(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = 7 * time.Minute
	s := newTestServer(t, cfg, map[string]string{"a.txt": "abc\n"})
	clock := &fakeClock{}
	_, c := newHTTPFixture(t, s, HTTPOptions{}, func(tr *httpTransport) { tr.afterFunc = clock.afterFunc })
	id := c.initialize()
	c.call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	require.Equal(t, int64(4), s.quota.Used())

	// One idle timer is armed after each request, the earlier ones stopped.
	armed := clock.armed()
	require.Len(t, armed, 1)
	assert.Equal(t, 7*time.Minute, armed[0].d)
	stale := armed[0]
	c.call(id, 2, "list_results", `{}`)
	// A timer that fires after a request reset it ends nothing.
	stale.fire()
	assert.Equal(t, "abc\n", text(c.call(id, 3, "get_lines", `{"result":"r1","first":1}`)))

	armed = clock.armed()
	require.Len(t, armed, 1)
	armed[0].fire()
	assert.Equal(t, int64(0), s.quota.Used(), "an expired session's briefing is freed")
	assert.Equal(t, http.StatusNotFound, c.post(id, callBody(4, "list_results", `{}`)).status)
	assert.Empty(t, clock.armed())
}

func TestHTTPIdleTimeoutZeroIsNever(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = 0
	s := newTestServer(t, cfg, nil)
	clock := &fakeClock{}
	_, c := newHTTPFixture(t, s, HTTPOptions{}, func(tr *httpTransport) { tr.afterFunc = clock.afterFunc })
	id := c.initialize()
	c.call(id, 1, "begin_step", `{}`)
	assert.Empty(t, clock.timers)
}

func TestHTTPIdleTimeoutRealClock(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = time.Millisecond
	s := newTestServer(t, cfg, map[string]string{"a.txt": "abc\n"})
	tr, c := newHTTPFixture(t, s, HTTPOptions{})
	// The session may expire between any two requests here: only the
	// initialize answer is sure to arrive.
	a := c.post("", initBody)
	require.Equal(t, http.StatusOK, a.status)
	eventually(t, func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return len(tr.sessions) == 0
	})
	assert.Equal(t, http.StatusNotFound, c.post(a.header.Get(sessionHeader), callBody(1, "begin_step", `{}`)).status)
}

// logLines is an io.Writer that hands each write to a channel.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	select {
	case l <- string(p):
	default:
	}
	return len(p), nil
}

func TestListenAndServeHTTPShutdown(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "abc\n", "b.txt": "de\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := make(logLines, 16)
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", Log: logs}) }()

	var url string
	select {
	case line := <-logs:
		url = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(line)
		require.NotEmpty(t, url, "log line %q names no URL", line)
	case err := <-done:
		t.Fatalf("ListenAndServeHTTP returned %v", err)
	}
	c := &httpClient{t: t, url: url, hc: &http.Client{Timeout: 10 * time.Second}}
	a, b := c.initialize(), c.initialize()
	c.call(a, 1, "inspect", `{"paths":["a.txt"]}`)
	c.call(b, 1, "inspect", `{"paths":["b.txt"]}`)
	require.Equal(t, int64(7), s.quota.Used())

	start := time.Now()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(2 * time.Second):
		t.Fatal("ListenAndServeHTTP did not return within 2 s of shutdown")
	}
	t.Logf("shutdown took %v", time.Since(start))
	assert.Equal(t, int64(0), s.quota.Used(), "every session's briefing is freed")
	_, err := c.hc.Post(url, "application/json", bytes.NewReader([]byte(initBody)))
	assert.Error(t, err, "the listener is closed")
}

func TestListenAndServeHTTPRefusesAddr(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	assert.Error(t, s.ListenAndServeHTTP(context.Background(), HTTPOptions{Addr: "192.168.1.2:0"}))
}

func TestHTTPConcurrentSessions(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 4 {
		files["f"+itoa(i)+".txt"] = strings.Repeat("line "+itoa(i)+"\n", 10)
	}
	s := newTestServer(t, limits.Defaults(), files)
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			id := c.initialize()
			c.call(id, 1, "inspect", `{"paths":["f`+itoa(i)+`.txt"]}`)
			assert.Equal(t, "line "+itoa(i)+"\n", text(c.call(id, 2, "get_lines", `{"result":"r1","first":3,"last":3}`)))
			assert.Equal(t, float64(1), structured(c.call(id, 3, "list_results", `{}`))["total"])
			assert.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, id, "").status)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(0), s.quota.Used())
}

func TestHTTPAccept(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	id := c.initialize()
	tests := []struct {
		accept string
		want   int
	}{
		{"application/json, text/event-stream", http.StatusOK},
		{"application/json", http.StatusOK},
		{"application/json; charset=utf-8", http.StatusOK},
		{"*/*", http.StatusOK},
		{"application/*", http.StatusOK},
		{"text/event-stream", http.StatusNotAcceptable},
		{"application/json;q=0", http.StatusNotAcceptable},
		{"application/json; q=0.000", http.StatusNotAcceptable},
		{"application/json;q=0, */*", http.StatusNotAcceptable},
		{"*/*, application/json;q=0", http.StatusNotAcceptable},
		{"application/*;q=0, */*", http.StatusNotAcceptable},
		{"*/*;q=0", http.StatusNotAcceptable},
		{"*/*;q=0, application/json", http.StatusOK},
		{"application/*;q=0, application/json;q=0.1", http.StatusOK},
		{"application/json;q=0, application/json;q=0.5", http.StatusOK},
		{"application/json;q=0.001", http.StatusOK},
		{"application/json;q=x", http.StatusOK},
		{"text/html, text/event-stream;q=0.5", http.StatusNotAcceptable},
	}
	for _, tt := range tests {
		t.Run(tt.accept, func(t *testing.T) {
			a := c.post(id, callBody(1, "list_results", `{}`), "Accept", tt.accept)
			assert.Equal(t, tt.want, a.status, "%s", a.body)
		})
	}
}
