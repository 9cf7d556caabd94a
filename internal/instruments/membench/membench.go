// Package membench is the logic of the memory program (cmd/loom-mem). It
// runs the loom-results server as a process, a fresh one for every run of
// every input, feeds it one of the inputs that once made its memory grow
// far past what it stores (issue 14: a path of 8 or 16 MiB, a 16 MiB array
// in expand_edit, the first get_json on a 16 MiB array, 64 HTTP sessions
// holding 128 MiB) or the load program's run (package loadtest), and reads
// the process's peak resident set (VmHWM in /proc/<pid>/status) against the
// bytes the server stored. The target is a peak of at most 1.25 times the
// stored bytes plus 32 MiB.
//
// It runs on Linux (VmHWM), through the real binary and real pipes or
// loopback HTTP, so what it measures is the process as a client meets it.
package membench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/loadtest"
	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

// Config is one run of the program.
type Config struct {
	Runs       int      // runs of each input, each with a fresh server
	Server     string   // the server binary; "" builds loom-results/cmd/loom-results
	Only       string   // a regular expression: run only the inputs whose name matches
	ServerArgs []string // more flags for every server started
	ServerEnv  []string // more environment variables for every server (KEY=VALUE)
	NoLoad     bool     // leave out the load program's run
}

// Sample is what one run of an input measured.
type Sample struct {
	Peak    int64         // the server's VmHWM, bytes
	Stored  int64         // the bytes of the results the server retained
	Elapsed time.Duration // the input's work, from the first request to the last answer
	CPU     time.Duration // the server's user and system time, start-up included
}

// Target is the peak allowed for stored bytes: 1.25 x stored + 32 MiB.
func Target(stored int64) int64 { return stored + stored/4 + 32<<20 }

// Row is one input's runs.
type Row struct {
	Name    string
	Samples []Sample
}

// env is what an input's run needs: the server binary, the flags and
// environment of every server, and a scratch directory for its root.
type env struct {
	bin  string
	args []string
	vars []string
	dir  string
}

// input is one thing the program measures.
type input struct {
	name string
	run  func(ctx context.Context, e env) (Sample, error)
}

// inputs are issue 14's inputs of item 7, then the load program's run.
func inputs(noLoad bool) []input {
	in := []input{
		{"inspect: one 8 MiB path a/a/...", pathInput(8 << 20)},
		{"inspect: one 16 MiB path a/a/...", pathInput(16 << 20)},
		{"expand_edit: a 16 MiB array", expandArrayInput(16 << 20)},
		{"get_json: the first, on a 16 MiB array", getJSONInput(16 << 20)},
		{"HTTP: 64 sessions holding 128 MiB", sessionsInput(64, 2<<20)},
	}
	if !noLoad {
		in = append(in, input{"loom-load: 32 sessions, 32,000 lookups", loadInput})
	}
	return in
}

// Run builds the server if needed, measures every input cfg.Runs times
// and writes the table to out.
func Run(ctx context.Context, cfg Config, out io.Writer) ([]Row, error) {
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("--runs %d: at least 1", cfg.Runs)
	}
	only, err := regexp.Compile(cfg.Only)
	if err != nil {
		return nil, fmt.Errorf("--only: %w", err)
	}
	tmp, err := os.MkdirTemp("", "loom-mem-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := cfg.Server
	if bin == "" {
		if bin, err = loombin.Build(ctx, tmp); err != nil {
			return nil, fmt.Errorf("%w\n(outside the module, give --server)", err)
		}
	}
	var rows []Row
	for _, in := range inputs(cfg.NoLoad) {
		if !only.MatchString(in.name) {
			continue
		}
		row := Row{Name: in.name}
		for i := range cfg.Runs {
			dir := filepath.Join(tmp, fmt.Sprintf("run-%d-%d", len(rows), i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			s, err := in.run(ctx, env{bin: bin, args: cfg.ServerArgs, vars: cfg.ServerEnv, dir: dir})
			os.RemoveAll(dir)
			if err != nil {
				return nil, fmt.Errorf("%s, run %d: %w", in.name, i+1, err)
			}
			fmt.Fprintf(out, "  %s, run %d: peak %s, stored %s, %s, server CPU %s\n", in.name, i+1, mib(s.Peak), mib(s.Stored),
				s.Elapsed.Round(time.Millisecond), s.CPU.Round(10*time.Millisecond))
			row.Samples = append(row.Samples, s)
		}
		rows = append(rows, row)
	}
	Print(out, cfg, rows)
	return rows, nil
}

// Print writes the rows as a table: medians, with the smallest and
// largest peak of the runs.
func Print(out io.Writer, cfg Config, rows []Row) {
	fmt.Fprintf(out, "\npeak RSS (VmHWM) against stored bytes, %d runs each", cfg.Runs)
	if len(cfg.ServerArgs)+len(cfg.ServerEnv) > 0 {
		fmt.Fprintf(out, " (server: %s)", strings.Join(append(slices.Clone(cfg.ServerEnv), cfg.ServerArgs...), " "))
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  input\tstored\tpeak RSS median (min-max)\ttarget 1.25x+32 MiB\tpeak/target\tstatus\ttime median\tserver CPU median")
	for _, r := range rows {
		n := len(r.Samples)
		peaks, stored, times, cpu := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i, s := range r.Samples {
			peaks[i], stored[i], times[i], cpu[i] = float64(s.Peak), float64(s.Stored), float64(s.Elapsed), float64(s.CPU)
		}
		p, st := median(peaks), int64(median(stored))
		target := float64(Target(st))
		status := "met"
		if p > target {
			status = "MISSED"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s (%s-%s)\t%s\t%.2f\t%s\t%s\t%s\n", r.Name, mib(st), mib(int64(p)),
			mib(int64(slices.Min(peaks))), mib(int64(slices.Max(peaks))), mib(int64(target)), p/target, status,
			time.Duration(median(times)).Round(time.Millisecond), time.Duration(median(cpu)).Round(10*time.Millisecond))
	}
	tw.Flush()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// loadInput is the load program's default run (loom-load), on this
// program's server with its flags and environment.
func loadInput(ctx context.Context, e env) (Sample, error) {
	cfg := loadtest.DefaultConfig()
	cfg.Server, cfg.ServerArgs, cfg.ServerEnv = e.bin, e.args, e.vars
	start := time.Now()
	rep, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return Sample{}, err
	}
	if !rep.OK() {
		return Sample{}, fmt.Errorf("the load run failed its checks: %d errors, %d cross-session reads", rep.Errors(), rep.CrossReads())
	}
	if rep.RSSErr != nil {
		return Sample{}, rep.RSSErr
	}
	return Sample{Peak: rep.PeakRSS, Stored: rep.StoredBytes(), Elapsed: time.Since(start), CPU: rep.ServerCPU}, nil
}
