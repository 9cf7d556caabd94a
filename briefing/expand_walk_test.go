package briefing

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
)

// TestExpandWalkAllocations: walking the arguments allocates no pointer
// per value. Each value's "at" used to be a string of its own, so the
// work grew with the values times their depth: 10,000 values 100 levels
// deep made 20,000 strings of about 200 bytes.
func TestExpandWalkAllocations(t *testing.T) {
	b := New(Options{Limits: limits.Defaults(), Policy: Legacy})
	t.Cleanup(b.Close)
	args := jsonSub([]byte(`{"x":` + strings.Repeat(`[`, 100) + strings.Repeat(`0,`, 9_999) + `0` + strings.Repeat(`]`, 100) + `}`))
	var failed bool
	allocs := testing.AllocsPerRun(5, func() {
		b.Do(func() {
			if _, err := expandEdit(b, args); err != nil {
				failed = true
			}
		})
	})
	require.False(t, failed)
	assert.Less(t, allocs, 200.0, "allocations per expand_edit of 10,000 values 100 deep")
}

// TestExpandNoNodeNoCopy: arguments without a node are given back as they
// came, not copied (it runs alone: it reads the process's allocations).
func TestExpandNoNodeNoCopy(t *testing.T) {
	b := New(Options{Limits: limits.Defaults(), Policy: Legacy})
	t.Cleanup(b.Close)
	args := []byte(`{"path":"a.go","content":"` + strings.Repeat("x", 4<<20) + `"}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got []byte
	b.Do(func() {
		x, err := expandEdit(b, jsonSub(args))
		require.Nil(t, err)
		got = x.Arguments
	})
	runtime.ReadMemStats(&after)
	assert.Equal(t, string(args), string(got))
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated to expand 4 MiB of arguments without a node")
}
