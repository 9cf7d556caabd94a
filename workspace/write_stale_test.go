//go:build unix

package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/writehook"
)

func TestParseTempName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		pid   int
		start uint64
		ok    bool
	}{
		{".loom-4242-123456-0a1b2c3d.tmp", 4242, 123456, true},
		{".loom-1-0-ffffffff.tmp", 1, 0, true},
		{".loom-4242-18446744073709551615-00000000.tmp", 4242, 18446744073709551615, true},
		{".loom-0123456789abcdef.tmp", 0, 0, false},                   // v4's name says no maker
		{".loom-4242-123456-0a1b2c3.tmp", 0, 0, false},                // 7 hex digits
		{".loom-4242-123456-0a1b2c3g.tmp", 0, 0, false},               // not hex
		{".loom-04242-123456-0a1b2c3d.tmp", 0, 0, false},              // a leading zero
		{".loom-4242-0123456-0a1b2c3d.tmp", 0, 0, false},              // a leading zero
		{".loom-0-123456-0a1b2c3d.tmp", 0, 0, false},                  // PID 0
		{".loom--1-123456-0a1b2c3d.tmp", 0, 0, false},                 // a sign
		{".loom-4242-123456-0a1b2c3d.tmpx", 0, 0, false},              // suffix
		{"loom-4242-123456-0a1b2c3d.tmp", 0, 0, false},                // prefix
		{".loom-4242-123456-0a1b2c3d-1.tmp", 0, 0, false},             // 4 parts
		{".loom-4242-18446744073709551616-00000000.tmp", 0, 0, false}, // start overflows
		{"a.txt", 0, 0, false},
	}
	for _, tt := range tests {
		pid, start, ok := parseTempName(tt.name)
		assert.Equal(t, tt.ok, ok, tt.name)
		assert.Equal(t, tt.pid, pid, tt.name)
		assert.Equal(t, tt.start, start, tt.name)
	}
}

// TestTempName: a temporary file's name says this process's PID and
// start, and parses back to them.
func TestTempName(t *testing.T) {
	t.Parallel()
	start := processStart(os.Getpid())
	require.NotZero(t, start)
	name := tempName()
	assert.Regexp(t, regexp.MustCompile(`^\.loom-`+strconv.Itoa(os.Getpid())+`-`+strconv.FormatUint(start, 10)+`-[0-9a-f]{8}\.tmp$`), name)
	pid, got, ok := parseTempName(name)
	require.True(t, ok)
	assert.Equal(t, os.Getpid(), pid)
	assert.Equal(t, start, got)
	assert.True(t, makerAlive(pid, got))
	assert.False(t, makerAlive(pid, got+1), "the same PID with another start is another process")
	assert.True(t, makerAlive(pid, 0), "a maker that could not read its start keeps its file while its PID lives")
}

// deadProcess is the PID and start of a process that has ended (and been
// reaped).
func deadProcess(t *testing.T) (int, uint64) {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	start := processStart(pid)
	require.NoError(t, cmd.Wait())
	return pid, start
}

// TestCleanStale: before the first write into a directory in the
// process's life, the temporary files there whose maker is gone are
// removed, and only those: not a live process's (this one's, a child's),
// not one whose name says no maker, not another file; a second write
// there does not look again. Both kinds of temporary file. Not parallel:
// hooks.
func TestCleanStale(t *testing.T) {
	child := exec.Command("sleep", "60")
	require.NoError(t, child.Start())
	defer func() { child.Process.Kill(); child.Wait() }()
	childStart := processStart(child.Process.Pid)
	require.NotZero(t, childStart)
	deadPID, deadStart := deadProcess(t)
	self, selfStart := os.Getpid(), processStart(os.Getpid())
	name := func(pid int, start uint64, tag string) string {
		return ".loom-" + strconv.Itoa(pid) + "-" + strconv.FormatUint(start, 10) + "-" + tag + ".tmp"
	}
	stale := []string{
		name(deadPID, deadStart, "0000000a"),              // its maker ended
		name(child.Process.Pid, childStart+1, "0000000b"), // the PID is another process now
		name(self, selfStart+1, "0000000c"),               // this PID, an earlier process
	}
	kept := []string{
		name(self, selfStart, "0000000d"),               // this process's
		name(child.Process.Pid, childStart, "0000000e"), // a live child's
		".loom-0123456789abcdef.tmp",                    // no maker in the name
		".loom-x.tmp",
		"a.txt",
	}
	// One root for both kinds, with a directory each: a directory made
	// after another was removed may get its inode number, and so be taken
	// for one this process has cleaned.
	r, root := openRoot(t)
	for _, m := range tempModes {
		t.Run(m.name, func(t *testing.T) {
			withHooks(t, &writehook.Hooks{Named: m.named})
			dir := filepath.Join(root, m.name)
			require.NoError(t, os.Mkdir(dir, 0o755))
			sub := filepath.Join(dir, "d")
			require.NoError(t, os.Mkdir(sub, 0o755))
			for _, n := range append(append([]string{}, stale...), kept...) {
				require.NoError(t, os.WriteFile(filepath.Join(sub, n), []byte("x"), 0o644))
			}
			require.Nil(t, writeNow(r, m.name+"/d/b.txt", []byte("new\n")))
			want := append(append([]string{}, kept...), "b.txt")
			sort.Strings(want)
			assert.Equal(t, want, dirNames(t, sub))
			// Not again in this process's life: a stale file that appears
			// later stays until the next process.
			later := name(deadPID, deadStart, "0000000f")
			require.NoError(t, os.WriteFile(filepath.Join(sub, later), []byte("x"), 0o644))
			require.Nil(t, writeNow(r, m.name+"/d/c.txt", []byte("new\n")))
			assert.FileExists(t, filepath.Join(sub, later))
			// Another directory is cleaned at its own first write.
			require.NoError(t, os.WriteFile(filepath.Join(dir, later), []byte("x"), 0o644))
			require.Nil(t, writeNow(r, m.name+"/e.txt", []byte("new\n")))
			assert.NoFileExists(t, filepath.Join(dir, later))
		})
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
