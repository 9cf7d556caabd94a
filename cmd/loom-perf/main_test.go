package main

import (
	"context"
	"io"
	"testing"

	"github.com/loom-results/loom-results/cmd/internal/cli/clitest"
)

// TestBadCommandLine: a bad command line exits with status 2 and prints
// the message and a pointer to --help, before anything is built or run.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	clitest.BadCommandLines(t, "loom-perf", runArgs, []clitest.Bad{
		{Name: "no runs", Args: []string{"--runs", "0"}, Msg: "--runs 0: need at least 1"},
		{Name: "runs not a number", Args: []string{"--runs", "x"}, Msg: `invalid value "x" for flag -runs: parse error`},
		{Name: "an unknown phase", Args: []string{"--phases", "warm,nope"}, Msg: `--phases "warm,nope": no phase "nope" (phases: warm, replay, find, paths, http, cold, run, runlog)`},
		{Name: "no phase", Args: []string{"--phases", ""}, Msg: `--phases "": no phase "" (phases: warm, replay, find, paths, http, cold, run, runlog)`},
		{Name: "unknown flag", Args: []string{"--no-such-flag"}, Msg: "flag provided but not defined: -no-such-flag"},
		{Name: "stray argument", Args: []string{"extra"}, Msg: `unexpected argument "extra"`},
	})
}

// TestHelp: help that was asked for is the usage on stdout, status 0.
func TestHelp(t *testing.T) {
	t.Parallel()
	clitest.Help(t, "loom-perf", runArgs, "usage: loom-perf [--runs N] [--phases warm,replay,find,paths,http,cold,run,runlog]", "-small")
}

// runArgs runs a command line as main does.
func runArgs(args []string, stdout, stderr io.Writer) error {
	return run(context.Background(), args, stdout, stderr)
}
