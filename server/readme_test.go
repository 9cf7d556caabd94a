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
}

// TestReadmeLayout checks the README's Layout block against the tree: one
// line for every top-level folder (and .ci), and every package under
// internal/ and server/ named, none that does not exist.
func TestReadmeLayout(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, layout, ok := strings.Cut(string(readme), "## Layout\n")
	require.True(t, ok, "README has no Layout section")
	_, block, ok := strings.Cut(layout, "```\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)

	dirs := func(path string) []string {
		entries, err := os.ReadDir(path)
		require.NoError(t, err)
		var out []string
		for _, e := range entries {
			if e.IsDir() && (!strings.HasPrefix(e.Name(), ".") || e.Name() == ".ci") && e.Name() != "testdata" && e.Name() != "node_modules" {
				out = append(out, e.Name())
			}
		}
		return out
	}
	var top []string
	nested := map[string][]string{}
	parent := ""
	name := regexp.MustCompile(`([a-z.][a-z0-9_-]*)/`)
	for line := range strings.Lines(block) {
		if !strings.HasPrefix(line, " ") {
			m := name.FindStringSubmatch(line)
			require.NotNil(t, m, "a Layout line names no folder: %q", line)
			parent = m[1]
			top = append(top, parent)
			continue
		}
		// An indented line names folders of the last top-level one: its
		// first word, and in its text any other name/ that exists there.
		for _, m := range name.FindAllStringSubmatch(line, -1) {
			if _, err := os.Stat("../" + parent + "/" + m[1]); err == nil || m[0] == strings.Fields(line)[0] {
				nested[parent] = append(nested[parent], m[1])
			}
		}
	}
	assert.ElementsMatch(t, dirs(".."), top, "top-level folders")
	assert.ElementsMatch(t, dirs("../internal"), nested["internal"], "internal/ packages")
	assert.ElementsMatch(t, dirs("."), nested["server"], "server/ packages")
}
