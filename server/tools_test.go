package server

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshots in testdata/toolsnaps")

// TestToolSnapshots compares every tool's definition (with the default
// flags and --write) with its snapshot in testdata/toolsnaps; a missing
// snapshot fails, -update rewrites them.
func TestToolSnapshots(t *testing.T) {
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true}) {
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
	for _, tool := range Tools(ToolConfig{Config: cfg, Write: true}) {
		name := tool.Tool.Name
		names[name] = true
		a := tool.Tool.Annotations
		require.NotNil(t, a.ReadOnlyHint, name)
		require.NotNil(t, a.DestructiveHint, name)
		require.NotNil(t, a.IdempotentHint, name)
		require.NotNil(t, a.OpenWorldHint, name)
		// write_file alone writes: SPEC section 9's hints.
		writes := name == "write_file"
		assert.Equal(t, !writes, *a.ReadOnlyHint, name)
		assert.Equal(t, writes, *a.DestructiveHint, name)
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
	assert.Len(t, names, 10)
	assert.Len(t, Tools(ToolConfig{Config: cfg}), 9, "without --write there is no write_file")
}

// TestStepModes: with --steps model the tools a stock client cannot use
// (expand_edit, retain_output) are not listed; every listed tool keeps its
// name and annotations, and its input schema is client mode's without
// descriptions, defaults, or range and length keywords (SPEC section 2).
// begin_step's description tells the model when to call it.
func TestStepModes(t *testing.T) {
	t.Parallel()
	client := Tools(ToolConfig{Config: limits.Defaults(), Write: true})
	model := Tools(ToolConfig{Config: limits.Defaults(), Write: true, Steps: limits.ModelSteps})
	byName := map[string]int{}
	for i, c := range client {
		byName[c.Tool.Name] = i
	}
	var names []string
	for _, m := range model {
		names = append(names, m.Tool.Name)
		c := client[byName[m.Tool.Name]].Tool
		assert.Equal(t, c.Annotations, m.Tool.Annotations, c.Name)
		assert.Equal(t, string(compactSchema(c.RawInputSchema)), string(m.Tool.RawInputSchema), c.Name)
		assert.NotEqual(t, c.Description, m.Tool.Description, "%s: model mode says only what is particular to the tool", c.Name)
		if c.Name == "begin_step" {
			assert.True(t, strings.HasPrefix(c.Description, "Governing client only"), c.Description)
			assert.Contains(t, m.Tool.Description, "Call it when you start a new action")
			assert.Contains(t, m.Tool.Description, "whenever an answer is lookup_limit or step_refused")
		}
	}
	assert.Equal(t, []string{"inspect", "find", "get_lines", "get_range", "get_json", "list_results", "begin_step", "write_file"}, names)
	assert.Len(t, client, len(model)+2)
}
