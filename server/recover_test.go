package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// unencodable is structured content whose encoding panics: a fault in the
// transport's writing, after the tool has returned.
type unencodable struct{}

func (unencodable) MarshalJSON() ([]byte, error) { panic("unencodable answer") }

// withFaultyTools returns a server with two tools that only tests
// register: "panics" panics inside its briefing call, "unencodable"
// returns an answer whose encoding panics.
func withFaultyTools(t *testing.T, log *syncBuffer) *Server {
	t.Helper()
	root, _ := testroot.Open(t, map[string]string{"a.txt": "x\ny\n"}, workspace.Open)
	noArgs := json.RawMessage(objectSchema(nil))
	return newServer(Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Root: root, Log: log},
		transport.Tool{
			Tool: mcp.Tool{Name: "panics", RawInputSchema: noArgs},
			Handler: serve(func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult {
				var a []int
				_ = a[len(raw.Bytes())] // index out of range
				return nil
			}),
		},
		transport.Tool{
			Tool: mcp.Tool{Name: "unencodable", RawInputSchema: noArgs},
			Handler: serve(func(*briefing.Briefing, jsontape.Sub) *mcp.CallToolResult {
				return success("x", unencodable{})
			}),
		},
	)
}

// serve adapts a test's handler to the transport as define does: it finds
// the call's briefing and runs the handler as one call of it.
func serve(h func(b *briefing.Briefing, raw jsontape.Sub) *mcp.CallToolResult) transport.Handler {
	return func(ctx context.Context, call transport.Call) (*mcp.CallToolResult, error) {
		b := briefingFrom(ctx)
		if b == nil {
			return nil, errNoBriefing
		}
		var res *mcp.CallToolResult
		b.Do(func() { res = h(b, call.Arguments) })
		return res, nil
	}
}

// faults are the calls that fail inside the server, and what the -32603
// answer names.
var faults = []struct {
	name, body, what string
}{
	{"tool panics", mcptest.ToolCall("1", "panics", `{}`), "tools/call panics: runtime error: index out of range [2] with length 0"},
	{"tool panics, with _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panics","arguments":{},"_meta":{"progressToken":1}}}`, "tools/call panics: runtime error: index out of range [2] with length 0"},
	{"answer cannot be encoded", mcptest.ToolCall("1", "unencodable", `{}`), "tools/call unencodable: unencodable answer"},
}

func TestStdioRecoversPanics(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	s := mcptest.ServeStdio(t, withFaultyTools(t, &log).ServeStdio)
	res := s.Call(7, "inspect", `{"paths":["a.txt"]}`)
	require.Nil(t, res["isError"])
	for i, tt := range faults {
		t.Run(tt.name, func(t *testing.T) {
			s.T = t
			s.Send(tt.body)
			m := s.Recv()
			assert.Equal(t, float64(1), m["id"])
			e := rpcErrorOf(t, m)
			assert.Equal(t, float64(-32603), e["code"])
			assert.Equal(t, "internal error serving "+tt.what+" (the server logged it and goes on serving)", e["message"])
			// The briefing goes on: its result reads, its step moves.
			assert.Equal(t, "step "+strconv.Itoa(i+2), mcptest.Text(s.Call(2, "begin_step", `{}`)))
			assert.Equal(t, "y\n", mcptest.Text(s.Call(3, "get_lines", `{"result":"r1","first":2}`)))
		})
	}
	s.T = t
	// A notification that panics gets no answer, as any notification.
	s.Send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"panics","arguments":{}}}`)
	assert.Equal(t, "step 5", mcptest.Text(s.Call(4, "begin_step", `{}`)))

	got := log.String()
	assert.Equal(t, len(faults), strings.Count(got, "loom-results: internal error serving "))
	assert.Contains(t, got, "goroutine ", "the stack is logged")
	assert.Contains(t, got, "recover_test.go", "the stack names the faulty code")
}

func TestHTTPRecoversPanics(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	s := withFaultyTools(t, &log)
	c := serveHTTP(t, s, transport.HTTPOptions{})
	id := c.Initialize()
	c.Call(id, 7, "inspect", `{"paths":["a.txt"]}`)
	for i, tt := range faults {
		t.Run(tt.name, func(t *testing.T) {
			c := *c
			c.T = t
			a := c.Post(id, tt.body)
			require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
			e := a.RPCError(t)
			assert.Equal(t, float64(-32603), e["code"])
			assert.Equal(t, "internal error serving "+tt.what+" (the server logged it and goes on serving)", e["message"])
			assert.Equal(t, float64(1), a.JSON(t)["id"])
			assert.Equal(t, "step "+strconv.Itoa(i+2), mcptest.Text(c.Call(id, 2, "begin_step", `{}`)))
		})
	}
	assert.Equal(t, len(faults), strings.Count(log.String(), "loom-results: internal error serving "))
	// The session ends and frees its briefing as any other: no call of it
	// is left counted as running.
	require.Equal(t, http.StatusNoContent, c.Do(http.MethodDelete, id, "").Status)
	assert.Equal(t, int64(0), s.StoredBytes())
	assert.Equal(t, http.StatusNotFound, c.Post(id, mcptest.CallBody(3, "begin_step", `{}`)).Status)
}

// panicWriter panics the first time its header is asked for: a fault in
// the transport before it has written anything.
type panicWriter struct {
	*httptest.ResponseRecorder
	asked bool
}

func (w *panicWriter) Header() http.Header {
	if !w.asked {
		w.asked = true
		panic("transport fault")
	}
	return w.ResponseRecorder.Header()
}

func TestHTTPRecoversTransportPanic(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	s := New(Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Log: &log})
	tr := s.HTTPHandler(transport.HTTPOptions{Addr: "127.0.0.1:0"})
	w := &panicWriter{ResponseRecorder: httptest.NewRecorder()}
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/mcp", nil)
	require.NotPanics(t, func() { tr.ServeHTTP(w, req) })
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var m map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &m), "%s", w.Body)
	assert.Nil(t, m["id"])
	assert.Equal(t, float64(-32603), m["error"].(map[string]any)["code"])
	assert.Contains(t, log.String(), "transport fault")
}
