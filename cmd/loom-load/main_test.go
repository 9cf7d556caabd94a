package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/cmd/internal/cli/clitest"
)

// TestBadCommandLine: a bad command line exits with status 2 and prints
// the message and a pointer to --help, before anything is built or run.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	clitest.BadCommandLines(t, "loom-load", runArgs, []clitest.Bad{
		{Name: "sessions not a number", Args: []string{"--sessions", "x"}, Msg: `invalid value "x" for flag -sessions: parse error`},
		{Name: "no sessions", Args: []string{"--sessions", "0"}, Msg: "--sessions 0 is not from 1 to 1000"},
		{Name: "negative lookups", Args: []string{"--lookups", "-1"}, Msg: "--lookups -1 is not from 0 to 10000000"},
		{Name: "no time", Args: []string{"--duration", "0s"}, Msg: "--duration 0s is not positive"},
		{Name: "a negative cap", Args: []string{"--max-store-bytes", "-1"}, Msg: "the byte caps must not be negative"},
		{Name: "unknown flag", Args: []string{"--no-such-flag"}, Msg: "flag provided but not defined: -no-such-flag"},
		{Name: "stray argument", Args: []string{"extra"}, Msg: `unexpected argument "extra"`},
	})
}

// TestHelp: help that was asked for is the usage on stdout, status 0.
func TestHelp(t *testing.T) {
	t.Parallel()
	clitest.Help(t, "loom-load", runArgs, "usage: loom-load [--sessions N]", "-lookups int")
}

// runArgs runs a command line as main does.
func runArgs(args []string, stdout, stderr io.Writer) error {
	return run(context.Background(), args, stdout)
}

func TestSmallRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	t.Parallel()
	var stdout bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--sessions", "2", "--lookups", "40"}, &stdout))
	for _, want := range []string{`\n  lookups +80\n`, `\n  errors +0\n`, `\n  cross-session reads +0\n`, `server peak RSS \(VmHWM\) +\d`, `\nPASS\n`} {
		assert.Regexp(t, want, stdout.String())
	}
}
