package loadtest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// logLines hands each log write to a channel.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	select {
	case l <- string(p):
	default:
	}
	return len(p), nil
}

// inProcess serves a corpus of the given sessions from an in-process
// server and returns its URL.
func inProcess(t *testing.T, sessions int) (*corpus, string) {
	t.Helper()
	dir := t.TempDir()
	c, err := writeCorpus(dir, sessions, 7)
	require.NoError(t, err)
	root, err := workspace.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	s := server.New(server.Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Root: root})
	ctx, cancel := context.WithCancel(context.Background())
	logs := make(logLines, 4)
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServeHTTP(ctx, transport.HTTPOptions{Addr: "127.0.0.1:0", Log: logs}) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	select {
	case line := <-logs:
		m := urlLine.FindStringSubmatch(line)
		require.NotNil(t, m, "log line %q names no URL", line)
		return c, m[1]
	case err := <-done:
		t.Fatalf("ServeHTTP returned %v", err)
	}
	return nil, ""
}

func TestDriveClean(t *testing.T) {
	t.Parallel()
	c, url := inProcess(t, 4)
	cfg := DefaultConfig()
	cfg.Sessions, cfg.Lookups = 4, 100
	rep := drive(context.Background(), cfg, url, c)
	assert.True(t, rep.OK(), "errors: %v", rep.stats.errSamples)
	assert.Equal(t, 4*100, rep.Lookups())
	assert.Zero(t, rep.CrossReads())
	assert.Positive(t, rep.stats.foreignProbes, "sessions probe IDs that only others hold")
	assert.Positive(t, rep.stats.ownProbes)
	assert.Positive(t, rep.stats.steps)
	for _, kind := range lookupKinds {
		assert.NotEmpty(t, rep.stats.latency[kind], kind)
	}
	var out bytes.Buffer
	Print(&out, rep)
	for _, want := range []string{"throughput", "p50 / p90 / p99", "cross-session reads", "PASS"} {
		assert.Contains(t, out.String(), want)
	}
}

// leakyProxy forwards to url, but once every session has inspected, it
// sends each session's lookups to another session (pairs of sessions in
// the order they started swap), as a server that confused its sessions
// would.
func leakyProxy(t *testing.T, url string) string {
	var mu sync.Mutex
	var ids []string
	partner := func(id string) string {
		mu.Lock()
		defer mu.Unlock()
		for i, x := range ids {
			if x == id && i^1 < len(ids) {
				return ids[i^1]
			}
		}
		return id
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		req, err := http.NewRequestWithContext(r.Context(), r.Method, url, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header = r.Header.Clone()
		if id := r.Header.Get(sessionHeader); id != "" && bytes.Contains(body, []byte(`"tools/call"`)) &&
			!bytes.Contains(body, []byte(`"inspect"`)) {
			req.Header.Set(sessionHeader, partner(id))
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if id := resp.Header.Get(sessionHeader); id != "" {
			mu.Lock()
			ids = append(ids, id)
			mu.Unlock()
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

func TestDriveDetectsCrossSessionReads(t *testing.T) {
	t.Parallel()
	c, url := inProcess(t, 4)
	cfg := DefaultConfig()
	cfg.Sessions, cfg.Lookups = 4, 60
	rep := drive(context.Background(), cfg, leakyProxy(t, url), c)
	assert.False(t, rep.OK())
	assert.Positive(t, rep.CrossReads(), "a server that mixes sessions up must show cross-session reads")
	var out bytes.Buffer
	Print(&out, rep)
	assert.Contains(t, out.String(), "cross-session read: session")
	assert.Contains(t, out.String(), "FAIL")
}

func TestDriveStopsAtDuration(t *testing.T) {
	t.Parallel()
	c, url := inProcess(t, 2)
	cfg := DefaultConfig()
	cfg.Sessions, cfg.Lookups, cfg.Duration = 2, 1_000_000, 300*time.Millisecond
	start := time.Now()
	rep := drive(context.Background(), cfg, url, c)
	assert.Less(t, time.Since(start), 20*time.Second)
	assert.ErrorIs(t, rep.Stopped, context.DeadlineExceeded)
	assert.True(t, rep.OK(), "stopping at --duration is not an error: %v", rep.stats.errSamples)
	assert.Less(t, rep.Lookups(), 2_000_000)
}

func TestCorpus(t *testing.T) {
	t.Parallel()
	c, err := writeCorpus(t.TempDir(), 5, 1)
	require.NoError(t, err)
	require.Len(t, c.shared, len(sharedSizes)+1)
	for i, f := range c.shared[:len(sharedSizes)] {
		assert.GreaterOrEqual(t, len(f.data), sharedSizes[i])
		for n := 1; n <= f.lines(); n += 97 {
			assert.Less(t, len(f.line(n)), 240, "find must not cut lines")
			assert.True(t, strings.HasPrefix(f.line(n), f.tag+" L"), f.line(n))
		}
	}
	assert.Equal(t, `"loom-load document"`, regexp.MustCompile(`"title": ("[^"]*")`).FindStringSubmatch(string(c.json.data))[1])
	for _, p := range c.probes {
		assert.NotEmpty(t, p.want, p.pointer)
	}
	p := newPlan(c)
	assert.Equal(t, 4+len(c.shared), p.maxIDs())
	assert.NotEqual(t, p[0][1].path, p[1][1].path, "r2 names different files in different sessions")
	assert.Equal(t, 1, p.heldBy(0, "r1", p[1][0].sha256))
	assert.Equal(t, -1, p.heldBy(0, "r1", p[0][0].sha256))
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	tests := []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {90, 90}, {99, 99}, {100, 100}, {0, 1}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, percentile(d, tt.p), tt.p)
	}
	assert.Equal(t, time.Duration(0), percentile(nil, 50))
}

// TestRun builds the server and runs the whole program, small.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Sessions, cfg.Lookups = 3, 60
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "errors: %v", rep.stats.errSamples)
	assert.Positive(t, rep.PeakRSS)
	assert.NoError(t, rep.ServerExit)
	assert.Equal(t, 180, rep.Lookups())
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	for _, mod := range []func(*Config){
		func(c *Config) { c.Sessions = 0 },
		func(c *Config) { c.Lookups = -1 },
		func(c *Config) { c.Duration = 0 },
		func(c *Config) { c.MaxStoreBytes = -1 },
	} {
		cfg := DefaultConfig()
		mod(&cfg)
		_, err := Run(context.Background(), cfg)
		assert.Error(t, err)
	}
}
