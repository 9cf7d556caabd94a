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
	clitest.BadCommandLines(t, "loom-mem", runArgs, []clitest.Bad{
		{Name: "no runs", Args: []string{"--runs", "0"}, Msg: "--runs 0: need at least 1"},
		{Name: "runs not a number", Args: []string{"--runs", "x"}, Msg: `invalid value "x" for flag -runs: parse error`},
		{Name: "a bad expression", Args: []string{"--only", "("}, Msg: "--only \"(\": error parsing regexp: missing closing ): `(`"},
		{Name: "unknown flag", Args: []string{"--no-such-flag"}, Msg: "flag provided but not defined: -no-such-flag"},
		{Name: "stray argument", Args: []string{"extra"}, Msg: `unexpected argument "extra"`},
	})
}

// TestHelp: help that was asked for is the usage on stdout, status 0.
func TestHelp(t *testing.T) {
	t.Parallel()
	clitest.Help(t, "loom-mem", runArgs, "usage: loom-mem [--runs N]", "-server-arg value")
}

// runArgs runs a command line as main does.
func runArgs(args []string, stdout, stderr io.Writer) error {
	return run(context.Background(), args, stdout)
}
