package transport_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// TestArgumentsReadOnce: a tool reads its arguments from the index that
// the one reading of the message built, and expand_edit hands its
// arguments on to the briefing the same way: answering an expand_edit of
// a 4 MiB array without a node indexes nothing again (an index of that
// array, its tape alone, takes about 0.75 MiB), and gives the arguments
// back as the message holds them. It runs alone: it reads the process's
// allocations.
func TestArgumentsReadOnce(t *testing.T) {
	root, err := workspace.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	sess := server.New(server.Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Root: root}).Transport().StdioContext(t)
	array := "[" + strings.Repeat("0,", 2<<20) + "0]"
	msg, bad := transport.ReadMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"expand_edit","arguments":{"arguments":{"x":` + array + `}}}}`))
	require.Nil(t, bad)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp := sess.Handle(msg)
	runtime.ReadMemStats(&after)
	res, ok := resp.(mcp.JSONRPCResponse)
	require.True(t, ok, "%#v", resp)
	result := res.Result.(*mcp.CallToolResult)
	require.False(t, result.IsError, "%v", result.Content)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<10), "bytes allocated to answer an expand_edit of 4 MiB")
}
