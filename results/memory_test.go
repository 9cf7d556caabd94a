package results

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	tests := []struct{ used, slack, want int64 }{
		{0, 24 << 20, 24 << 20},
		{16 << 20, 24 << 20, 24<<20 + 17<<20},
		{1 << 30, 24 << 20, 24<<20 + 17<<26},
		{math.MaxInt64 - 10, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, memoryLimit(tt.used, tt.slack), "used %d slack %d", tt.used, tt.slack)
	}
}

// TestFollowMemory: the runtime's memory limit follows the bytes the
// quota holds, as they are reserved and given back. It changes the
// process's limit, so it runs alone and puts the limit back.
func TestFollowMemory(t *testing.T) {
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Skipf("the process has a memory limit of its own (%d)", limit)
	}
	gcPercent := debug.SetGCPercent(100)
	t.Cleanup(func() {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(gcPercent)
	})
	q := NewQuota(1 << 30)
	FollowMemory(q, 24<<20)
	assert.Equal(t, int64(24<<20), debug.SetMemoryLimit(-1))
	if os.Getenv("GOGC") == "" {
		assert.Equal(t, -1, debug.SetGCPercent(-1), "GOGC is off: the limit alone paces the collector")
	}
	require.True(t, q.reserve(16<<20))
	assert.Equal(t, int64(24<<20+17<<20), debug.SetMemoryLimit(-1))
	q.release(16 << 20)
	assert.Equal(t, int64(24<<20), debug.SetMemoryLimit(-1))

	// Bytes held while a file is read count in the limit, not in the cap.
	release := q.Hold(16 << 20)
	assert.Equal(t, int64(24<<20+17<<20), debug.SetMemoryLimit(-1))
	assert.Equal(t, int64(0), q.Used())
	require.True(t, q.reserve(16<<20), "held bytes do not count against the cap")
	assert.Equal(t, int64(24<<20+34<<20), debug.SetMemoryLimit(-1))
	release()
	q.release(16 << 20)
	assert.Equal(t, int64(24<<20), debug.SetMemoryLimit(-1))

	// Off: the limit and GOGC are left as they are.
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(100)
	FollowMemory(NewQuota(1<<30), 0)
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	assert.Equal(t, 100, debug.SetGCPercent(100))
}
