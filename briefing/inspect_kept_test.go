package briefing

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// TestInspectAgain: a file inspected again is reused when its bytes are
// those kept, and read as new when they changed, at the same size or not.
func TestInspectAgain(t *testing.T) {
	t.Parallel()
	b := fixture(t, limits.Defaults(), Legacy, map[string]string{"a.txt": "one\ntwo\n"})
	path := filepath.Join(b.opts.Root.Dir(), "a.txt")
	inspect := func() results.Descriptor {
		t.Helper()
		e := b.inspectPaths([]string{"a.txt"})[0]
		require.Nil(t, e.Err)
		return *e.Descriptor
	}
	first := inspect()
	again := inspect()
	assert.Equal(t, "r1", *again.ID)
	assert.True(t, *again.Reused)
	first.Reused = again.Reused
	assert.Equal(t, first, again, "the same descriptor, reused")

	require.NoError(t, os.WriteFile(path, []byte("one\nTWO\n"), 0o644)) // same size
	changed := inspect()
	assert.Equal(t, "r2", *changed.ID)
	assert.False(t, *changed.Reused)
	assert.Equal(t, "one\nTWO\n", *changed.Preview)

	require.NoError(t, os.WriteFile(path, []byte("one\n"), 0o644))
	shorter := inspect()
	assert.Equal(t, "r3", *shorter.ID)

	require.NoError(t, os.WriteFile(path, []byte("one\nTWO\n"), 0o644)) // r2's bytes again
	back := inspect()
	assert.Equal(t, "r2", *back.ID, "the newest result of that path and size is r2")
	assert.True(t, *back.Reused)
}

// TestInspectAgainReadsThroughAWindow: inspecting an unchanged file again
// does not hold it whole (it ran alone: it reads the process's
// allocation count).
func TestInspectAgainReadsThroughAWindow(t *testing.T) {
	b := fixture(t, limits.Defaults(), Legacy, map[string]string{"big.txt": strings.Repeat("0123456789abcde\n", 4<<20/16)})
	require.Nil(t, b.inspectPaths([]string{"big.txt"})[0].Err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e := b.inspectPaths([]string{"big.txt"})[0]
	runtime.ReadMemStats(&after)
	require.Nil(t, e.Err)
	require.True(t, *e.Descriptor.Reused)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(2<<20), "bytes allocated to inspect a 4 MiB file again")
}
