package briefing

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// TestListResultsText checks the text content, assembled from each
// result's cached entry, against encoding/json's compact form of the page
// (without budget, digests cut to 12 hex digits, <, > and & unescaped), on
// every page of results of every source kind.
func TestListResultsText(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PageSize = 3
	b := fixture(t, cfg, Legacy, map[string]string{
		"a<b>&c.txt": "x\n", "doc.json": `{"k": [1, 2]}`, "é/ü.go": "package ü\n", "empty": "",
	})
	b.inspectPaths([]string{"a<b>&c.txt", "doc.json", "é/ü.go", "empty"})
	code, timedOut := int64(-1), true
	_, err := b.retainOutput(Output{Label: `go test "./..." <&>`, Text: "FAIL\n", ExitCode: &code, TimedOut: &timedOut, DroppedBytes: 7})
	require.Nil(t, err)
	_, err = b.retainOutput(Output{Label: "ok", Text: "ok\n", Complete: true})
	require.Nil(t, err)
	_, err = expandEdit(b, jsonSub(`{"path": "n.go", "content": {"$compose": [{"result": "r3"}, "// more\n"]}}`))
	require.Nil(t, err)

	for page := int64(0); page < 3; page++ {
		p, err := b.listResults(page, nil)
		require.Nil(t, err)
		short := *p
		short.Budget = nil
		short.Results = nil
		for _, d := range p.Results {
			d.SHA256 = d.SHA256[:12]
			short.Results = append(short.Results, d)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(short))
		assert.Equal(t, string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), p.Text, "page %d", page)
	}
	p, err := b.listResults(0, nil)
	require.Nil(t, err)
	assert.Equal(t, results.KindFile, p.Results[0].Source.Kind)
}
