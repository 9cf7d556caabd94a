package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
)

// Slow clients over HTTP: bodies that come slowly or not at all, answers
// not taken, refusals that must not wait for a body, and the session cap.
// Each raw connection has a 10 s deadline: a safety net that fails a test
// whose server waits, never a measure.

const safety = 10 * time.Second

// rawConn is a client connection written by hand.
type rawConn struct {
	T *testing.T
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, serverURL string) *rawConn {
	t.Helper()
	u, err := url.Parse(serverURL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	require.NoError(t, conn.SetDeadline(time.Now().Add(safety)))
	return &rawConn{T: t, Conn: conn, r: bufio.NewReader(conn)}
}

// send writes a request's head (method, path, headers as name, value
// pairs, the Host header added) and then part of its body.
func (c *rawConn) Send(method, path string, body string, headers ...string) {
	c.T.Helper()
	var b strings.Builder
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	for i := 0; i+1 < len(headers); i += 2 {
		b.WriteString(headers[i] + ": " + headers[i+1] + "\r\n")
	}
	b.WriteString("\r\n" + body)
	_, err := io.WriteString(c, b.String())
	require.NoError(c.T, err)
}

// response reads one response, its body whole.
func (c *rawConn) response() (*http.Response, []byte) {
	c.T.Helper()
	resp, err := http.ReadResponse(c.r, nil)
	require.NoError(c.T, err, "no answer from the server")
	body, err := io.ReadAll(resp.Body)
	require.NoError(c.T, err)
	return resp, body
}

// closed requires the server to close the connection.
func (c *rawConn) closed() {
	c.T.Helper()
	_, err := c.r.ReadByte()
	require.ErrorIs(c.T, err, io.EOF, "the server keeps the connection open")
}

func TestHTTPRefusalsDoNotWaitForTheBody(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 1000
	s := newTestServer(t, cfg, nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{Token: "s3cret"})
	live := c.Initialize()
	auth := []string{"Authorization", "Bearer s3cret"}

	tests := []struct {
		name, method, path string
		headers            []string
		length             int
		want               int
	}{
		{"no token", "POST", "/mcp", nil, 100, http.StatusUnauthorized},
		{"no token, chunked", "POST", "/mcp", []string{"Transfer-Encoding", "chunked"}, -1, http.StatusUnauthorized},
		{"wrong path", "POST", "/other", auth, 100, http.StatusNotFound},
		{"unserved protocol", "POST", "/mcp", append([]string{"MCP-Protocol-Version", "2026-07-28"}, auth...), 100, http.StatusBadRequest},
		{"GET", "GET", "/mcp", auth, 100, http.StatusMethodNotAllowed},
		{"Accept without JSON", "POST", "/mcp", append([]string{"Accept", "text/event-stream"}, auth...), 100, http.StatusNotAcceptable},
		{"unknown session", "POST", "/mcp", append([]string{transport.SessionHeader, "no-such-session"}, auth...), 100, http.StatusNotFound},
		{"declared over the limit", "POST", "/mcp", append([]string{transport.SessionHeader, live}, auth...), 5000, http.StatusRequestEntityTooLarge},
		{"DELETE", "DELETE", "/mcp", append([]string{transport.SessionHeader, "no-such-session"}, auth...), 100, http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn := dialRaw(t, c.URL)
			headers := tt.headers
			if tt.length >= 0 {
				headers = append(headers, "Content-Length", strconv.Itoa(tt.length))
			}
			// One byte of the body, and then nothing: the answer must
			// not wait for the rest.
			body := "{"
			if tt.length < 0 {
				body = "1\r\n{\r\n"
			}
			conn.Send(tt.method, tt.path, body, headers...)
			resp, _ := conn.response()
			assert.Equal(t, tt.want, resp.StatusCode)
			assert.True(t, resp.Close, "the connection is closed after the answer")
			conn.closed()
		})
	}
	// The session was not touched.
	assert.Equal(t, "step 2", mcptest.Text(c.Call(live, 1, "begin_step", `{}`)))
}

// TestHTTPSlowBodyHoldsNoSession: a request of session A whose body is
// still arriving does not keep A's briefing, nor its share of the
// process-wide quota, once A has ended (with --max-total-bytes 8388608: A
// inspects 6 MiB, another connection sends A's headers and one byte of
// its body, DELETE A answers 204, and B's 6 MiB inspect must be kept).
func TestHTTPSlowBodyHoldsNoSession(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxTotalBytes = 8 << 20
	s := newTestServer(t, cfg, map[string]string{"big.txt": strings.Repeat("0123456789abcde\n", 6<<20/16)})
	reading := make(chan struct{}, 1)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{}, func(tr *transport.HTTPHandler) {
		tr.SetReadingBody(func(r *http.Request) {
			if r.Header.Get("X-Slow") != "" {
				reading <- struct{}{}
			}
		})
	})
	a := c.Initialize()
	c.Call(a, 1, "inspect", `{"paths":["big.txt"]}`)
	require.Equal(t, int64(6<<20), s.StoredBytes())

	slow := dialRaw(t, c.URL)
	slow.Send("POST", "/mcp", "{", transport.SessionHeader, a, "Content-Length", "100", "Accept", "application/json", "X-Slow", "1")
	select {
	case <-reading:
	case <-time.After(safety):
		t.Fatal("the slow request never reached its body")
	}
	require.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, a, "").Status)
	assert.Equal(t, int64(0), s.StoredBytes(), "A's bytes are freed at once")

	b := c.Initialize()
	entry := mcptest.Structured(c.Call(b, 1, "inspect", `{"paths":["big.txt"]}`))["results"].([]any)[0].(map[string]any)
	assert.Equal(t, "r1", entry["id"], "B's 6 MiB are kept: %v", entry)
	assert.Equal(t, int64(6<<20), s.StoredBytes())
}

func TestHTTPBodyDeadline(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{ReadTimeout: 20 * time.Millisecond})
	id := c.Initialize()
	tests := []struct {
		name    string
		body    string
		headers []string
	}{
		{"one byte of 100", "{", []string{"Content-Length", "100"}},
		{"none of 100", "", []string{"Content-Length", "100"}},
		{"chunked, stalled", "1\r\n{\r\n", []string{"Transfer-Encoding", "chunked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn := dialRaw(t, c.URL)
			conn.Send("POST", "/mcp", tt.body, append([]string{transport.SessionHeader, id, "Accept", "application/json"}, tt.headers...)...)
			resp, body := conn.response()
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
			var m map[string]any
			require.NoError(t, json.Unmarshal(body, &m), "%s", body)
			assert.Equal(t, "the request body did not arrive within 20ms (--http-read-timeout)", m["error"].(map[string]any)["message"])
			conn.closed()
		})
	}
	assert.Equal(t, "step 2", mcptest.Text(c.Call(id, 1, "begin_step", `{}`)), "the session goes on")
}

// slowReaders starts s's transport on a server whose connections have
// small kernel buffers, so that an answer of a few hundred KiB fills them
// when the client does not read; closed receives each connection the
// server closes.
func slowReaders(t *testing.T, s *server.Server, opts transport.HTTPOptions) (tr *transport.HTTPHandler, c *mcptest.HTTPClient, closed <-chan struct{}) {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	tr = s.HTTPHandler(opts)
	ch := make(chan struct{}, 16)
	ts := httptest.NewUnstartedServer(tr)
	ts.Config.ConnState = func(conn net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			conn.(*net.TCPConn).SetWriteBuffer(4096)
		case http.StateClosed:
			ch <- struct{}{}
		}
	}
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		tr.Close()
	})
	return tr, &mcptest.HTTPClient{T: t, URL: ts.URL + "/mcp", HC: ts.Client()}, ch
}

// bigAnswer is an expand_edit whose answer holds 1 MiB of expanded text,
// retained as an edit result of 1 MiB.
var bigAnswer = mcptest.CallBody(5, "expand_edit", `{"arguments":{"content":{"$compose":["`+strings.Repeat("x", 1<<20)+`"]}}}`)

// unreadAnswer sends bigAnswer in session id on a connection that reads
// nothing back.
func unreadAnswer(t *testing.T, c *mcptest.HTTPClient, id string) *rawConn {
	t.Helper()
	conn := dialRaw(t, c.URL)
	require.NoError(t, conn.Conn.(*net.TCPConn).SetReadBuffer(4096))
	conn.Send("POST", "/mcp", bigAnswer, transport.SessionHeader, id, "Accept", "application/json", "Content-Length", strconv.Itoa(len(bigAnswer)))
	return conn
}

func TestHTTPWriteDeadline(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	_, c, closed := slowReaders(t, s, transport.HTTPOptions{WriteTimeout: 20 * time.Millisecond})
	id := c.Initialize()
	conn := unreadAnswer(t, c, id)
	// The server gives up on the answer and closes the connection...
	select {
	case <-closed:
	case <-time.After(safety):
		t.Fatal("the server still waits for the client to take its answer")
	}
	// ...so the client, reading at last, gets less than the answer.
	resp, err := http.ReadResponse(conn.r, nil)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
	}
	assert.Error(t, err, "the answer is cut off")
	assert.Equal(t, "step 2", mcptest.Text(c.Call(id, 1, "begin_step", `{}`)), "the session goes on")
}

// TestHTTPUnreadAnswerHoldsNoSession: a session whose answer is still
// being written to a client that does not read it can end, and its bytes
// are freed at once.
func TestHTTPUnreadAnswerHoldsNoSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	tr, c, _ := slowReaders(t, s, transport.HTTPOptions{})
	id := c.Initialize()
	sess := sessionOf(t, tr, id)
	unreadAnswer(t, c, id)
	// The call is done (its edit result is kept) and only its answer is
	// left to write, to a client that does not read it.
	mcptest.Eventually(t, func() bool { return s.StoredBytes() == 1<<20 && activeRequests(tr, sess) == 0 })
	require.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, id, "").Status)
	assert.Equal(t, int64(0), s.StoredBytes())
}

func TestHTTPSessionCap(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = 7 * time.Minute
	s := newTestServer(t, cfg, nil)
	clock := &fakeClock{}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{MaxSessions: 2}, func(tr *transport.HTTPHandler) {
		tr.SetClock(clock.afterFunc, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	})
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	first := c.Initialize()
	advance(time.Minute)
	c.Initialize()
	advance(time.Minute)
	a := c.Post("", mcptest.InitializeBody)
	assert.Equal(t, http.StatusServiceUnavailable, a.Status)
	// The first session, idle for 2 of its 7 minutes, ends in 5.
	assert.Equal(t, "300", a.Header.Get("Retry-After"))
	e := a.RPCError(t)
	assert.Equal(t, float64(-32000), e["code"])
	assert.Equal(t, "the server holds its limit of 2 sessions (--max-sessions): end one with DELETE, or retry in 300 s", e["message"])
	assert.Equal(t, float64(0), a.JSON(t)["id"])

	// Ending a session makes room.
	require.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, first, "").Status)
	c.Initialize()
	assert.Equal(t, http.StatusServiceUnavailable, c.Post("", mcptest.InitializeBody).Status)
}

func TestHTTPSessionCapNoIdleTimeout(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.IdleTimeout = 0
	s := newTestServer(t, cfg, nil)
	_, c := newHTTPFixture(t, s, transport.HTTPOptions{MaxSessions: 1})
	c.Initialize()
	a := c.Post("", mcptest.InitializeBody)
	assert.Equal(t, http.StatusServiceUnavailable, a.Status)
	assert.Equal(t, "60", a.Header.Get("Retry-After"))
}

// TestListenAndServeHTTPHeaderDeadline: a connection that never completes its
// request's headers is closed after --http-read-timeout.
func TestListenAndServeHTTPHeaderDeadline(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := make(logLines, 16)
	done := make(chan error, 1)
	go func() {
		done <- s.ListenAndServeHTTP(ctx, transport.HTTPOptions{Addr: "127.0.0.1:0", Log: logs, ReadTimeout: 20 * time.Millisecond})
	}()
	var serverURL string
	select {
	case line := <-logs:
		serverURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(line)
		require.NotEmpty(t, serverURL, "log line %q names no URL", line)
	case err := <-done:
		t.Fatalf("ListenAndServeHTTP returned %v", err)
	}
	conn := dialRaw(t, serverURL)
	_, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	require.NoError(t, err)
	_, err = io.ReadAll(conn.r)
	require.NoError(t, err, "the server closes the connection (EOF), before the client's safety deadline")
	cancel()
	require.NoError(t, <-done)
}
