package transport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BenchmarkReadMessage reads a get_range call, as both transports do
// before answering it: the one pass over its bytes, and the members the
// dispatch needs.
func BenchmarkReadMessage(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"get_range","arguments":{"result":"r1","start":16776000,"end":16776800}}}`)
	for b.Loop() {
		if m, bad := readMessage(line); bad != nil || m.tool != "get_range" || !m.args.Present() {
			b.Fatal("not a call of get_range")
		}
	}
}

// TestReadMessageDepth: a message may nest as deep as encoding/json
// accepts, 10,000 levels, the envelope counted; one level more is a parse
// error.
func TestReadMessageDepth(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		depth int // of the whole message
		ok    bool
	}{{maxMessageDepth, true}, {maxMessageDepth + 1, false}} {
		inner := tt.depth - 2 // the envelope and params
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` +
			strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}}`)
		require.Equal(t, tt.ok, json.Valid(body), "encoding/json's verdict at %d levels", tt.depth)
		m, bad := readMessage(body)
		if tt.ok {
			require.Nil(t, bad)
			assert.Equal(t, "ping", m.method)
			continue
		}
		require.NotNil(t, bad)
		assert.Equal(t, mcp.PARSE_ERROR, bad.Error.Code)
	}
}
