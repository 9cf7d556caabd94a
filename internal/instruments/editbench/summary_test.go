package editbench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSummaryJSON replays the fixture's whole history with the options
// that `loom-check bench-edits --json` leaves at their defaults, and reads
// the JSON summary it prints (cmd/loom-check tests the command itself).
func TestSummaryJSON(t *testing.T) {
	t.Parallel()
	rep, err := Run(t.Context(), Options{Repo: repo, Server: []string{binary}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, rep.Summary().WriteJSON(&out))

	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
	for _, k := range []string{"files", "preserved", "generated_vs_whole_median", "generated_vs_str_replace_total",
		"read_vs_whole_median_over_4k", "context_vs_str_replace_total", "oracle_hunks", "totals", "strategies", "targets"} {
		assert.Contains(t, raw, k)
	}
	var got Summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, 11, got.Commits)
	// The 100 KiB file is replayed too under the default 16 MiB limit.
	assert.Equal(t, 10, got.Files)
	assert.Equal(t, 10, got.Preserved)
	assert.Equal(t, 12, got.Hunks)
	assert.Equal(t, 0, got.OracleHunks)
	assert.Equal(t, 1, got.FilesOver4K)
	assert.Equal(t, map[string]int{"root_commit": 1, "added": 1, "deleted": 1, "binary": 1}, got.Skipped)
	for _, st := range []string{Loom, Whole, StrReplace, Floor} {
		assert.Positive(t, got.Totals[st].Generated, st)
		assert.Equal(t, got.Totals[st].Read, got.Strategies[st].Read.Total, st)
	}
	assert.Less(t, got.Totals[Loom].Generated, got.Totals[Whole].Generated)
	assert.Less(t, got.ReadVsWholeMedianOver4K, 0.25, "the large file is read through its preview and one find")
}

// TestSummaryTable: the table names the commits replayed, the files
// preserved, every strategy, the targets and preservation.
func TestSummaryTable(t *testing.T) {
	t.Parallel()
	rep, err := Run(t.Context(), Options{Repo: repo, Commits: 3, Server: []string{binary}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, rep.Summary().WriteTable(&out))
	assert.Contains(t, out.String(), ": 3 commits (")
	assert.Contains(t, out.String(), "3 files, 3 preserved (100.0%)")
	for _, s := range []string{"loom", "whole", "str_replace", "floor", "targets", "preservation"} {
		assert.Contains(t, out.String(), s)
	}
}
