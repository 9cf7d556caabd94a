package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/cmd/internal/cli"
)

// TestBadCommandLine: a bad command line exits with status 2 and prints
// the message and a pointer to --help, before anything is built or run.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	const help = "run 'loom-load --help' for usage\n"
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"sessions not a number", []string{"--sessions", "x"}, `loom-load: invalid value "x" for flag -sessions: parse error` + "\n" + help},
		{"no sessions", []string{"--sessions", "0"}, "loom-load: --sessions 0 is not from 1 to 1000\n" + help},
		{"negative lookups", []string{"--lookups", "-1"}, "loom-load: --lookups -1 is not from 0 to 10000000\n" + help},
		{"no time", []string{"--duration", "0s"}, "loom-load: --duration 0s is not positive\n" + help},
		{"a negative cap", []string{"--max-store-bytes", "-1"}, "loom-load: the byte caps must not be negative\n" + help},
		{"unknown flag", []string{"--no-such-flag"}, "loom-load: flag provided but not defined: -no-such-flag\n" + help},
		{"stray argument", []string{"extra"}, `loom-load: unexpected argument "extra"` + "\n" + help},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := cli.Status("loom-load", run(context.Background(), tt.args, &stdout), &stderr)
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
			assert.Equal(t, 0, cli.Status("loom-load", run(context.Background(), []string{arg}, &stdout), &stderr))
			assert.Contains(t, stdout.String(), "usage: loom-load [--sessions N]")
			assert.Contains(t, stdout.String(), "-lookups int")
			assert.Empty(t, stderr.String())
		})
	}
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
