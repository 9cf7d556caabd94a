package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loom-results/loom-results/cmd/internal/cli"
)

// TestBadCommandLine: a bad command line exits with status 2 and prints
// the message and a pointer to --help, before anything is built or run.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	const help = "run 'loom-perf --help' for usage\n"
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"no runs", []string{"--runs", "0"}, "loom-perf: --runs 0: need at least 1\n" + help},
		{"runs not a number", []string{"--runs", "x"}, `loom-perf: invalid value "x" for flag -runs: parse error` + "\n" + help},
		{"an unknown phase", []string{"--phases", "warm,nope"}, `loom-perf: --phases "warm,nope": no phase "nope" (phases: warm, replay, find, paths, http, cold, run, runlog)` + "\n" + help},
		{"no phase", []string{"--phases", ""}, `loom-perf: --phases "": no phase "" (phases: warm, replay, find, paths, http, cold, run, runlog)` + "\n" + help},
		{"unknown flag", []string{"--no-such-flag"}, "loom-perf: flag provided but not defined: -no-such-flag\n" + help},
		{"stray argument", []string{"extra"}, `loom-perf: unexpected argument "extra"` + "\n" + help},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := cli.Status("loom-perf", run(context.Background(), tt.args, &stdout, &stderr), &stderr)
			assert.Equal(t, 2, got)
			assert.Equal(t, tt.want, stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
}

// TestHelp: help that was asked for is the usage on stdout, status 0.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-h", "--help", "-help"} {
		t.Run(arg, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 0, cli.Status("loom-perf", run(context.Background(), []string{arg}, &stdout, &stderr), &stderr))
			assert.Contains(t, stdout.String(), "usage: loom-perf [--runs N] [--phases warm,replay,find,paths,http,cold,run,runlog]")
			assert.Contains(t, stdout.String(), "-small")
			assert.Empty(t, stderr.String())
		})
	}
}
