package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// gapTestGap is the --step-gap of these tests, and gapTestPause the pause
// they make to begin a step: real waits, so that the tests assert step
// numbers, never how fast anything ran.
const (
	gapTestGap   = 200 * time.Millisecond
	gapTestPause = 2 * gapTestGap
)

// gapClient is one briefing's client, over stdio or HTTP.
type gapClient struct {
	call  func(id int, tool, args string) map[string]any
	other func(body string) // a request that is not a tool call, its answer read
}

// gapServer is a server with --steps model, answers in full (the budget
// shows the step), at most 3 lookups a step, and the given gap.
func gapServer(t *testing.T, gap time.Duration) *Server {
	cfg := limits.Defaults()
	cfg.MaxLookups = 3
	root, _ := testroot.Open(t, map[string]string{"a.txt": "one\ntwo\n"}, workspace.Open)
	return New(Options{Limits: cfg, Steps: limits.ModelSteps, StepGap: gap, Answers: AnswersFull, Root: root})
}

func stdioGapClient(t *testing.T, s *Server) gapClient {
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()
	return gapClient{call: p.Call, other: func(body string) { p.Send(body); p.Recv() }}
}

func httpGapClient(t *testing.T, s *Server) gapClient {
	h := s.HTTPHandler(transport.HTTPOptions{})
	c := mcptest.ServeHTTP(t, h, "", func() { h.Close() })
	id := c.Initialize()
	return gapClient{
		call: func(n int, tool, args string) map[string]any { return c.Call(id, n, tool, args) },
		other: func(body string) {
			require.Equal(t, http.StatusOK, c.Post(id, body).Status)
		},
	}
}

// budgetStep is the step in a lookup's budget, and whether it is refused.
func budgetStep(t *testing.T, res map[string]any) string {
	t.Helper()
	b := mcptest.Structured(res)["budget"].(map[string]any)
	s := fmt.Sprintf("step %v used %v", b["step"], b["lookups_used"])
	if b["refused"] == true {
		s += " refused"
	}
	if code := mcptest.ErrCode(res); code != "" {
		s += " " + code
	}
	return s
}

// TestStepGap: with --step-gap, calls made back to back share a step, and
// a pause of at least the gap begins one (SPEC section 6), over stdio and
// per HTTP session: a refused step is lifted, other requests (and a call
// of an unknown tool) neither begin a step nor count as answers, and
// begin_step after a pause begins just one. With --step-gap 0 no pause begins a step.
func TestStepGap(t *testing.T) {
	t.Parallel()
	for _, transportName := range []string{"stdio", "http"} {
		for _, gap := range []time.Duration{gapTestGap, 0} {
			t.Run(fmt.Sprintf("%s gap %s", transportName, gap), func(t *testing.T) {
				t.Parallel()
				s := gapServer(t, gap)
				c := stdioGapClient
				if transportName == "http" {
					c = httpGapClient
				}
				client := c(t, s)
				var got []string
				id := 0
				lookup := func() {
					id++
					got = append(got, budgetStep(t, client.call(id, "list_results", `{}`)))
				}
				pause := func() {
					time.Sleep(gapTestPause)
					got = append(got, "pause")
				}
				lookup()
				lookup()
				pause()
				lookup()
				lookup()
				lookup()
				lookup() // the fourth: lookup_limit refuses the step
				lookup()
				pause()
				lookup() // a new step: the refusal is lifted
				pause()
				client.other(`{"jsonrpc":"2.0","id":900,"method":"tools/list"}`)
				client.other(`{"jsonrpc":"2.0","id":901,"method":"ping"}`)
				client.other(`{"jsonrpc":"2.0","id":902,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
				lookup() // tools/list, ping and an unknown tool's call are no answers: the pause stands
				pause()
				id++
				step := mcptest.Structured(client.call(id, "begin_step", `{}`))["step"]
				got = append(got, fmt.Sprintf("begin_step: step %v", step))
				lookup()

				want := []string{
					"step 1 used 1", "step 1 used 2", "pause",
					"step 2 used 1", "step 2 used 2", "step 2 used 3", "step 2 used 4 refused lookup_limit", "step 2 used 5 refused step_refused", "pause",
					"step 3 used 1", "pause",
					"step 4 used 1", "pause",
					"begin_step: step 5", "step 5 used 1", // one step, not two
				}
				if gap == 0 {
					want = []string{
						"step 1 used 1", "step 1 used 2", "pause",
						"step 1 used 3", "step 1 used 4 refused lookup_limit", "step 1 used 5 refused step_refused", "step 1 used 6 refused step_refused", "step 1 used 7 refused step_refused", "pause",
						"step 1 used 8 refused step_refused", "pause",
						"step 1 used 9 refused step_refused", "pause",
						"begin_step: step 2", "step 2 used 1",
					}
				}
				assert.Equal(t, want, got)
			})
		}
	}
}

// TestStepGapPipelined: calls that a client writes together, after a
// pause, share the one step the first of them begins (stdio reads the
// second as the first is answered, or while it runs).
func TestStepGapPipelined(t *testing.T) {
	t.Parallel()
	p := mcptest.ServeStdio(t, gapServer(t, gapTestGap).ServeStdio)
	p.Initialize()
	assert.Equal(t, "step 1 used 1", budgetStep(t, p.Call(1, "list_results", `{}`)))
	time.Sleep(gapTestPause)
	go p.Send(mcptest.CallBody(2, "list_results", `{}`), mcptest.CallBody(3, "list_results", `{}`), mcptest.CallBody(4, "list_results", `{}`))
	var got []string
	for range 3 {
		got = append(got, budgetStep(t, p.Recv()["result"].(map[string]any)))
	}
	assert.Equal(t, []string{"step 2 used 1", "step 2 used 2", "step 2 used 3"}, got)
}
