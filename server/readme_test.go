package server

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
)

// TestReadmeToolTable checks the README's tool table against the tools the
// server lists: the same tools, and for each the same arguments, optional
// ones marked with "?"; a tool marked "only with" a flag is listed only
// with it, and one marked "not with `--steps model`" only without it.
func TestReadmeToolTable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "<!-- tools:")
	require.True(t, ok, "README has no tools table marker")
	table, _, ok = strings.Cut(table, "<!-- /tools -->")
	require.True(t, ok)

	row := regexp.MustCompile("^\\| `([a-z_]+)`([^|]*) \\| (.*?) \\|")
	documented := map[string][]string{}
	marks := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		args := []string{}
		if m[3] != "none" {
			for _, a := range strings.Split(m[3], ", ") {
				args = append(args, strings.Trim(a, "`"))
			}
		}
		documented[m[1]] = args
		marks[m[1]] = strings.TrimSpace(m[2])
	}

	listed := map[string][]string{}
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: snapCommands(t)}) {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &schema))
		args := []string{}
		for name := range schema.Properties {
			if !slices.Contains(schema.Required, name) {
				name += "?"
			}
			args = append(args, name)
		}
		listed[tool.Tool.Name] = args
	}
	require.Equal(t, len(listed), len(documented), "tools in README: %v", documented)
	for name, args := range listed {
		assert.ElementsMatch(t, args, documented[name], name)
	}

	names := func(cfg ToolConfig) []string {
		var out []string
		for _, tool := range Tools(cfg) {
			out = append(out, tool.Tool.Name)
		}
		return out
	}
	bare := names(ToolConfig{Config: limits.Defaults()})
	model := names(ToolConfig{Config: limits.Defaults(), Steps: limits.ModelSteps, Write: true, Commands: snapCommands(t)})
	for name, mark := range marks {
		assert.Equal(t, !strings.HasPrefix(mark, "(only with"), slices.Contains(bare, name), "%s %s: listed with no flags", name, mark)
		assert.Equal(t, !strings.Contains(mark, "not with `--steps model`"), slices.Contains(model, name), "%s %s: listed with --steps model --write --run", name, mark)
	}
}
