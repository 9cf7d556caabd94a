package server

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
)

// Hostile input over Streamable HTTP: every bad body posted in a live
// session gets a clear answer, and a valid call in the same session works
// right after it, with the session's briefing intact.

// hostileHTTP is a live session that checks, after each bad request, that
// a begin_step in the same session is served with the next step number.
type hostileHTTP struct {
	t    *testing.T
	c    *httpClient
	id   string
	step int
}

func startHostileHTTP(t *testing.T, cfg limits.Config) *hostileHTTP {
	t.Helper()
	s := newTestServer(t, cfg, map[string]string{"a.txt": "x\ny\n", "j.json": `{"k": [1, 2]}`})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	h := &hostileHTTP{t: t, c: c, id: c.initialize(), step: 1}
	require.Nil(t, c.call(h.id, 1, "inspect", `{"paths":["a.txt","j.json"]}`)["isError"])
	return h
}

// post sends body in the session, then checks that the session still
// serves.
func (h *hostileHTTP) post(body string) answer {
	h.t.Helper()
	c := *h.c
	c.t = h.t
	a := c.post(h.id, body)
	h.step++
	assert.Equal(h.t, "step "+itoa(h.step), text(c.call(h.id, 99, "begin_step", `{}`)), "the call after %.80q", body)
	return a
}

func TestHTTPHostileMalformed(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, tt := range malformed {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			a := h.post(tt.body)
			assert.Equal(t, tt.httpStatus, a.status, "%.300s", a.body)
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
			assert.Equal(t, tt.wantID, a.json(t)["id"])
			assert.Equal(t, tt.http, rpcErrorOf(t, a.json(t))["code"])
		})
	}
	h.t = t
	assert.Equal(t, "x\n", text(h.c.call(h.id, 2, "get_lines", `{"result":"r1","first":1,"last":1}`)))
}

func TestHTTPHostileEmptyBody(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, body := range []string{"", " ", "\r\n"} {
		a := h.post(body)
		assert.Equal(t, http.StatusBadRequest, a.status)
		assert.Equal(t, float64(-32700), rpcErrorOf(t, a.json(t))["code"])
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
		a := h.post(body)
		assert.Equal(t, http.StatusAccepted, a.status, "%s: %s", body, a.body)
		assert.Empty(t, a.body)
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
		a := h.post(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"list_results","arguments":{}}}`)
		assert.Equal(t, http.StatusBadRequest, a.status, "id %s", id)
		assert.Nil(t, a.json(t)["id"], "id %s", id)
		assert.Equal(t, float64(-32600), rpcErrorOf(t, a.json(t))["code"], "id %s", id)
	}

	// A client's error response is accepted with 202 like any other
	// response (Streamable HTTP).
	a := h.post(`{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"client failed"}}`)
	assert.Equal(t, http.StatusAccepted, a.status)

	// A number beyond float64 reaches the tool: invalid_range, counted.
	a = h.post(callBody(6, "get_lines", `{"result":"r1","first":1e309}`))
	assert.Equal(t, http.StatusOK, a.status)
	res := a.json(t)["result"].(map[string]any)
	assert.Equal(t, "invalid_range", errCode(res))
}

func TestHTTPHostileBeforeHandshake(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\ny\n"})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	// Over HTTP a briefing is a session, which only initialize starts: a
	// tools/call as the first message is refused with 400, and one with a
	// made-up session with 404.
	a := c.post("", callBody(1, "inspect", `{"paths":["a.txt"]}`))
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.Equal(t, float64(-32600), rpcErrorOf(t, a.json(t))["code"])
	assert.Equal(t, float64(1), a.json(t)["id"])
	a = c.post("made-up", callBody(1, "inspect", `{"paths":["a.txt"]}`))
	assert.Equal(t, http.StatusNotFound, a.status)
	assert.Equal(t, int64(0), s.quota.Used(), "nothing was read")

	// After initialize, calls are served even before
	// notifications/initialized.
	a = c.post("", initBody)
	require.Equal(t, http.StatusOK, a.status)
	id := a.header.Get(sessionHeader)
	assert.Equal(t, "r1", structured(c.call(id, 1, "inspect", `{"paths":["a.txt"]}`))["results"].([]any)[0].(map[string]any)["id"])
}

func TestHTTPHostileWrongTypes(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, tt := range wrongTypeCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			a := h.post(callBody(1, tt.tool, tt.args))
			require.Equal(t, http.StatusOK, a.status, "%s", a.body)
			res, ok := a.json(t)["result"].(map[string]any)
			require.True(t, ok, "a tool error, not a protocol fault: %s", a.body)
			assert.Equal(t, "invalid_argument", errCode(res), "%s", text(res))
			if b, ok := structured(res)["budget"].(map[string]any); ok {
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
		`{"arguments":{"x":` + nested(9_000, false) + `}}`,
		`{"arguments":{"x":` + nested(9_000, true) + `}}`,
	} {
		a := h.post(callBody(1, "expand_edit", args))
		require.Equal(t, http.StatusOK, a.status)
		assert.Equal(t, "invalid_argument", errCode(a.json(t)["result"].(map[string]any)))
	}
	a := h.post(callBody(1, "get_lines", `{"result":`+nested(9_000, false)+`,"first":1}`))
	res := a.json(t)["result"].(map[string]any)
	assert.Equal(t, "invalid_argument", errCode(res))
	assert.Equal(t, float64(1), structured(res)["budget"].(map[string]any)["lookups_used"])
}

func TestHTTPHostileOversized(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 4096
	h := startHostileHTTP(t, cfg)
	for _, n := range []int{4097, 3 << 20} {
		a := h.post(callBody(1, "inspect", `{"paths":["`+strings.Repeat("a", n)+`"]}`))
		assert.Equal(t, http.StatusRequestEntityTooLarge, a.status)
		assert.Equal(t, float64(-32600), rpcErrorOf(t, a.json(t))["code"])
	}
	a := h.post(strings.Repeat("\xff", 1<<20))
	assert.Equal(t, http.StatusRequestEntityTooLarge, a.status)
}

func TestHTTPHostileLongPath(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	a := h.post(callBody(1, "inspect", `{"paths":[`+string(marshal(strings.Repeat("a", 1<<20)))+`,"a.txt"]}`))
	require.Equal(t, http.StatusOK, a.status)
	entries := structured(a.json(t)["result"].(map[string]any))["results"].([]any)
	require.Len(t, entries, 2)
	assert.Equal(t, "unreadable", entries[0].(map[string]any)["error"].(map[string]any)["code"])
	assert.Equal(t, "r1", entries[1].(map[string]any)["id"])
	t.Logf("answer to a 1 MiB path: %d bytes", len(a.body))
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
			req, err := http.NewRequest(http.MethodPost, h.c.url, strings.NewReader(callBody(7, "begin_step", `{}`)))
			if !assert.NoError(t, err) {
				return
			}
			req.Header.Set(sessionHeader, h.id)
			resp, err := h.c.hc.Do(req)
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
	h.post(callBody(7, "list_results", `{}`))
}

func TestHTTPOneReading(t *testing.T) {
	t.Parallel()
	h := startHostileHTTP(t, limits.Defaults())
	for _, tt := range oneReading {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			h.step += tt.steps
			step := h.step
			a := h.post(tt.body)
			require.Equal(t, tt.httpStatus, a.status, "%.300s", a.body)
			if !tt.answered {
				assert.Empty(t, a.body)
				return
			}
			m := a.json(t)
			assert.Equal(t, tt.wantID, m["id"])
			checkOneReading(t, m, tt.code, tt.tool, step)
		})
	}
}

// TestHTTPOneReadingInitialize: a member that differs from "method" only
// by case neither re-initializes a live session nor, without a session,
// turns an initialize into a tool call.
func TestHTTPOneReadingInitialize(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, limits.Defaults(), map[string]string{"a.txt": "x\n"})
	_, c := newHTTPFixture(t, s, HTTPOptions{})
	params := `"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"},` +
		`"name":"inspect","arguments":{"paths":["a.txt"]}}`

	id := c.initialize()
	a := c.post(id, `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"initialize",`+params+`}`)
	require.Equal(t, http.StatusOK, a.status, "%s", a.body)
	assert.Empty(t, a.json(t)["result"], "ping's answer, not initialize's")
	assert.Empty(t, a.header.Get(sessionHeader))
	assert.Equal(t, "step 2", text(c.call(id, 2, "begin_step", `{}`)), "the session goes on")

	a = c.post("", `{"jsonrpc":"2.0","id":3,"method":"initialize","Method":"tools/call",`+params+`}`)
	require.Equal(t, http.StatusOK, a.status, "%s", a.body)
	res := a.json(t)["result"].(map[string]any)
	assert.Equal(t, "2025-11-25", res["protocolVersion"])
	assert.Nil(t, res["content"], "no tool ran")
	assert.NotEmpty(t, a.header.Get(sessionHeader))
	assert.Equal(t, int64(0), s.quota.Used(), "nothing was inspected")
}
