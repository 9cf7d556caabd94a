package transport_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
)

// FuzzReadMessage fuzzes the reader both transports use (readMessage),
// seeded with every conformance script's client lines and the hostile
// tests' messages. Properties: no panic; -32700 exactly when encoding/json
// refuses the body (the one pass of the JSON engine accepts what it
// accepts, 10,000 levels deep); one reading (what readMessage took is
// what a plain, exact-name decoding of the body finds); and every answer,
// one session fed every input in turn, encodes to json.Marshal's bytes.
func FuzzReadMessage(f *testing.F) {
	scripts, err := filepath.Glob("../../conformance/testdata/*.txtar")
	require.NoError(f, err)
	require.NotEmpty(f, scripts)
	for _, file := range scripts {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		for _, line := range parseTxtar(f, data).client {
			f.Add(line)
		}
	}
	// The hostile tables' messages: case-insensitive doubles, deep ones.
	for _, tt := range mcptest.OneReading {
		f.Add([]byte(tt.Body))
	}
	for _, tt := range mcptest.Malformed {
		f.Add([]byte(tt.Body))
	}
	dir := f.TempDir()
	for name, body := range map[string]string{"a.txt": "x\ny\n", "j.json": `{"k": [1, "two", {"三": null}]}`} {
		require.NoError(f, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	cfg := limits.Defaults()
	cfg.MaxMessageBytes = 1 << 20
	es := newEncSession(f, server.Options{Limits: cfg, Policy: briefing.Legacy}, dir)
	f.Fuzz(func(t *testing.T, body []byte) {
		es.t = t
		body = bytes.ReplaceAll(body, []byte("$ROOT"), []byte(dir))
		msg, bad := transport.ReadMessage(body)
		if bad != nil {
			assert.Equal(t, !json.Valid(body), bad.Error.Code == mcp.PARSE_ERROR, "-32700 exactly when encoding/json refuses the body")
		} else {
			require.True(t, json.Valid(body), "encoding/json refuses a body readMessage took")
			checkSingleReading(t, body, msg)
		}
		es.exchange(body)
	})
}

// checkSingleReading holds what readMessage took of body to an independent
// reading: encoding/json decoding the members by their exact names (a map
// keeps the last of a repeated name, as readMessage does).
func checkSingleReading(t *testing.T, body []byte, msg transport.Inbound) {
	t.Helper()
	var exact map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &exact), "readMessage took a body that is not an object")
	if raw, ok := exact["method"]; ok {
		var method string
		require.NoError(t, json.Unmarshal(raw, &method))
		assert.Equal(t, method, msg.Method())
	} else {
		assert.True(t, msg.Response(), "no method: only a response is taken")
	}
	if raw, ok := exact["id"]; ok && string(raw) != "null" {
		assert.Equal(t, string(raw), string(msg.ID()))
	} else {
		assert.Nil(t, msg.ID())
	}
	if msg.Response() || msg.Method() != string(mcp.MethodToolsCall) {
		return
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(exact["params"], &params) != nil {
		assert.Nil(t, msg.Args(), "arguments of params that are not an object")
		return
	}
	assert.Equal(t, string(params["arguments"]), string(msg.Args()), "the tool's arguments")
	var name string
	if json.Unmarshal(params["name"], &name) == nil {
		assert.Equal(t, name, msg.Tool(), "the tool's name")
	}
}
