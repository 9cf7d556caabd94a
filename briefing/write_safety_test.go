//go:build linux

package briefing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/internal/writehook"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// appendLine inspects path and writes it back with line appended, its
// inspected result as base; it returns the write's error (a conflict when
// the file changed between the two).
func appendLine(t *testing.T, b *Briefing, path, line string) *errcode.Error {
	t.Helper()
	e := b.inspectPaths([]string{path})
	require.Nil(t, e[0].Err)
	id := *e[0].Descriptor.ID
	b.beginStep()
	_, err := writeFile(b, WriteFileRequest{Path: &path, Base: &id,
		Compose: rawOf[[]PartForm](fmt.Sprintf(`[{"result":%q},%q]`, id, line))})
	return err
}

// TestWriteFileConcurrentAppends: briefings of one process (HTTP sessions)
// appending to one file at once, each from a freshly inspected base, never
// both succeed on the same base: every write answered as written is in
// the file at the end, and the others answered conflict (SPEC section 9).
func TestWriteFileConcurrentAppends(t *testing.T) {
	t.Parallel()
	root, dir := testroot.Open(t, map[string]string{"log.txt": ""}, workspace.Open)
	const writers, each = 3, 30
	var wg sync.WaitGroup
	written := make([][]string, writers)
	var conflicts atomic.Int64
	for w := range writers {
		b := New(Options{Limits: limits.Defaults(), Policy: Legacy, Root: root})
		t.Cleanup(b.Close)
		wg.Go(func() {
			for i := 0; i < each; {
				line := fmt.Sprintf("w%d-%d\n", w, i)
				switch err := appendLine(t, b, "log.txt", line); {
				case err == nil:
					written[w] = append(written[w], line)
					i++
				case err.Code == errcode.Conflict:
					conflicts.Add(1)
				default:
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(filepath.Join(dir, "log.txt"))
	require.NoError(t, err)
	lost := 0
	for _, lines := range written {
		for _, line := range lines {
			if !strings.Contains(string(data), line) {
				lost++
			}
		}
	}
	assert.Zero(t, lost, "writes answered as written but missing from the file (%d conflicts)", conflicts.Load())
	assert.Equal(t, writers*each, strings.Count(string(data), "\n"))
	assertNoTempFiles(t, dir)
}

// TestWriteFileParentSwap: while writes run, another program keeps
// swapping their parent directory with a symbolic link to a directory
// outside the root (renameat2 RENAME_EXCHANGE, so the name is always one
// or the other). Each write either lands in the directory it started in
// or fails; none writes outside the root, and none leaves a temporary
// file behind, inside or outside (SPEC section 9).
func TestWriteFileParentSwap(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	root, dir := testroot.Open(t, map[string]string{"d/keep.txt": "keep\n"}, workspace.Open)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "swap")))
	b := New(Options{Limits: limits.Defaults(), Policy: Legacy, Root: root})
	t.Cleanup(b.Close)

	stop := make(chan struct{})
	var swaps atomic.Int64
	var swapper sync.WaitGroup
	swapper.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, filepath.Join(dir, "swap"), unix.RENAME_EXCHANGE)
			if err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps.Add(1)
		}
	})
	// Until 50 writes have succeeded: those are the ones that had a
	// temporary file while the swaps went on.
	const wantOK, maxWrites = 50, 20000
	var ok []string
	codes := map[errcode.Code]int{}
	for i := 0; len(ok) < wantOK && i < maxWrites; i++ {
		p := fmt.Sprintf("d/x%05d.txt", i)
		if _, err := writeFile(b, WriteFileRequest{Path: &p, Text: new(fmt.Sprintf("text %d\n", i))}); err != nil {
			codes[err.Code]++
			if err.Code == errcode.Unwritable {
				t.Log(err.Msg)
			}
			continue
		}
		ok = append(ok, p)
	}
	close(stop)
	swapper.Wait()
	t.Logf("%d swaps; %d written, failures by code %v", swaps.Load(), len(ok), codes)
	for code := range codes {
		assert.Contains(t, []errcode.Code{errcode.PathOutsideRoot, errcode.Unwritable, errcode.NotRegularFile}, code)
	}

	// Put the directory back under its name if it ends swapped.
	if fi, err := os.Lstat(filepath.Join(dir, "d")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		require.NoError(t, unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, filepath.Join(dir, "swap"), unix.RENAME_EXCHANGE))
	}
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing is written outside the root")
	assertNoTempFiles(t, dir)
	tree := readTree(t, dir)
	for _, p := range ok {
		var n int
		_, err := fmt.Sscanf(p, "d/x%05d.txt", &n)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("text %d\n", n), tree[p], "an answered write is in the directory it started in")
	}
}

// TestWriteFileConflictAfterSync: another program's write that lands
// while the new text is written and synced is found by the second
// conflict check, right before the rename: the answer is the same
// conflict as the first check's, and the other program's text stays.
func TestWriteFileConflictAfterSync(t *testing.T) {
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named=%v", named), func(t *testing.T) {
			b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
			theirs := "one\ntwo\nTHREE\n"
			old := writehook.Set(&writehook.Hooks{Named: named, At: func(stage string) error {
				if stage == writehook.Check {
					require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(theirs), 0o644))
				}
				return nil
			}})
			t.Cleanup(func() { writehook.Set(old) })
			w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[1,1],"text":"ONE\n"}]}`)})
			assert.Nil(t, w)
			require.NotNil(t, err)
			assert.Equal(t, errcode.Conflict, err.Code)
			// The second check's conflict carries the current text too.
			assert.Equal(t, &errcode.File{Path: "a.txt", SHA256: new(hexSum256(theirs)), Current: new("r3"),
				Diff: new("@@ -2,2 +2,2 @@\n two\n-three\n+THREE\n")}, err.Details.File)
			assert.Equal(t, `file "a.txt" changed since r1 was read (14 -> 14 bytes, sha256=`+hexSum256("one\ntwo\nthree\n")[:12]+
				` -> `+hexSum256(theirs)[:12]+`); its current text is r3: make the edit on r3`, err.Msg)
			got, rerr := os.ReadFile(filepath.Join(dir, "a.txt"))
			require.NoError(t, rerr)
			assert.Equal(t, theirs, string(got))
			assertNoTempFiles(t, dir)
		})
	}
}
