//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/loom-results/loom-results/errcode"
)

// TestWriteLockAcrossProcesses: a write takes the directory's flock, which
// another process of the server holds while it writes there; a write that
// cannot get it within its wait is unwritable, and one that can goes on
// (SPEC 9: writes to one file do not interleave; across processes of this
// server too).
func TestWriteLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644))
	r, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })

	// Another process's lock: flock belongs to an open file description, so
	// a second open of the directory stands for another process.
	other, err := os.Open(dir)
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, unix.Flock(int(other.Fd()), unix.LOCK_EX))

	d, werr := r.dest("a.txt", false)
	require.Nil(t, werr)
	_, lerr := d.dir.lockAcrossProcesses(30 * time.Millisecond)
	require.Error(t, lerr)
	assert.Contains(t, lerr.Error(), "another process has held its directory's write lock for 30ms")
	d.close()

	done := make(chan *errcode.Error, 1)
	go func() {
		dest, err := r.Lock("a.txt", false)
		if err == nil {
			dest.Unlock()
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Lock returned while another process held the directory: %v", err)
	default:
	}
	require.NoError(t, unix.Flock(int(other.Fd()), unix.LOCK_UN))
	assert.Nil(t, <-done)

	// Released, the next process takes it at once.
	require.NoError(t, unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB))
}
