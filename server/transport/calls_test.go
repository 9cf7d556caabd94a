package transport_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/server/transport"
)

// nopSession is a session state with nothing in it.
type nopSession struct{}

func (nopSession) Bind(ctx context.Context) context.Context { return ctx }
func (nopSession) Close()                                   {}

// blockingTransport serves one tool, "block", that reports its start,
// then reports when its context is cancelled, then returns once release
// is closed.
func blockingTransport(started, cancelled, release chan struct{}) *transport.Transport {
	tool := transport.Tool{
		Tool: mcp.NewTool("block"),
		Handler: func(ctx context.Context, _ transport.Call) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			<-release
			return mcp.NewToolResultText("done"), nil
		},
	}
	return transport.New(transport.Config{
		Name:            "test",
		Version:         "1",
		Tools:           []transport.Tool{tool},
		NewSession:      func() transport.Session { return nopSession{} },
		MaxMessageBytes: 1 << 20,
	})
}

func readMessage(t *testing.T, line string) transport.Inbound {
	t.Helper()
	m, bad := transport.ReadMessage([]byte(line))
	require.Nil(t, bad)
	return m
}

// TestStopAndWait: Stop cancels the context of a call in flight and
// counts it; Wait waits for the call to return, and gives up, saying how
// many still run, when its context ends first; a message read after Stop
// is refused with -32000 without running.
func TestStopAndWait(t *testing.T) {
	t.Parallel()
	started, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	tr := blockingTransport(started, cancelled, release)
	sess := tr.StdioContext(t)
	answered := make(chan mcp.JSONRPCMessage, 1)
	go func() { answered <- sess.Handle(readMessage(t, mcptest.CallBody(1, "block", `{}`))) }()
	<-started

	assert.Equal(t, 1, tr.Stop())
	<-cancelled
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	err := tr.Wait(gone)
	require.Error(t, err)
	assert.Equal(t, "1 call still running: context canceled", err.Error())

	resp := sess.Handle(readMessage(t, mcptest.CallBody(2, "block", `{}`)))
	rpcErr, ok := resp.(mcp.JSONRPCError)
	require.True(t, ok, "%#v", resp)
	assert.Equal(t, -32000, rpcErr.Error.Code)
	assert.Equal(t, "the server is shutting down: it takes no more calls", rpcErr.Error.Message)
	assert.Nil(t, sess.Handle(readMessage(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	assert.Equal(t, 1, tr.Stop(), "Stop again changes nothing")

	close(release)
	require.NoError(t, tr.Wait(context.Background()))
	res, ok := (<-answered).(mcp.JSONRPCResponse)
	require.True(t, ok)
	assert.Equal(t, "done", res.Result.(*mcp.CallToolResult).Content[0].(mcp.TextContent).Text)
}

// TestWaitWithNothingInFlight: Wait returns at once after a Stop that
// found nothing running.
func TestWaitWithNothingInFlight(t *testing.T) {
	t.Parallel()
	tr := blockingTransport(make(chan struct{}), make(chan struct{}), make(chan struct{}))
	assert.Equal(t, 0, tr.Stop())
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	assert.NoError(t, tr.Wait(gone))
}

// TestServeStdioShutdown: over stdio, a call in flight when the server
// stops is answered, and ServeStdio, whose context is done, returns once
// that answer is written.
func TestServeStdioShutdown(t *testing.T) {
	t.Parallel()
	started, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	tr := blockingTransport(started, cancelled, release)
	inR, inW := io.Pipe()
	defer inW.Close()
	var out lockedBuffer
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- tr.ServeStdio(ctx, inR, &out) }()
	_, err := inW.Write([]byte(mcptest.CallBody(1, "block", `{}`) + "\n"))
	require.NoError(t, err)
	<-started
	stop() // the signal's context
	assert.Equal(t, 1, tr.Stop())
	<-cancelled
	close(release)
	require.NoError(t, tr.Wait(context.Background()))
	require.NoError(t, <-served)
	assert.Contains(t, out.String(), `"text":"done"`, "the answer is written before ServeStdio returns")
}

// TestListenAndServeHTTPShutdownWaits: over HTTP, a call still running
// when the shutdown's grace ends goes on without its connection, and
// Wait waits for it.
func TestListenAndServeHTTPShutdownWaits(t *testing.T) {
	t.Parallel()
	started, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	tr := blockingTransport(started, cancelled, release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := make(logLines, 16)
	done := make(chan error, 1)
	go func() { done <- tr.ListenAndServeHTTP(ctx, transport.HTTPOptions{Addr: "127.0.0.1:0", Log: logs}) }()
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(<-logs)
	require.NotEmpty(t, url)
	c := &mcptest.HTTPClient{T: t, URL: url, HC: &http.Client{Timeout: 10 * time.Second}}
	id := c.Initialize()
	go c.HC.Do(callRequest(t, url, id))
	<-started

	cancel()
	<-cancelled
	require.NoError(t, <-done)
	gone, stop := context.WithCancel(context.Background())
	stop()
	assert.EqualError(t, tr.Wait(gone), "1 call still running: context canceled")
	close(release)
	require.NoError(t, tr.Wait(context.Background()))
}

func callRequest(t *testing.T, url, session string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(mcptest.CallBody(1, "block", `{}`))))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(transport.SessionHeader, session)
	return req
}

// lockedBuffer is a bytes.Buffer for one writer and one reader at a time.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
