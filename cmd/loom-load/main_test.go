package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := [][]string{
		{"--sessions", "x"},
		{"--sessions", "0"},
		{"--lookups", "-1"},
		{"--duration", "0s"},
		{"--no-such-flag"},
		{"extra"},
	}
	for _, args := range tests {
		var stderr bytes.Buffer
		err := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		var usage usageError
		assert.True(t, errors.As(err, &usage), "%v: %v", args, err)
		assert.NotEmpty(t, stderr.String(), "%v", args)
	}
}

func TestSmallRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	t.Parallel()
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--sessions", "2", "--lookups", "40"}, &stdout, &stderr), stderr.String())
	for _, want := range []string{`\n  lookups +80\n`, `\n  errors +0\n`, `\n  cross-session reads +0\n`, `server peak RSS \(VmHWM\) +\d`, `\nPASS\n`} {
		assert.Regexp(t, want, stdout.String())
	}
}
