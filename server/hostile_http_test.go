package server

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// Hostile input over Streamable HTTP: every bad body posted in a live
// session gets a clear answer, and a valid call in the same session works
// right after it, with the session's briefing intact.

// hostileHTTP is a live session that checks, after each bad request, that
// a begin_step in the same session is served with the next step number.
type hostileHTTP struct {
	t    *testing.T
	c    *mcptest.HTTPClient
	id   string
	step int
}

func startHostileHTTP(t *testing.T, cfg limits.Config) *hostileHTTP {
	t.Helper()
	s := newTestServer(t, cfg, map[string]string{"a.txt": "x\ny\n", "j.json": `{"k": [1, 2]}`})
	c := serveHTTP(t, s, transport.HTTPOptions{})
	h := &hostileHTTP{t: t, c: c, id: c.Initialize(), step: 1}
	require.Nil(t, c.Call(h.id, 1, "inspect", `{"paths":["a.txt","j.json"]}`)["isError"])
	return h
}

// post sends body in the session, then checks that the session still
// serves.
func (h *hostileHTTP) Post(body string) mcptest.Answer {
	h.t.Helper()
	c := *h.c
	c.T = h.t
	a := c.Post(h.id, body)
	h.step++
	assert.Equal(h.t, "step "+strconv.Itoa(h.step), mcptest.Text(c.Call(h.id, 99, "begin_step", `{}`)), "the call after %.80q", body)
	return a
}

func TestHTTPHostileMalformed(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, tt := range mcptest.Malformed {
		t.Run(tt.Name, func(t *testing.T) {
			h.t = t
			a := h.Post(tt.Body)
			assert.Equal(t, tt.HTTPStatus, a.Status, "%.300s", a.Body)
			assert.Equal(t, "application/json", a.Header.Get("Content-Type"))
			assert.Equal(t, tt.WantID, a.JSON(t)["id"])
			assert.Equal(t, tt.HTTP, rpcErrorOf(t, a.JSON(t))["code"])
		})
	}
	h.t = t
	assert.Equal(t, "x\n", mcptest.Text(h.c.Call(h.id, 2, "get_lines", `{"result":"r1","first":1,"last":1}`)))
}

func TestHTTPHostileEmptyBody(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, body := range []string{"", " ", "\r\n"} {
		a := h.Post(body)
		assert.Equal(t, http.StatusBadRequest, a.Status)
		assert.Equal(t, float64(-32700), rpcErrorOf(t, a.JSON(t))["code"])
	}
}

func TestHTTPHostileNoAnswer(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	// Accepted with 202 and no body; none of them runs a tool (the
	// begin_step after each proves the step did not move).
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/no_such"}`,
		`{"jsonrpc":"2.0","id":"s1","result":{}}`,
	} {
		a := h.Post(body)
		assert.Equal(t, http.StatusAccepted, a.Status, "%s: %s", body, a.Body)
		assert.Empty(t, a.Body)
	}
}

// TestHTTPHostileEnvelope checks, as over stdio, what the transport reads
// of a message before mcp-go does.
func TestHTTPHostileEnvelope(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())

	// An object id is -32600 with id null (JSON-RPC 2.0 section 5), and
	// so is a null id in a request (MCP forbids it).
	for _, id := range []string{`{}`, `null`} {
		a := h.Post(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"list_results","arguments":{}}}`)
		assert.Equal(t, http.StatusBadRequest, a.Status, "id %s", id)
		assert.Nil(t, a.JSON(t)["id"], "id %s", id)
		assert.Equal(t, float64(-32600), rpcErrorOf(t, a.JSON(t))["code"], "id %s", id)
	}

	// A client's error response is accepted with 202 like any other
	// response (Streamable HTTP).
	a := h.Post(`{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"client failed"}}`)
	assert.Equal(t, http.StatusAccepted, a.Status)

	// A number beyond float64 reaches the tool: invalid_range, counted.
	a = h.Post(mcptest.CallBody(6, "get_lines", `{"result":"r1","first":1e309}`))
	assert.Equal(t, http.StatusOK, a.Status)
	res := a.JSON(t)["result"].(map[string]any)
	assert.Equal(t, "invalid_range", mcptest.ErrCode(res))
}

func TestHTTPHostileBeforeHandshake(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\ny\n"})
	c := serveHTTP(t, s, transport.HTTPOptions{})
	// Over HTTP a briefing is a session, which only initialize starts: a
	// tools/call as the first message is refused with 400, and one with a
	// made-up session with 404.
	a := c.Post("", mcptest.CallBody(1, "inspect", `{"paths":["a.txt"]}`))
	assert.Equal(t, http.StatusBadRequest, a.Status)
	assert.Equal(t, float64(-32600), rpcErrorOf(t, a.JSON(t))["code"])
	assert.Equal(t, float64(1), a.JSON(t)["id"])
	a = c.Post("made-up", mcptest.CallBody(1, "inspect", `{"paths":["a.txt"]}`))
	assert.Equal(t, http.StatusNotFound, a.Status)
	assert.Equal(t, int64(0), s.quota.Used(), "nothing was read")

	// After initialize, calls are served even before
	// notifications/initialized.
	a = c.Post("", mcptest.InitializeBody)
	require.Equal(t, http.StatusOK, a.Status)
	id := a.Header.Get(mcptest.SessionHeader)
	assert.Equal(t, "r1", mcptest.Structured(c.Call(id, 1, "inspect", `{"paths":["a.txt"]}`))["results"].([]any)[0].(map[string]any)["id"])
}

func TestHTTPHostileWrongTypes(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, tt := range wrongTypeCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			a := h.Post(mcptest.CallBody(1, tt.tool, tt.args))
			require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
			res, ok := a.JSON(t)["result"].(map[string]any)
			require.True(t, ok, "a tool error, not a protocol fault: %s", a.Body)
			assert.Equal(t, "invalid_argument", mcptest.ErrCode(res), "%s", mcptest.Text(res))
			if b, ok := mcptest.Structured(res)["budget"].(map[string]any); ok {
				want := 0.0
				if tt.lookup {
					want = 1
				}
				assert.Equal(t, want, b["lookups_used"])
			} else {
				assert.False(t, tt.lookup, "a lookup answer carries the budget")
			}
		})
	}
}

func TestHTTPHostileDeepArguments(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, args := range []string{
		`{"arguments":{"x":` + mcptest.Nested(9_000, false) + `}}`,
		`{"arguments":{"x":` + mcptest.Nested(9_000, true) + `}}`,
	} {
		a := h.Post(mcptest.CallBody(1, "expand_edit", args))
		require.Equal(t, http.StatusOK, a.Status)
		assert.Equal(t, "invalid_argument", mcptest.ErrCode(a.JSON(t)["result"].(map[string]any)))
	}
	a := h.Post(mcptest.CallBody(1, "get_lines", `{"result":`+mcptest.Nested(9_000, false)+`,"first":1}`))
	res := a.JSON(t)["result"].(map[string]any)
	assert.Equal(t, "invalid_argument", mcptest.ErrCode(res))
	assert.Equal(t, float64(1), mcptest.Structured(res)["budget"].(map[string]any)["lookups_used"])
}

func TestHTTPHostileOversized(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 4096
	h := startHostileHTTP(t, cfg)
	for _, n := range []int{4097, 3 << 20} {
		a := h.Post(mcptest.CallBody(1, "inspect", `{"paths":["`+strings.Repeat("a", n)+`"]}`))
		assert.Equal(t, http.StatusRequestEntityTooLarge, a.Status)
		assert.Equal(t, float64(-32600), rpcErrorOf(t, a.JSON(t))["code"])
	}
	a := h.Post(strings.Repeat("\xff", 1<<20))
	assert.Equal(t, http.StatusRequestEntityTooLarge, a.Status)
}

func TestHTTPHostileLongPath(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	a := h.Post(mcptest.CallBody(1, "inspect", `{"paths":[`+string(marshal(strings.Repeat("a", 1<<20)))+`,"a.txt"]}`))
	require.Equal(t, http.StatusOK, a.Status)
	entries := mcptest.Structured(a.JSON(t)["result"].(map[string]any))["results"].([]any)
	require.Len(t, entries, 2)
	assert.Equal(t, "unreadable", entries[0].(map[string]any)["error"].(map[string]any)["code"])
	assert.Equal(t, "r1", entries[1].(map[string]any)["id"])
	t.Logf("answer to a 1 MiB path: %d bytes", len(a.Body))
}

func TestHTTPHostileDuplicateIDs(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	// The same id, in flight at once in one session: every request runs,
	// one at a time, and each gets its own answer.
	const n = 8
	steps := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, h.c.URL, strings.NewReader(mcptest.CallBody(7, "begin_step", `{}`)))
			if !assert.NoError(t, err) {
				return
			}
			req.Header.Set(mcptest.SessionHeader, h.id)
			resp, err := h.c.HC.Do(req)
			if !assert.NoError(t, err) {
				return
			}
			defer resp.Body.Close()
			var m struct {
				ID     int `json:"id"`
				Result struct {
					Structured struct {
						Step int `json:"step"`
					} `json:"structuredContent"`
				} `json:"result"`
			}
			b, _ := io.ReadAll(resp.Body)
			if assert.NoError(t, json.Unmarshal(b, &m), "%s", b) {
				assert.Equal(t, 7, m.ID)
				steps[i] = m.Result.Structured.Step
			}
		})
	}
	wg.Wait()
	slices.Sort(steps)
	assert.Equal(t, []int{2, 3, 4, 5, 6, 7, 8, 9}, steps)
	h.step = 9
	h.Post(mcptest.CallBody(7, "list_results", `{}`))
}

func TestHTTPOneReading(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, tt := range mcptest.OneReading {
		t.Run(tt.Name, func(t *testing.T) {
			h.t = t
			h.step += tt.Steps
			step := h.step
			a := h.Post(tt.Body)
			require.Equal(t, tt.HTTPStatus, a.Status, "%.300s", a.Body)
			if !tt.Answered {
				assert.Empty(t, a.Body)
				return
			}
			m := a.JSON(t)
			assert.Equal(t, tt.WantID, m["id"])
			checkOneReading(t, m, tt.Code, tt.Tool, step)
		})
	}
}

// TestHTTPOneReadingInitialize: a member that differs from "method" only
// by case neither re-initializes a live session nor, without a session,
// turns an initialize into a tool call.
func TestHTTPOneReadingInitialize(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\n"})
	c := serveHTTP(t, s, transport.HTTPOptions{})
	params := `"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"},` +
		`"name":"inspect","arguments":{"paths":["a.txt"]}}`

	id := c.Initialize()
	a := c.Post(id, `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"initialize",`+params+`}`)
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	assert.Empty(t, a.JSON(t)["result"], "ping's answer, not initialize's")
	assert.Empty(t, a.Header.Get(mcptest.SessionHeader))
	assert.Equal(t, "step 2", mcptest.Text(c.Call(id, 2, "begin_step", `{}`)), "the session goes on")

	a = c.Post("", `{"jsonrpc":"2.0","id":3,"method":"initialize","Method":"tools/call",`+params+`}`)
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	res := a.JSON(t)["result"].(map[string]any)
	assert.Equal(t, "2025-11-25", res["protocolVersion"])
	assert.Nil(t, res["content"], "no tool ran")
	assert.NotEmpty(t, a.Header.Get(mcptest.SessionHeader))
	assert.Equal(t, int64(0), s.quota.Used(), "nothing was inspected")
}

// newTestServer returns a server of cfg whose root holds files.
func newTestServer(t *testing.T, cfg limits.Config, files map[string]string) *Server {
	t.Helper()
	root, _ := testroot.Open(t, files, workspace.Open)
	return New(Options{Limits: cfg, Policy: briefing.Legacy, Root: root})
}

// serveHTTP serves s's Streamable HTTP handler on a loopback httptest
// server and returns a client of it.
func serveHTTP(t *testing.T, s *Server, opts transport.HTTPOptions) *mcptest.HTTPClient {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	h := s.HTTPHandler(opts)
	return mcptest.ServeHTTP(t, h, opts.Token, h.Close)
}
