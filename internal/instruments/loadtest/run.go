package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

// Config is one run.
type Config struct {
	Sessions      int           // concurrent MCP sessions
	Lookups       int           // lookups each session makes
	Server        string        // the server binary; "" builds loom-results/cmd/loom-results
	Duration      time.Duration // cap on the lookup phase; the run stops there
	MaxStoreBytes int64         // the server's --max-store-bytes
	MaxTotalBytes int64         // the server's --max-total-bytes
	Seed          uint64        // seeds the files and each session's choices
	ServerArgs    []string      // more flags for the server (the memory program compares its options)
	ServerEnv     []string      // more environment variables for the server (KEY=VALUE)
}

// DefaultConfig is the run `loom-load` makes without flags; the caps are
// the server's defaults (SPEC section 2).
func DefaultConfig() Config {
	return Config{
		Sessions:      32,
		Lookups:       1000,
		Duration:      2 * time.Minute,
		MaxStoreBytes: 64 << 20,
		MaxTotalBytes: 1 << 30,
		Seed:          1,
	}
}

// Check reports a configuration that Run refuses: sessions from 1 to 1000,
// lookups from 0 to 10,000,000, a positive duration, non-negative caps.
func (c Config) Check() error {
	switch {
	case c.Sessions < 1 || c.Sessions > 1000:
		return fmt.Errorf("--sessions %d is not from 1 to 1000", c.Sessions)
	case c.Lookups < 0 || c.Lookups > 10_000_000:
		return fmt.Errorf("--lookups %d is not from 0 to 10000000", c.Lookups)
	case c.Duration <= 0:
		return fmt.Errorf("--duration %v is not positive", c.Duration)
	case c.MaxStoreBytes < 0 || c.MaxTotalBytes < 0:
		return errors.New("the byte caps must not be negative")
	}
	return nil
}

// requestTimeout bounds one HTTP request: a server that stops answering
// fails the run instead of hanging it.
const requestTimeout = 30 * time.Second

// Run generates the files, starts the server, drives cfg.Sessions sessions
// against it, stops it and returns the report. An error means the run
// could not be made; a run with failed checks returns a report whose OK is
// false.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "loom-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "root")
	c, err := writeCorpus(root, cfg.Sessions, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("generating files: %w", err)
	}
	bin := cfg.Server
	if bin == "" {
		if bin, err = loombin.Build(ctx, tmp); err != nil {
			return nil, fmt.Errorf("%w\n(outside the module, give --server)", err)
		}
	}
	proc, err := startServer(ctx, bin, append([]string{
		"--root", root,
		"--max-store-bytes", strconv.FormatInt(cfg.MaxStoreBytes, 10),
		"--max-total-bytes", strconv.FormatInt(cfg.MaxTotalBytes, 10),
	}, cfg.ServerArgs...), cfg.ServerEnv)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			proc.stop()
		}
	}()

	rep := drive(ctx, cfg, proc.url, c)
	rep.Binary, rep.PID = bin, proc.cmd.Process.Pid
	rep.PeakRSS, rep.RSSErr = proc.peakRSS()
	rep.ServerCPU, _ = ProcessCPU(proc.cmd.Process.Pid)
	rep.ServerExit = proc.stop()
	stopped = true
	if rep.ServerExit != nil {
		rep.stats.fail("server: %v\n%s", rep.ServerExit, proc.log)
	}
	return rep, nil
}

// drive runs the sessions of a run against the server at url, whose root
// holds c, and ends them.
func drive(ctx context.Context, cfg Config, url string, c *corpus) *Report {
	rep := &Report{Config: cfg, URL: url, corpus: c}
	hc := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Sessions, DisableCompression: true},
		Timeout:   requestTimeout,
	}
	defer hc.CloseIdleConnections()
	p := newPlan(c)
	workers := make([]*worker, cfg.Sessions)
	for k := range workers {
		workers[k] = &worker{
			k: k, c: &client{hc: hc, url: url}, plan: p, files: p[k], probes: c.probes,
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(k))), st: newStats(),
		}
	}

	// Every session inspects before any looks up, so that the IDs it
	// probes exist in other sessions.
	start := time.Now()
	ready := each(workers, func(w *worker) bool {
		if err := w.setup(ctx); err != nil {
			w.st.fail("session %d: setup: %v", w.k, err)
			return false
		}
		return true
	})
	rep.Setup = time.Since(start)
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start = time.Now()
	each(workers, func(w *worker) bool {
		if ready[w.k] {
			w.run(runCtx, cfg.Lookups)
		}
		return true
	})
	rep.Elapsed = time.Since(start)
	rep.Stopped = runCtx.Err()

	endCtx, endCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer endCancel()
	each(workers, func(w *worker) bool {
		if ready[w.k] {
			if err := w.c.end(endCtx); err != nil {
				w.st.fail("session %d: %v", w.k, err)
			}
		}
		return true
	})
	rep.stats = newStats()
	for _, w := range workers {
		rep.stats.merge(w.st)
	}
	return rep
}

// each runs f for every worker concurrently and returns what each
// returned, by session.
func each(workers []*worker, f func(*worker) bool) []bool {
	out := make([]bool, len(workers))
	var wg sync.WaitGroup
	for k, w := range workers {
		wg.Go(func() { out[k] = f(w) })
	}
	wg.Wait()
	return out
}

// Print writes the report to w.
func Print(w io.Writer, r *Report) { r.print(w) }
