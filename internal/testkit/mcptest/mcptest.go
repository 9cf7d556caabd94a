// Package mcptest is the MCP client the in-process tests share: a client
// of a stdio loop over in-memory pipes (Pipe), a minimal Streamable HTTP
// client (HTTPClient), and readers of a tool answer's parts. The tests of
// server and of its transport use it; tests of the command's process use
// internal/testkit/stdioclient.
package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// InitializeBody is the initialize request both clients send.
const InitializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// SessionHeader is the Streamable HTTP session header.
const SessionHeader = "Mcp-Session-Id"

// Pipe is a client of a stdio loop over in-memory pipes: the real loop,
// without a process. The pipes hold no bytes: read each answer before
// writing the next request.
type Pipe struct {
	T    *testing.T
	In   *io.PipeWriter
	Out  *bufio.Reader
	Done chan error // the loop's return, once it has ended
	Dir  string     // the root's directory, when the caller sets it
}

// ServeStdio runs serve (a server's ServeStdio) over in-memory pipes; the
// input closes when the test ends.
func ServeStdio(t *testing.T, serve func(ctx context.Context, in io.Reader, out io.Writer) error) *Pipe {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &Pipe{T: t, In: inW, Out: bufio.NewReader(outR), Done: make(chan error, 1)}
	go func() {
		err := serve(context.Background(), inR, outW)
		outW.Close()
		p.Done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

// Send writes raw lines without reading.
func (p *Pipe) Send(lines ...string) {
	p.T.Helper()
	for _, l := range lines {
		_, err := io.WriteString(p.In, l+"\n")
		require.NoError(p.T, err)
	}
}

// Recv reads one answer line as a generic JSON object.
func (p *Pipe) Recv() map[string]any {
	p.T.Helper()
	line, err := p.Out.ReadBytes('\n')
	require.NoError(p.T, err)
	var m map[string]any
	require.NoError(p.T, json.Unmarshal(line, &m), string(line))
	return m
}

// Call makes a tools/call and returns its result object.
func (p *Pipe) Call(id int, tool string, args string) map[string]any {
	p.T.Helper()
	p.Send(CallBody(id, tool, args))
	resp := p.Recv()
	require.Equal(p.T, float64(id), resp["id"], resp)
	res, ok := resp["result"].(map[string]any)
	require.True(p.T, ok, "no result: %v", resp)
	return res
}

// Initialize makes the handshake: initialize, then
// notifications/initialized.
func (p *Pipe) Initialize() {
	p.T.Helper()
	p.Send(InitializeBody)
	resp := p.Recv()
	require.Equal(p.T, "2025-11-25", resp["result"].(map[string]any)["protocolVersion"])
	p.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// CallBody is a tools/call request.
func CallBody(id int, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// Text is a tool result's first text content.
func Text(res map[string]any) string {
	return res["content"].([]any)[0].(map[string]any)["text"].(string)
}

// Structured is a tool result's structured content.
func Structured(res map[string]any) map[string]any {
	return res["structuredContent"].(map[string]any)
}

// ErrCode is a failed tool result's error code, or "" for a success.
func ErrCode(res map[string]any) string {
	if res["isError"] != true {
		return ""
	}
	return Structured(res)["error"].(map[string]any)["code"].(string)
}

// HTTPClient is a minimal Streamable HTTP client.
type HTTPClient struct {
	T     *testing.T
	URL   string // the endpoint, http://host:port/mcp
	Token string // sent as a bearer token when set
	HC    *http.Client
}

// ServeHTTP serves h on a loopback httptest server, closed when the test
// ends (then close runs, when given), and returns a client of its /mcp.
func ServeHTTP(t *testing.T, h http.Handler, token string, close func()) *HTTPClient {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		if close != nil {
			close()
		}
	})
	return &HTTPClient{T: t, URL: ts.URL + "/mcp", Token: token, HC: ts.Client()}
}

// Answer is one HTTP response, its body read.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON is the body as a generic JSON object.
func (a Answer) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.Body, &m), "body: %s", a.Body)
	return m
}

// RPCError is the answer's JSON-RPC error object.
func (a Answer) RPCError(t *testing.T) map[string]any {
	t.Helper()
	e, ok := a.JSON(t)["error"].(map[string]any)
	require.True(t, ok, "no JSON-RPC error in %s", a.Body)
	return e
}

// Do sends one HTTP request; headers are name, value pairs ("Host" sets
// the Host header).
func (c *HTTPClient) Do(method, session, body string, headers ...string) Answer {
	c.T.Helper()
	req, err := http.NewRequest(method, c.URL, strings.NewReader(body))
	require.NoError(c.T, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if session != "" {
		req.Header.Set(SessionHeader, session)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := c.HC.Do(req)
	require.NoError(c.T, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.T, err)
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Post posts one message in session ("" for none).
func (c *HTTPClient) Post(session, body string, headers ...string) Answer {
	c.T.Helper()
	return c.Do(http.MethodPost, session, body, headers...)
}

// Initialize starts a session and returns its ID.
func (c *HTTPClient) Initialize() string {
	c.T.Helper()
	a := c.Post("", InitializeBody)
	require.Equal(c.T, http.StatusOK, a.Status, "%s", a.Body)
	assert.Equal(c.T, "application/json", a.Header.Get("Content-Type"))
	assert.Equal(c.T, "2025-11-25", a.JSON(c.T)["result"].(map[string]any)["protocolVersion"])
	id := a.Header.Get(SessionHeader)
	require.NotEmpty(c.T, id)
	a = c.Post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(c.T, http.StatusAccepted, a.Status, "%s", a.Body)
	assert.Empty(c.T, a.Body)
	return id
}

// Call makes a tools/call in session and returns its result object.
func (c *HTTPClient) Call(session string, id int, tool, args string) map[string]any {
	c.T.Helper()
	a := c.Post(session, CallBody(id, tool, args))
	require.Equal(c.T, http.StatusOK, a.Status, "%s", a.Body)
	resp := a.JSON(c.T)
	require.Equal(c.T, float64(id), resp["id"], resp)
	res, ok := resp["result"].(map[string]any)
	require.True(c.T, ok, "no result: %v", resp)
	return res
}

// Eventually waits, without sleeping, until cond holds (at most 10 s).
func Eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.False(t, time.Now().After(deadline), "condition not reached")
		runtime.Gosched()
	}
}
