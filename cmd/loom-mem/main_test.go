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
	const help = "run 'loom-mem --help' for usage\n"
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"no runs", []string{"--runs", "0"}, "loom-mem: --runs 0: need at least 1\n" + help},
		{"runs not a number", []string{"--runs", "x"}, `loom-mem: invalid value "x" for flag -runs: parse error` + "\n" + help},
		{"a bad expression", []string{"--only", "("}, "loom-mem: --only \"(\": error parsing regexp: missing closing ): `(`\n" + help},
		{"unknown flag", []string{"--no-such-flag"}, "loom-mem: flag provided but not defined: -no-such-flag\n" + help},
		{"stray argument", []string{"extra"}, `loom-mem: unexpected argument "extra"` + "\n" + help},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := cli.Status("loom-mem", run(context.Background(), tt.args, &stdout), &stderr)
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
			assert.Equal(t, 0, cli.Status("loom-mem", run(context.Background(), []string{arg}, &stdout), &stderr))
			assert.Contains(t, stdout.String(), "usage: loom-mem [--runs N]")
			assert.Contains(t, stdout.String(), "-server-arg value")
			assert.Empty(t, stderr.String())
		})
	}
}
