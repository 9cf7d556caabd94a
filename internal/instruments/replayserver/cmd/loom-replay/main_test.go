package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
)

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--tape"}, {"--tape", "x", "extra"}, {"--no-such-flag"}} {
		err := run(context.Background(), args, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		var usage usageError
		assert.True(t, errors.As(err, &usage), "%v: %v", args, err)
	}
	err := run(context.Background(), []string{"--tape", filepath.Join(t.TempDir(), "none")}, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	assert.ErrorContains(t, err, "no such file")
}

func TestStdio(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tape")
	require.NoError(t, replayserver.WriteTape(path, []replayserver.Exchange{
		{Request: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), Answer: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)},
	}))
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":"x","method":"tools/list"}` + "\n")
	require.NoError(t, run(context.Background(), []string{"--tape", path}, in, &out, &bytes.Buffer{}))
	assert.Equal(t, `{"jsonrpc":"2.0","id":"x","result":{"tools":[]}}`+"\n", out.String())
}
