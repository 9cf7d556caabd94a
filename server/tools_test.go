package server

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshots in testdata/toolsnaps")

// TestToolSnapshots compares every tool's definition with its snapshot in
// testdata/toolsnaps; a missing snapshot fails, -update rewrites them.
func TestToolSnapshots(t *testing.T) {
	for _, tool := range Tools(limits.Defaults()) {
		t.Run(tool.Tool.Name, func(t *testing.T) {
			got, err := json.MarshalIndent(tool.Tool, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			path := filepath.Join("testdata", "toolsnaps", tool.Tool.Name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no snapshot: run go test ./server -run TestToolSnapshots -update")
			assert.JSONEq(t, string(want), string(got))
		})
	}
}

func TestToolsDescribeLimitsAndHints(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxLookups = 7
	cfg.MaxLookupBytes = 1234
	cfg.MaxStepBytes = 5678
	lookups := map[string]bool{"find": true, "get_lines": true, "get_range": true, "get_json": true, "list_results": true}
	names := map[string]bool{}
	for _, tool := range Tools(cfg) {
		name := tool.Tool.Name
		names[name] = true
		a := tool.Tool.Annotations
		require.NotNil(t, a.ReadOnlyHint, name)
		require.NotNil(t, a.DestructiveHint, name)
		require.NotNil(t, a.IdempotentHint, name)
		require.NotNil(t, a.OpenWorldHint, name)
		assert.True(t, *a.ReadOnlyHint, name)
		assert.False(t, *a.DestructiveHint, name)
		assert.False(t, *a.OpenWorldHint, name)
		assert.NotEmpty(t, a.Title, name)
		if lookups[name] {
			for _, n := range []int64{cfg.MaxLookups, cfg.MaxLookupBytes, cfg.MaxStepBytes} {
				assert.Contains(t, tool.Tool.Description, strconv.FormatInt(n, 10), name)
			}
		}
		var schema map[string]any
		require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &schema), name)
		assert.Equal(t, false, schema["additionalProperties"], name)
	}
	assert.Len(t, names, 9)
}
