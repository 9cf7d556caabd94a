package stdioclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/loombin"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
)

// TestProcess drives the real server: the handshake, a request and its
// answer by id, a JSON-RPC error, an answer line longer than the reader's
// buffer, and a clean exit at the end of input.
func TestProcess(t *testing.T) {
	t.Parallel()
	bin, err := loombin.Build(context.Background(), t.TempDir())
	require.NoError(t, err)
	long := strings.Repeat("x", 3<<20) + "\n"
	dir := t.TempDir()
	testroot.Write(t, dir, map[string]string{"big.txt": long})
	p, err := Start(t.Context(), []string{bin, "--root", dir, "--max-lookup-bytes", "8388608", "--max-step-bytes", "16777216"}, Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, p.Initialize(t.Context(), "stdioclient-test"))

	line, err := p.Request(t.Context(), "tools/call", []byte(`{"name":"begin_step","arguments":{}}`))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(line), `{"jsonrpc":"2.0","id":2,"result":`), "%.80s", line)

	_, err = p.Request(t.Context(), "no/such/method", []byte(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "JSON-RPC error")

	_, err = p.Request(t.Context(), "tools/call", []byte(`{"name":"inspect","arguments":{"paths":["big.txt"]}}`))
	require.NoError(t, err)
	line, err = p.Request(t.Context(), "tools/call", []byte(`{"name":"get_range","arguments":{"result":"r1"}}`))
	require.NoError(t, err)
	var ans struct {
		Result struct {
			StructuredContent struct {
				Text string `json:"text"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(line, &ans))
	assert.Equal(t, long, ans.Result.StructuredContent.Text, "a 6 MiB answer line read whole")

	require.NoError(t, p.Close(), "the server exits 0 at the end of its input")
	assert.Empty(t, p.Stderr.String())
}
