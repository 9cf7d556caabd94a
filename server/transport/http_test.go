package transport_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// newTestServer returns a server whose root holds files.
func newTestServer(t *testing.T, cfg limits.Config, files map[string]string) *server.Server {
	t.Helper()
	root, _ := testroot.Open(t, files, workspace.Open)
	return server.New(server.Options{Limits: cfg, Policy: briefing.Legacy, Root: root})
}

// newHTTPFixture serves s's Streamable HTTP handler on a loopback
// httptest server; setup runs before the server accepts anything.
func newHTTPFixture(t *testing.T, s *server.Server, opts transport.HTTPOptions, setup ...func(*transport.HTTPHandler)) (*transport.HTTPHandler, *mcptest.HTTPClient) {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	h := s.HTTPHandler(opts)
	for _, f := range setup {
		f(h)
	}
	return h, mcptest.ServeHTTP(t, h, opts.Token, h.Close)
}

func TestHTTPSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()
	assert.GreaterOrEqual(t, len(id), 22, "128 random bits at least")
	assert.NotEqual(t, id, c.Initialize(), "every session has its own ID")

	res := c.Call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	assert.Equal(t, "r1", mcptest.Structured(res)["results"].([]any)[0].(map[string]any)["id"])
	assert.Equal(t, "beta\n", mcptest.Text(c.Call(id, 2, "get_lines", `{"result":"r1","first":2,"last":2}`)))

	// Other JSON-RPC requests are served too; a response from the client is
	// accepted without an answer.
	a := c.Post(id, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, a.Status)
	assert.Len(t, a.JSON(t)["result"].(map[string]any)["tools"], len(server.Tools(server.ToolConfig{Config: limits.Defaults()})))
	a = c.Post(id, `{"jsonrpc":"2.0","id":"s1","result":{}}`)
	assert.Equal(t, http.StatusAccepted, a.Status)
	assert.Empty(t, a.Body)
	// Protocol faults are JSON-RPC errors in a 200 answer.
	a = c.Post(id, `{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`)
	assert.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, float64(-32601), a.RPCError(t)["code"])
}

func TestHTTPSessionsIsolated(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\ny\n"})
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	a, b := c.Initialize(), c.Initialize()
	c.Call(a, 1, "inspect", `{"paths":["a.txt"]}`)

	assert.Equal(t, "unknown_result", mcptest.ErrCode(c.Call(b, 1, "get_lines", `{"result":"r1","first":1}`)))
	got := mcptest.Structured(c.Call(b, 2, "list_results", `{}`))
	assert.Equal(t, float64(0), got["total"])
	assert.Empty(t, got["results"])
	assert.Equal(t, float64(1), mcptest.Structured(c.Call(a, 2, "list_results", `{}`))["total"])
	// Steps are per session too.
	assert.Equal(t, "step 2", mcptest.Text(c.Call(b, 3, "begin_step", `{}`)))
	assert.Equal(t, "step 2", mcptest.Text(c.Call(a, 3, "begin_step", `{}`)))
}

func TestHTTPStatusCodes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	live := c.Initialize()
	ended := c.Initialize()
	require.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, ended, "").Status)
	call := mcptest.CallBody(1, "begin_step", `{}`)

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
		{"initialize inside a session", http.MethodPost, live, mcptest.InitializeBody, http.StatusBadRequest, -32600},
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
			a := c.Do(tt.method, tt.session, tt.body)
			assert.Equal(t, tt.want, a.Status, "%s", a.Body)
			if tt.code != 0 {
				assert.Equal(t, tt.code, a.RPCError(t)["code"])
			}
			if tt.want == http.StatusMethodNotAllowed {
				assert.Equal(t, "POST, DELETE", a.Header.Get("Allow"))
			}
		})
	}

	// Only /mcp is served.
	c2 := *c
	c2.URL = strings.TrimSuffix(c.URL, "/mcp") + "/other"
	assert.Equal(t, http.StatusNotFound, c2.Post(live, call).Status)
	// Accept must allow JSON.
	assert.Equal(t, http.StatusNotAcceptable, c.Post(live, call, "Accept", "text/event-stream").Status)
	// After all that, the session still works.
	assert.Equal(t, "step 2", mcptest.Text(c.Call(live, 1, "begin_step", `{}`)))
}

func TestHTTPMalformedJSONKeepsSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\n"})
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()
	c.Call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	a := c.Post(id, `{not json`)
	assert.Equal(t, http.StatusBadRequest, a.Status)
	e := a.RPCError(t)
	assert.Equal(t, float64(-32700), e["code"])
	assert.Nil(t, a.JSON(t)["id"])
	assert.Equal(t, "x\n", mcptest.Text(c.Call(id, 2, "get_lines", `{"result":"r1","first":1}`)))
}

func TestHTTPDeleteFreesBriefing(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "some bytes\n"})
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()
	c.Call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	require.Equal(t, int64(len("some bytes\n")), s.StoredBytes())

	a := c.Do(http.MethodDelete, id, "")
	assert.Equal(t, http.StatusNoContent, a.Status)
	assert.Equal(t, int64(0), s.StoredBytes())
	assert.Equal(t, http.StatusNotFound, c.Post(id, mcptest.CallBody(2, "list_results", `{}`)).Status)
}

// sessionOf returns the live session with the given ID.
func sessionOf(t *testing.T, tr *transport.HTTPHandler, id string) *transport.HTTPSession {
	t.Helper()
	sess := tr.Session(id)
	require.NotNil(t, sess)
	return sess
}

// activeRequests is how many requests of sess are being served.
func activeRequests(tr *transport.HTTPHandler, sess *transport.HTTPSession) int {
	return tr.Active(sess)
}

// hold blocks sess's briefing until the returned function is called, as a
// long call of that session would.
func hold(t *testing.T, sess *transport.HTTPSession) (unhold func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go sess.State().(server.Session).Briefing.Do(func() {
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
	tr, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	a, b := c.Initialize(), c.Initialize()
	sessA := sessionOf(t, tr, a)
	unhold := hold(t, sessA)

	// A's call waits for A's briefing...
	got := make(chan string, 1)
	go func() { got <- mcptest.Text(c.Call(a, 1, "begin_step", `{}`)) }()
	mcptest.Eventually(t, func() bool { return activeRequests(tr, sessA) == 1 })
	// ...while B is served meanwhile.
	assert.Equal(t, "step 2", mcptest.Text(c.Call(b, 1, "begin_step", `{}`)))
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
	tr, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()
	c.Call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	sess := sessionOf(t, tr, id)
	unhold := hold(t, sess)

	got := make(chan string, 1)
	go func() { got <- mcptest.Text(c.Call(id, 2, "get_lines", `{"result":"r1","first":1}`)) }()
	mcptest.Eventually(t, func() bool { return activeRequests(tr, sess) == 1 })

	// DELETE ends the session at once; its briefing is freed only when the
	// call in flight has finished with it.
	assert.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, id, "").Status)
	assert.Equal(t, http.StatusNotFound, c.Post(id, mcptest.CallBody(3, "list_results", `{}`)).Status)
	assert.Equal(t, int64(4), s.StoredBytes())
	unhold()
	assert.Equal(t, "abc\n", <-got)
	mcptest.Eventually(t, func() bool { return s.StoredBytes() == 0 })
}

func TestHTTPMessageLimit(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 300
	s := newTestServer(t, cfg, nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()

	call := mcptest.CallBody(1, "begin_step", `{}`)
	exact := call + strings.Repeat(" ", 300-len(call))
	require.Len(t, exact, 300)
	assert.Equal(t, "step 2", mcptest.Text(c.Call(id, 1, "begin_step", `{}`)))
	a := c.Post(id, exact)
	assert.Equal(t, http.StatusOK, a.Status, "exactly the limit is served")

	for _, over := range []string{exact + " ", call + strings.Repeat(" ", 1<<20)} {
		a = c.Post(id, over)
		assert.Equal(t, http.StatusRequestEntityTooLarge, a.Status)
		assert.Equal(t, float64(-32600), a.RPCError(t)["code"])
		assert.Contains(t, a.RPCError(t)["message"], "300-byte limit")
	}
	// The server goes on serving, the session too.
	assert.Equal(t, "step 4", mcptest.Text(c.Call(id, 4, "begin_step", `{}`)))
}

func TestHTTPRefusesProtocol20260728(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()
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
		{"header on initialize", "", mcptest.InitializeBody, []string{"MCP-Protocol-Version", "2026-07-28"}, nil},
		{"header in a session", id, mcptest.CallBody(2, "begin_step", `{}`), []string{"MCP-Protocol-Version", "2026-07-28"}, nil},
		{"header of an unknown version", id, mcptest.CallBody(3, "begin_step", `{}`), []string{"MCP-Protocol-Version", "1999-01-01"}, nil},
		{"_meta without session", "", `{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{` + meta + `}}`, nil, float64(4)},
		{"_meta in a session", id, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"begin_step","arguments":{},` + meta + `}}`, nil, float64(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := c.Post(tt.session, tt.body, tt.headers...)
			require.Equal(t, http.StatusBadRequest, a.Status, "%s", a.Body)
			assert.Equal(t, tt.wantID, a.JSON(t)["id"])
			msg := a.RPCError(t)["message"].(string)
			for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
				assert.Contains(t, msg, v)
			}
			assert.Equal(t, []any{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"},
				a.RPCError(t)["data"].(map[string]any)["supported"])
		})
	}
	// None of them ran: the session is still in step 1, and served.
	a := c.Post(id, mcptest.CallBody(6, "begin_step", `{}`), "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, "step 2", mcptest.Text(a.JSON(t)["result"].(map[string]any)))
}

func TestHTTPToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{Token: "s3cret"})
	id := c.Initialize()

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
			noToken.Token = ""
			a := noToken.Post(id, mcptest.CallBody(1, "list_results", `{}`), tt.auth...)
			assert.Equal(t, tt.want, a.Status, "%s", a.Body)
			if tt.want == http.StatusUnauthorized {
				assert.True(t, strings.HasPrefix(a.Header.Get("WWW-Authenticate"), "Bearer"))
				// Every request needs the token: initialize, GET and DELETE too.
				assert.Equal(t, http.StatusUnauthorized, noToken.Post("", mcptest.InitializeBody, tt.auth...).Status)
				assert.Equal(t, http.StatusUnauthorized, noToken.Do(http.MethodGet, id, "", tt.auth...).Status)
				assert.Equal(t, http.StatusUnauthorized, noToken.Do(http.MethodDelete, id, "", tt.auth...).Status)
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
			err := transport.CheckHTTPAddr(tt.addr, "")
			assert.Equal(t, tt.okNoToken, err == nil, "without token: %v", err)
			err = transport.CheckHTTPAddr(tt.addr, "t")
			assert.Equal(t, tt.okToken, err == nil, "with token: %v", err)
		})
	}
}

func TestHTTPDNSRebinding(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, loop := newHTTPFixture(t, s, transport.HTTPOptions{})
	_, public := newHTTPFixture(t, s, transport.HTTPOptions{Addr: "0.0.0.0:0", Token: "t"})

	tests := []struct {
		name    string
		c       *mcptest.HTTPClient
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
			a := tt.c.Post("", mcptest.InitializeBody, tt.headers...)
			assert.Equal(t, tt.want, a.Status, "%s", a.Body)
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

func (c *fakeClock) afterFunc(d time.Duration, f func()) transport.Stopper {
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
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{}, func(tr *transport.HTTPHandler) { tr.SetClock(clock.afterFunc, nil) })
	id := c.Initialize()
	c.Call(id, 1, "inspect", `{"paths":["a.txt"]}`)
	require.Equal(t, int64(4), s.StoredBytes())

	// One idle timer is armed after each request, the earlier ones stopped.
	armed := clock.armed()
	require.Len(t, armed, 1)
	assert.Equal(t, 7*time.Minute, armed[0].d)
	stale := armed[0]
	c.Call(id, 2, "list_results", `{}`)
	// A timer that fires after a request reset it ends nothing.
	stale.fire()
	assert.Equal(t, "abc\n", mcptest.Text(c.Call(id, 3, "get_lines", `{"result":"r1","first":1}`)))

	armed = clock.armed()
	require.Len(t, armed, 1)
	armed[0].fire()
	assert.Equal(t, int64(0), s.StoredBytes(), "an expired session's briefing is freed")
	assert.Equal(t, http.StatusNotFound, c.Post(id, mcptest.CallBody(4, "list_results", `{}`)).Status)
	assert.Empty(t, clock.armed())
}

func TestHTTPIdleTimeoutZeroIsNever(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = 0
	s := newTestServer(t, cfg, nil)
	clock := &fakeClock{}
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{}, func(tr *transport.HTTPHandler) { tr.SetClock(clock.afterFunc, nil) })
	id := c.Initialize()
	c.Call(id, 1, "begin_step", `{}`)
	assert.Empty(t, clock.timers)
}

func TestHTTPIdleTimeoutRealClock(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = time.Millisecond
	s := newTestServer(t, cfg, map[string]string{"a.txt": "abc\n"})
	tr, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	// The session may expire between any two requests here: only the
	// initialize answer is sure to arrive.
	a := c.Post("", mcptest.InitializeBody)
	require.Equal(t, http.StatusOK, a.Status)
	mcptest.Eventually(t, func() bool {
		return tr.Sessions() == 0
	})
	assert.Equal(t, http.StatusNotFound, c.Post(a.Header.Get(transport.SessionHeader), mcptest.CallBody(1, "begin_step", `{}`)).Status)
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
	go func() { done <- s.ListenAndServeHTTP(ctx, transport.HTTPOptions{Addr: "127.0.0.1:0", Log: logs}) }()

	var url string
	select {
	case line := <-logs:
		url = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(line)
		require.NotEmpty(t, url, "log line %q names no URL", line)
	case err := <-done:
		t.Fatalf("ListenAndServeHTTP returned %v", err)
	}
	c := &mcptest.HTTPClient{T: t, URL: url, HC: &http.Client{Timeout: 10 * time.Second}}
	a, b := c.Initialize(), c.Initialize()
	c.Call(a, 1, "inspect", `{"paths":["a.txt"]}`)
	c.Call(b, 1, "inspect", `{"paths":["b.txt"]}`)
	require.Equal(t, int64(7), s.StoredBytes())

	start := time.Now()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(2 * time.Second):
		t.Fatal("ListenAndServeHTTP did not return within 2 s of shutdown")
	}
	t.Logf("shutdown took %v", time.Since(start))
	assert.Equal(t, int64(0), s.StoredBytes(), "every session's briefing is freed")
	_, err := c.HC.Post(url, "application/json", bytes.NewReader([]byte(mcptest.InitializeBody)))
	assert.Error(t, err, "the listener is closed")
}

func TestListenAndServeHTTPRefusesAddr(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	assert.Error(t, s.ListenAndServeHTTP(context.Background(), transport.HTTPOptions{Addr: "192.168.1.2:0"}))
}

func TestHTTPConcurrentSessions(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 4 {
		files["f"+strconv.Itoa(i)+".txt"] = strings.Repeat("line "+strconv.Itoa(i)+"\n", 10)
	}
	s := newTestServer(t, limits.Defaults(), files)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			id := c.Initialize()
			c.Call(id, 1, "inspect", `{"paths":["f`+strconv.Itoa(i)+`.txt"]}`)
			assert.Equal(t, "line "+strconv.Itoa(i)+"\n", mcptest.Text(c.Call(id, 2, "get_lines", `{"result":"r1","first":3,"last":3}`)))
			assert.Equal(t, float64(1), mcptest.Structured(c.Call(id, 3, "list_results", `{}`))["total"])
			assert.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, id, "").Status)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(0), s.StoredBytes())
}

func TestHTTPAccept(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{})
	id := c.Initialize()
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
			a := c.Post(id, mcptest.CallBody(1, "list_results", `{}`), "Accept", tt.accept)
			assert.Equal(t, tt.want, a.Status, "%s", a.Body)
		})
	}
}
