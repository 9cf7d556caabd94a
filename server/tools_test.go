package server

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshots in testdata/toolsnaps")

// TestToolSnapshots compares every tool's definition (with the default
// flags, --write and two --run commands) with its snapshot in
// testdata/toolsnaps; a missing snapshot fails, -update rewrites them.
func TestToolSnapshots(t *testing.T) {
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)}) {
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
	for _, tool := range Tools(ToolConfig{Config: cfg, Write: true, Commands: snapCommands(t)}) {
		name := tool.Tool.Name
		names[name] = true
		a := tool.Tool.Annotations
		require.NotNil(t, a.ReadOnlyHint, name)
		require.NotNil(t, a.DestructiveHint, name)
		require.NotNil(t, a.IdempotentHint, name)
		require.NotNil(t, a.OpenWorldHint, name)
		// write_file and run alone write: SPEC section 9's hints and
		// section 10's, which open the world (a command may do what its
		// user may).
		writes := name == "write_file" || name == "run"
		assert.Equal(t, !writes, *a.ReadOnlyHint, name)
		assert.Equal(t, writes, *a.DestructiveHint, name)
		assert.Equal(t, name == "run", *a.OpenWorldHint, name)
		if writes {
			assert.False(t, *a.IdempotentHint, name)
		}
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
	assert.Len(t, names, 11)
	assert.Len(t, Tools(ToolConfig{Config: cfg}), 9, "without --write there is no write_file, without --run no run")
}

// TestStepModes: with --steps model, begin_step's description tells the
// model when to call it; every other description differs from the client
// mode's only in its sentence about begin_step, and names, schemas and
// annotations are the same (SPEC section 5).
func TestStepModes(t *testing.T) {
	t.Parallel()
	client := Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)})
	model := Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t), Steps: limits.ModelSteps})
	require.Len(t, model, len(client))
	for i := range client {
		c, m := client[i].Tool, model[i].Tool
		assert.Equal(t, c.Name, m.Name)
		assert.JSONEq(t, string(c.RawInputSchema), string(m.RawInputSchema), c.Name)
		assert.Equal(t, c.Annotations, m.Annotations, c.Name)
		if c.Name == "begin_step" {
			assert.True(t, strings.HasPrefix(c.Description, "Governing client only"), c.Description)
			assert.Contains(t, m.Description, "Call it when you start a new action")
			assert.Contains(t, m.Description, "whenever an answer is lookup_limit or step_refused")
			continue
		}
		// The sentences that differ all name begin_step.
		cs, ms := sentences(c.Description), sentences(m.Description)
		for _, s := range symmetricDifference(cs, ms) {
			assert.Contains(t, s, "begin_step", "%s: a sentence that differs by mode: %q", c.Name, s)
		}
	}
}

func sentences(s string) []string {
	var out []string
	for _, part := range strings.SplitAfter(s, ". ") {
		for _, p := range strings.Split(part, "; ") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func symmetricDifference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

// snapCommands are the --run commands of the tool snapshots.
func snapCommands(t *testing.T) []workspace.Command {
	return commands(t, "test=go test ./...", "lint=go vet ./...")
}

// commands parses --run values.
func commands(t *testing.T, values ...string) []workspace.Command {
	t.Helper()
	var cs []workspace.Command
	for _, v := range values {
		c, err := workspace.ParseCommand(v)
		require.NoError(t, err)
		cs = append(cs, c)
	}
	return cs
}
