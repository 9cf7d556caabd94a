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
// ones marked with "?".
func TestReadmeToolTable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "<!-- tools:")
	require.True(t, ok, "README has no tools table marker")
	table, _, ok = strings.Cut(table, "<!-- /tools -->")
	require.True(t, ok)

	row := regexp.MustCompile("^\\| `([a-z_]+)`[^|]* \\| (.*?) \\|")
	documented := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		args := []string{}
		if m[2] != "none" {
			for _, a := range strings.Split(m[2], ", ") {
				args = append(args, strings.Trim(a, "`"))
			}
		}
		documented[m[1]] = args
	}

	listed := map[string][]string{}
	for _, tool := range Tools(ToolConfig{Config: limits.Defaults(), Write: true}) {
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
}
