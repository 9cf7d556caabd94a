package workspace

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunEndsDescendantsByScan: where the kernel lists no task's children,
// a run finds its processes by reading every process's stat, and ends the
// same ones. Not parallel: it sets scanProcs while no other test runs.
func TestRunEndsDescendantsByScan(t *testing.T) {
	scanProcs = true
	defer func() { scanProcs = false }()
	r, _ := openRoot(t)
	out := newOutput("")
	script := `setsid sleep 300 & echo $!; sleep 300 & echo $!; setsid sh -c 'sleep 300 & echo $!' & wait`
	exit, err := r.Run(context.Background(), command("sh", "-c", script), RunOptions{Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond}, out.write)
	require.Nil(t, err)
	assert.True(t, exit.TimedOut)
	pids := strings.Fields(out.String())
	require.Len(t, pids, 3, out.String())
	for _, s := range pids {
		pid, err := strconv.Atoi(s)
		require.NoError(t, err)
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d outlived the call", pid)
	}
}
