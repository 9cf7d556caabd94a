package briefing

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// TestListResultsText checks the text content (SPEC section 5): each
// result's header line, as Options.Header renders it from the listed
// descriptor, then the page line when more pages follow, on every page of
// results of every source kind; an empty catalogue is "no results".
func TestListResultsText(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PageSize = 3
	b := fixture(t, cfg, Legacy, map[string]string{
		"a<b>&c.txt": "x\n", "doc.json": `{"k": [1, 2]}`, "é/ü.go": "package ü\n", "empty": "",
	})
	b.opts.Header = func(d results.Descriptor) string {
		return *d.ID + " " + d.Source.Kind + " " + strconv.FormatInt(d.Bytes, 10) + " " + d.SHA256[:12] + "\n"
	}
	p, err := b.listResults(0, nil)
	require.Nil(t, err)
	assert.Equal(t, "no results\n", p.Text)
	b.inspectPaths([]string{"a<b>&c.txt", "doc.json", "é/ü.go", "empty"})
	code, timedOut := int64(-1), true
	_, err = b.retainOutput(Output{Label: `go test "./..." <&>`, Text: "FAIL\n", ExitCode: &code, TimedOut: &timedOut, DroppedBytes: 7})
	require.Nil(t, err)
	_, err = b.retainOutput(Output{Label: "ok", Text: "ok\n", Complete: true})
	require.Nil(t, err)
	_, err = expandEdit(b, jsonSub(`{"path": "n.go", "content": {"$compose": [{"result": "r3"}, "// more\n"]}}`))
	require.Nil(t, err)

	want := []string{
		"r1 file 2 73cb3858a687\nr2 file 13 3a1a6df5d208\nr3 file 11 bd1b6348923f\npage 0 of 3: page 1 holds the next\n",
		"r4 file 0 e3b0c44298fc\nr5 output 5 4f8e9e45f8a9\nr6 output 3 dc51b8c96c2d\npage 1 of 3: page 2 holds the next\n",
		"r7 edit 19 1c5bc38eb4d8\n",
	}
	used := p.Budget.BytesUsed
	for page := int64(0); page < 3; page++ {
		p, err := b.listResults(page, nil)
		require.Nil(t, err)
		assert.Equal(t, want[page], p.Text, "page %d", page)
		assert.Equal(t, limits.EscapedSize(want[page]), p.Budget.BytesUsed-used, "page %d is charged its text", page)
		used = p.Budget.BytesUsed
	}
	p, err = b.listResults(0, nil)
	require.Nil(t, err)
	assert.Equal(t, results.KindFile, p.Results[0].Source.Kind)
}
