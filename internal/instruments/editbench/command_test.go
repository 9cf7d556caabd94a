package editbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchEdits runs `loom-results bench-edits args...` and returns its
// stdout, stderr and exit status.
func benchEdits(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, append([]string{"bench-edits"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

// TestCommand runs the command over the fixture's whole history, with
// this executable as the server, as a user would.
func TestCommand(t *testing.T) {
	t.Parallel()
	stdout, stderr, status := benchEdits(t, "--repo", repo, "--commits", "0", "--json")
	require.Equal(t, 0, status, stderr)

	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(stdout), &raw))
	for _, k := range []string{"files", "preserved", "generated_vs_whole_median", "generated_vs_str_replace_total",
		"read_vs_whole_median_over_4k", "context_vs_str_replace_total", "oracle_hunks", "totals", "strategies", "targets"} {
		assert.Contains(t, raw, k)
	}
	var got Summary
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
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

func TestCommandTable(t *testing.T) {
	t.Parallel()
	stdout, stderr, status := benchEdits(t, "--repo", repo, "--commits", "3")
	require.Equal(t, 0, status, stderr)
	assert.Contains(t, stdout, ": 3 commits (")
	assert.Contains(t, stdout, "3 files, 3 preserved (100.0%)")
	for _, s := range []string{"loom", "whole", "str_replace", "floor", "targets", "preservation"} {
		assert.Contains(t, stdout, s)
	}
}

// TestCommandNotPreserved: a file whose expansion fails makes the command
// fail, after it printed its summary.
func TestCommandNotPreserved(t *testing.T) {
	t.Parallel()
	stdout, stderr, status := benchEdits(t, "--repo", repo, "--commits", "1", "--json", "--server-flags", "--max-expand-bytes 100")
	assert.Equal(t, 1, status)
	assert.Contains(t, stderr, "1 of 1 files not preserved")
	var got Summary
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, 1, got.Files)
	assert.Equal(t, 0, got.Preserved)
	require.Len(t, got.Failures, 1)
	assert.Equal(t, "del.txt", got.Failures[0].Path)
}

func TestCommandUsage(t *testing.T) {
	t.Parallel()
	_, stderr, status := benchEdits(t, "--repo", repo, "extra")
	assert.Equal(t, 2, status)
	assert.Contains(t, stderr, `unexpected argument "extra"`)
}
