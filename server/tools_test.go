package server

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestStepModes: with --steps model the tools a stock client cannot use
// (expand_edit, retain_output) are not listed; every listed tool keeps its
// name and annotations, and its input schema is client mode's without
// descriptions, defaults, or range and length keywords (SPEC section 2).
// begin_step's description tells the model when to call it.
func TestStepModes(t *testing.T) {
	t.Parallel()
	client := Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)})
	model := Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t), Steps: limits.ModelSteps})
	byName := map[string]int{}
	for i, c := range client {
		byName[c.Tool.Name] = i
	}
	var names []string
	for _, m := range model {
		names = append(names, m.Tool.Name)
		c := client[byName[m.Tool.Name]].Tool
		assert.Equal(t, c.Annotations, m.Tool.Annotations, c.Name)
		assert.Equal(t, withoutCompactKeywords(t, c.RawInputSchema), schemaOf(t, m.Tool.RawInputSchema), c.Name)
		assert.NotEqual(t, c.Description, m.Tool.Description, "%s: model mode says only what is particular to the tool", c.Name)
		if c.Name == "begin_step" {
			assert.True(t, strings.HasPrefix(c.Description, "Governing client only"), c.Description)
			assert.Contains(t, m.Tool.Description, "Call it when you start a new action")
			assert.Contains(t, m.Tool.Description, "whenever an answer is lookup_limit or step_refused")
		}
	}
	assert.Equal(t, []string{"inspect", "find", "get_lines", "get_range", "get_json", "list_results", "begin_step", "write_file", "run"}, names)
	assert.Len(t, client, len(model)+2)
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

// TestStepGapWording: with a gap, begin_step's description and the
// instructions say that steps begin by themselves and ask for a call only
// when an answer is lookup_limit or step_refused; with --step-gap 0 they
// keep asking for one per action (SPEC section 5). A gap with --steps
// client changes nothing: the governing client steps.
func TestStepGapWording(t *testing.T) {
	t.Parallel()
	const (
		paused  = "Start a new step with a fresh budget. Steps begin by themselves between your turns: call it only when an answer is lookup_limit or step_refused, then repeat that call."
		perStep = "Start a new step with a fresh budget. Call it when you start a new action, and whenever an answer is lookup_limit or step_refused; then repeat the call that was refused."
		budget  = "Each step allows 8 lookups (find, get_*, list_results) of at most 8192 bytes, 65536 in all. "
	)
	tests := []struct {
		name        string
		cfg         ToolConfig
		description string
		lastLine    string // the instructions' last line
	}{
		{"default gap", ToolConfig{Steps: limits.ModelSteps, StepGap: DefaultStepGap}, paused,
			budget + "A step begins by itself between your turns; call begin_step only when an answer is lookup_limit or step_refused, then repeat that call."},
		{"1ns", ToolConfig{Steps: limits.ModelSteps, StepGap: time.Nanosecond}, paused,
			budget + "A step begins by itself between your turns; call begin_step only when an answer is lookup_limit or step_refused, then repeat that call."},
		{"gap 0", ToolConfig{Steps: limits.ModelSteps}, perStep,
			budget + "Call begin_step when you start a new action, and whenever an answer is lookup_limit or step_refused; then repeat that call."},
		{"client steps", ToolConfig{StepGap: DefaultStepGap},
			"Governing client only: end the current step and start the next with a fresh budget (8 lookups, 65536 escaped bytes, 16777216 expanded bytes). Returns the step number and the limits.",
			"3. expand_edit turns $compose and $splice nodes in a write action's arguments into file contents, so unchanged text is never generated again; the executor of the action writes the file (this server writes nothing)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.cfg.Config = limits.Defaults()
			var got string
			for _, tool := range Tools(tt.cfg) {
				if tool.Tool.Name == "begin_step" {
					got = tool.Tool.Description
				}
			}
			assert.Equal(t, tt.description, got)
			lines := strings.Split(strings.TrimSuffix(instructions(tt.cfg), "\n"), "\n")
			assert.Equal(t, tt.lastLine, lines[len(lines)-1])
		})
	}
}
