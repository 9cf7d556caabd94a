package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// listed is what a client learns of a server before the first call: the
// instructions of initialize and the tools of tools/list, from a real
// stdio session.
type listed struct {
	Instructions string
	Tools        []map[string]json.RawMessage
}

func listServer(t *testing.T, opts Options) listed {
	t.Helper()
	root, _ := testroot.Open(t, nil, workspace.Open)
	opts.Root = root
	if opts.Limits == (limits.Config{}) {
		opts.Limits = limits.Defaults()
	}
	p := mcptest.ServeStdio(t, New(opts).ServeStdio)
	p.Send(mcptest.InitializeBody)
	line, err := p.Out.ReadBytes('\n')
	require.NoError(t, err)
	var init struct {
		Result struct{ Instructions string }
	}
	require.NoError(t, json.Unmarshal(line, &init))
	p.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	line, err = p.Out.ReadBytes('\n')
	require.NoError(t, err)
	var list struct {
		Result struct{ Tools []map[string]json.RawMessage }
	}
	require.NoError(t, json.Unmarshal(line, &list))
	return listed{init.Result.Instructions, list.Result.Tools}
}

// definitionBytes is what SPEC section 2 counts of one listed tool: the
// compact JSON object {"name", "title", "description", "inputSchema"},
// title being the tool's title or else its annotations' title.
func definitionBytes(t *testing.T, tool map[string]json.RawMessage) int {
	t.Helper()
	title := tool["title"]
	if title == nil {
		var a struct {
			Title *string `json:"title"`
		}
		require.NoError(t, json.Unmarshal(tool["annotations"], &a))
		if a.Title != nil {
			title, _ = json.Marshal(*a.Title)
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	b.Write(tool["name"])
	if title != nil {
		b.WriteString(`,"title":`)
		b.Write(title)
	}
	b.WriteString(`,"description":`)
	b.Write(tool["description"])
	b.WriteString(`,"inputSchema":`)
	require.NoError(t, json.Compact(&b, tool["inputSchema"]))
	b.WriteString("}")
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, b.Bytes()))
	return compact.Len()
}

func toolNames(tools []map[string]json.RawMessage) []string {
	var names []string
	for _, tool := range tools {
		var n string
		_ = json.Unmarshal(tool["name"], &n)
		names = append(names, n)
	}
	return names
}

// TestModelDefinitionsSize: with --steps model --write, what a client
// sends its model on every turn (each listed tool's name, title,
// description and input schema, and the instructions) is at most 7,000
// bytes, and the tools a stock client cannot use are not listed (SPEC
// section 2).
func TestModelDefinitionsSize(t *testing.T) {
	t.Parallel()
	// The command's default gap, and --step-gap 0, whose begin_step
	// description and instructions differ.
	for _, gap := range []time.Duration{DefaultStepGap, 0} {
		got := listServer(t, Options{Steps: limits.ModelSteps, StepGap: gap, Write: true})
		assert.ElementsMatch(t, []string{"begin_step", "find", "get_json", "get_lines", "get_range", "inspect", "list_results", "write_file"},
			toolNames(got.Tools))
		total := len(got.Instructions)
		t.Logf("--step-gap %s", gap)
		t.Logf("%-13s %5d", "instructions", len(got.Instructions))
		for _, tool := range got.Tools {
			n := definitionBytes(t, tool)
			t.Logf("%-13s %5d", toolNames([]map[string]json.RawMessage{tool})[0], n)
			total += n
		}
		t.Logf("%-13s %5d", "total", total)
		assert.LessOrEqual(t, total, 7000, "--step-gap %s", gap)
	}
}

// TestRecommendedDefinitionsSize measures what SPEC section 2 counts for
// the command the README recommends, --steps model --write --run
// test='go test ./...' (docs/clients.md gives the figures): the run tool
// and the instructions' line about it come on top of the 7,000 bytes
// without --run.
func TestRecommendedDefinitionsSize(t *testing.T) {
	t.Parallel()
	without := listServer(t, Options{Steps: limits.ModelSteps, Write: true})
	got := listServer(t, Options{Steps: limits.ModelSteps, Write: true,
		Run: briefing.RunConfig{Commands: commands(t, "test=go test ./...")}})
	assert.Contains(t, toolNames(got.Tools), "run")
	measure := func(l listed) (defs int) {
		for _, tool := range l.Tools {
			defs += definitionBytes(t, tool)
		}
		return defs
	}
	defs, base := measure(got), measure(without)
	t.Logf("with --run: definitions %d + instructions %d = %d", defs, len(got.Instructions), defs+len(got.Instructions))
	t.Logf("without:    definitions %d + instructions %d = %d", base, len(without.Instructions), base+len(without.Instructions))
	assert.Greater(t, defs+len(got.Instructions), base+len(without.Instructions))
	assert.LessOrEqual(t, defs+len(got.Instructions), 8000, "run adds less than 1,000 bytes to every turn")
}

// TestModelInstructions: the instructions, the one text a client that
// defers its tools always shows, open with a line that says on its own
// what the server is for, name the tools of the loop, and carry the budget.
func TestModelInstructions(t *testing.T) {
	t.Parallel()
	got := listServer(t, Options{Steps: limits.ModelSteps, Write: true}).Instructions
	first, rest, ok := strings.Cut(got, "\n")
	require.True(t, ok)
	assert.Less(t, utf8.RuneCountInString(first), 240, first)
	assert.Contains(t, first, "loom-results")
	for _, want := range []string{"find {paths", "get_lines", "write_file", "begin_step", "8 lookups", "8192 bytes", "65536 in all"} {
		assert.Contains(t, rest, want)
	}
	assert.NotContains(t, listServer(t, Options{Steps: limits.ModelSteps}).Instructions, "write_file")
}

// TestAnswerModes: with --answers text no tool has an outputSchema and no
// answer, success or error, a structured content; with full both do
// (SPEC section 2). The default follows --steps.
func TestAnswerModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		opts       Options
		structured bool
	}{
		{"client default", Options{}, true},
		{"model default", Options{Steps: limits.ModelSteps}, false},
		{"client text", Options{Answers: AnswersText}, false},
		{"model full", Options{Steps: limits.ModelSteps, Answers: AnswersFull}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, tool := range listServer(t, tc.opts).Tools {
				_, has := tool["outputSchema"]
				assert.Equal(t, tc.structured, has, "%s", tool["name"])
			}
			root, _ := testroot.Open(t, map[string]string{"a.txt": "alpha\nbeta\n"}, workspace.Open)
			tc.opts.Root, tc.opts.Limits = root, limits.Defaults()
			p := mcptest.ServeStdio(t, New(tc.opts).ServeStdio)
			p.Initialize()
			ok := p.Call(1, "inspect", `{"paths":["a.txt"]}`)
			assert.True(t, strings.HasPrefix(mcptest.Text(ok), "r1 file a.txt: 11 bytes, 2 lines, complete, sha256="), mcptest.Text(ok))
			lines := p.Call(2, "get_lines", `{"result":"r1","first":2}`)
			assert.Equal(t, "beta\n", mcptest.Text(lines))
			bad := p.Call(3, "get_lines", `{"result":"r1","first":3}`)
			assert.Equal(t, true, bad["isError"])
			assert.True(t, strings.HasPrefix(mcptest.Text(bad), "error invalid_range: "), mcptest.Text(bad))
			for _, res := range []map[string]any{ok, lines, bad} {
				_, has := res["structuredContent"]
				assert.Equal(t, tc.structured, has, res)
			}
		})
	}
}
