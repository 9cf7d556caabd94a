//go:build unix

package briefing

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// runFixture is a briefing whose run serves the given --run values.
func runFixture(t *testing.T, cfg limits.Config, policy Policy, values ...string) (*Briefing, string) {
	t.Helper()
	root, dir := testroot.Open(t, nil, workspace.Open)
	var cs []workspace.Command
	for _, v := range values {
		c, err := workspace.ParseCommand(v)
		require.NoError(t, err)
		cs = append(cs, c)
	}
	b := New(Options{Limits: cfg, Policy: policy, Root: root, Run: RunConfig{Commands: cs}})
	t.Cleanup(b.Close)
	return b, dir
}

// TestRunFlood: a command that prints far more than --max-result-bytes
// leaves its last bytes, counts the rest as dropped, and is incomplete.
// (The server's peak memory under a 1 GiB flood is measured by loom-perf's
// run rows, not here.)
func TestRunFlood(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResultBytes = 1 << 20
	b, _ := runFixture(t, cfg, Legacy, "flood=sh -c 'yes 0123456789abcdef | head -c 50000000'")
	ran, err := runCommand(b, "flood", nil)
	require.Nil(t, err)
	d := ran.Descriptor
	assert.Equal(t, int64(1<<20), d.Bytes)
	assert.False(t, d.Complete)
	assert.Equal(t, int64(50000000-1<<20), d.Source.DroppedBytes)
	require.NotNil(t, d.Source.ExitCode)
	assert.Equal(t, int64(0), **d.Source.ExitCode)
	r, gerr := b.store.Get(*d.ID)
	require.Nil(t, gerr)
	// 50,000,000 bytes are 2,941,176 lines of 17 bytes and "01234567".
	assert.Equal(t, "0123456789abcdef\n01234567", string(r.Text.Data[len(r.Text.Data)-25:]))
}

// TestRunStoreFullBounded: in bounded context a full store fails the call
// after the command ran; the tail shows in the answer's text whatever the
// view, the compact descriptor having no preview.
func TestRunStoreFullBounded(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxStoreBytes = 8
	b, dir := runFixture(t, cfg, Bounded, "small=echo hi", "big=sh -c 'echo hello world; touch ran'")
	ran, err := runCommand(b, "small", nil)
	require.Nil(t, err)
	assert.Nil(t, ran.Descriptor.Preview)
	assert.Equal(t, "hi\n", ran.Tail)
	assert.True(t, ran.TailComplete)

	_, err = runCommand(b, "big", nil)
	require.NotNil(t, err)
	assert.Equal(t, errcode.StoreFull, err.Code)
	_, serr := os.Stat(filepath.Join(dir, "ran"))
	assert.NoError(t, serr, "the command ran")
}
