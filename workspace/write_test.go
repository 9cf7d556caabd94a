//go:build unix

// The write tests use what only Unix systems have: FIFOs, the umask, hard
// links, anonymous files and the lock keyed by device and inode.

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/writehook"
)

// writeRoot is a root holding a.txt (0640), ro.txt (0444), dir/, a FIFO,
// a link to a.txt, a link out of the root, and a file standing where a
// directory is wanted (file/x).
func writeRoot(t *testing.T) (*Root, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o640))
	require.NoError(t, os.Chmod(filepath.Join(dir, "a.txt"), 0o640))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ro.txt"), []byte("ro\n"), 0o444))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink("../a.txt", filepath.Join(dir, "dir", "up")))
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(dir, "abs")))
	require.NoError(t, os.Symlink("..", filepath.Join(dir, "out")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644))
	r, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r, dir
}

func TestTarget(t *testing.T) {
	t.Parallel()
	r, _ := writeRoot(t)
	tests := []struct {
		path string
		want Target
		code errcode.Code
		msg  string
	}{
		{path: "a.txt", want: Target{Rel: "a.txt", Exists: true, Mode: 0o640, Size: 4}},
		{path: "./dir/../a.txt", want: Target{Rel: "a.txt", Exists: true, Mode: 0o640, Size: 4}},
		{path: "new.txt", want: Target{Rel: "new.txt"}},
		{path: "new/deep/b.txt", want: Target{Rel: "new/deep/b.txt"}},
		{path: "ro.txt", code: errcode.Unwritable, msg: `file "ro.txt" is read-only (mode 0444): no one may write it, so write_file does not`},
		{path: "dir", code: errcode.NotRegularFile, msg: `"dir" is a directory, not a regular file`},
		{path: ".", code: errcode.NotRegularFile},
		{path: "fifo", code: errcode.NotRegularFile, msg: `"fifo" is a named pipe, not a regular file`},
		{path: "link", code: errcode.NotRegularFile,
			msg: `"link" is a symbolic link to "a.txt"; write_file does not write through links: write "a.txt" itself, with its result as base`},
		{path: "dir/up", code: errcode.NotRegularFile, msg: `write "a.txt" itself`},
		{path: "abs", code: errcode.NotRegularFile, msg: `"abs" is a symbolic link; write_file does not write through links`},
		{path: "out/x.txt", code: errcode.PathOutsideRoot},
		{path: "../x.txt", code: errcode.PathOutsideRoot},
		{path: "/etc/passwd", code: errcode.PathOutsideRoot},
		{path: "file/x", code: errcode.Unwritable, msg: `cannot write "file/x": a parent is not a directory`},
		{path: "", code: errcode.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, err := r.Target(tt.path)
			if tt.code == "" {
				require.Nil(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code, err.Error())
			assert.Contains(t, err.Msg, tt.msg)
		})
	}
}

// writeNow writes data to path as a write_file without a conflict check
// would: Lock (creating parents), Write, Unlock.
func writeNow(r *Root, path string, data []byte) *errcode.Error {
	d, err := r.Lock(path, true)
	if err != nil {
		return err
	}
	defer d.Unlock()
	return d.Write(data, func() *errcode.Error { return nil })
}

// tempModes are the two kinds of temporary file a write may use: the
// anonymous one where the file system has O_TMPFILE, and the named
// fallback, forced by writehook.
var tempModes = []struct {
	name  string
	named bool
}{{"anonymous", false}, {"named", true}}

// withHooks installs h for the test (which must not be parallel: the
// hooks are the process's).
func withHooks(t *testing.T, h *writehook.Hooks) {
	t.Helper()
	old := writehook.Set(h)
	t.Cleanup(func() { writehook.Set(old) })
}

// anonSupported reports whether writes in dir get an anonymous temporary
// file (Linux O_TMPFILE on the file system of dir).
func anonSupported(t *testing.T, r *Root, dir string) bool {
	t.Helper()
	h, err := openDir(r, dir)
	require.NoError(t, err)
	defer h.close()
	tmp, err := h.createTemp(true)
	require.NoError(t, err)
	defer tmp.discard()
	return tmp.anon()
}

func TestWrite(t *testing.T) {
	for _, mode := range tempModes {
		t.Run(mode.name, func(t *testing.T) {
			r, dir := writeRoot(t)
			// What is in the directory while the new bytes are synced and
			// checked: the named temporary file, or, anonymous, nothing.
			var seen [][]string
			withHooks(t, &writehook.Hooks{Named: mode.named, At: func(stage string) error {
				if stage == writehook.Check {
					seen = append(seen, tempNames(t, dir))
				}
				return nil
			}})
			anon := !mode.named && anonSupported(t, r, ".")

			// An existing file: replaced, its mode kept.
			require.Nil(t, writeNow(r, "a.txt", []byte("new\n")))
			assertFile(t, filepath.Join(dir, "a.txt"), "new\n", 0o640)

			// A new file in new directories: 0644 less the umask.
			require.Nil(t, writeNow(r, "n/m/b.txt", []byte("b")))
			umask := syscall.Umask(0)
			syscall.Umask(umask)
			assertFile(t, filepath.Join(dir, "n/m/b.txt"), "b", fs.FileMode(0o644&^umask))

			// A hard link to the old file keeps the old bytes: the rename
			// replaces the directory entry, not the file.
			require.NoError(t, os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "hard")))
			require.Nil(t, writeNow(r, "a.txt", []byte("newer\n")))
			assertFile(t, filepath.Join(dir, "a.txt"), "newer\n", 0o640)
			assertFile(t, filepath.Join(dir, "hard"), "new\n", 0o640)
			assertNoTemp(t, dir)

			require.Len(t, seen, 3)
			for _, names := range seen {
				if anon {
					assert.Empty(t, names, "an anonymous temporary file has no name until the rename")
				} else {
					assert.Len(t, names, 1, "one named temporary file")
				}
			}
		})
	}
}

// tempNames lists the temporary files of writes under dir.
func tempNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if m, _ := filepath.Match(".loom-*.tmp", d.Name()); m {
			names = append(names, p)
		}
		return nil
	}))
	return names
}

// TestWriteFailures: a failure at any stage leaves the target as it was
// and no temporary file behind, and is unwritable with the reason; with
// either kind of temporary file, for an existing file and a new one.
func TestWriteFailures(t *testing.T) {
	stages := []string{writehook.Write, writehook.Sync, writehook.Check, writehook.Link, writehook.Rename}
	for _, mode := range tempModes {
		for _, stage := range stages {
			t.Run(mode.name+"/"+stage, func(t *testing.T) {
				r, dir := writeRoot(t)
				reached := map[string]bool{}
				withHooks(t, &writehook.Hooks{Named: mode.named, At: func(s string) error {
					reached[s] = true
					if s == stage {
						return &fs.PathError{Op: s, Path: "x", Err: syscall.ENOSPC}
					}
					return nil
				}})
				failed := false
				for _, name := range []string{"a.txt", "brand-new.txt"} {
					clear(reached)
					err := writeNow(r, name, []byte("never\n"))
					if !reached[stage] {
						// Only an anonymous file is linked, and an
						// anonymous new file is linked in place, not
						// renamed.
						require.Nil(t, err)
						continue
					}
					failed = true
					require.NotNil(t, err)
					assert.Equal(t, errcode.Unwritable, err.Code)
					assert.Equal(t, `cannot write "`+name+`": no space left on device`, err.Msg)
				}
				if failed {
					assertFile(t, filepath.Join(dir, "a.txt"), "old\n", 0o640)
				}
				if reached[stage] {
					_, serr := os.Stat(filepath.Join(dir, "brand-new.txt"))
					assert.True(t, errors.Is(serr, fs.ErrNotExist))
				}
				assertNoTemp(t, dir)
			})
		}
	}
}

// TestWriteCheck: the check runs once the new bytes are synced, right
// before the rename; its error is the write's, and nothing is written.
func TestWriteCheck(t *testing.T) {
	for _, mode := range tempModes {
		t.Run(mode.name, func(t *testing.T) {
			r, dir := writeRoot(t)
			var order []string
			withHooks(t, &writehook.Hooks{Named: mode.named, At: func(s string) error {
				order = append(order, s)
				return nil
			}})
			d, err := r.Lock("a.txt", false)
			require.Nil(t, err)
			defer d.Unlock()
			conflict := errcode.New(errcode.Conflict, "changed")
			err = d.Write([]byte("never\n"), func() *errcode.Error {
				order = append(order, "checked")
				return conflict
			})
			assert.Same(t, conflict, err)
			assert.Equal(t, []string{writehook.Write, writehook.Sync, writehook.Check, "checked"}, order)
			assertFile(t, filepath.Join(dir, "a.txt"), "old\n", 0o640)
			assertNoTemp(t, dir)
		})
	}
}

// TestWriteNewFileAppears: a file created by another program after the
// check of a new file's write, before its anonymous temporary file is
// linked in place, is not replaced: the link fails, the check runs again
// and its conflict is the answer.
func TestWriteNewFileAppears(t *testing.T) {
	r, dir := writeRoot(t)
	if !anonSupported(t, r, ".") {
		t.Skip("the file system of the test's temporary directory has no O_TMPFILE")
	}
	checks := 0
	withHooks(t, &writehook.Hooks{At: func(s string) error {
		if s == writehook.Link && checks == 1 {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "late.txt"), []byte("theirs\n"), 0o644))
		}
		return nil
	}})
	d, err := r.Lock("late.txt", true)
	require.Nil(t, err)
	defer d.Unlock()
	err = d.Write([]byte("mine\n"), func() *errcode.Error {
		checks++
		if _, serr := os.Stat(filepath.Join(dir, "late.txt")); serr == nil {
			return errcode.New(errcode.Conflict, "late.txt exists")
		}
		return nil
	})
	require.NotNil(t, err)
	assert.Equal(t, errcode.Conflict, err.Code)
	assert.Equal(t, 2, checks)
	assertFile(t, filepath.Join(dir, "late.txt"), "theirs\n", 0o644)
	assertNoTemp(t, dir)
}

// TestLockIdentity: the lock of a file is known by the file's identity,
// whatever path names it: through a symbolic link to its directory, or
// with "./" and "x/.." in it. Another file's is another lock.
func TestLockIdentity(t *testing.T) {
	t.Parallel()
	r, dir := writeRoot(t)
	require.NoError(t, os.Symlink("dir", filepath.Join(dir, "alias")))
	key := func(p string) fileKey {
		d, err := r.dest(p, false)
		require.Nil(t, err)
		defer d.close()
		return d.dir.key(d.name)
	}
	k := key("dir/f.txt")
	assert.Equal(t, k, key("alias/f.txt"))
	assert.Equal(t, k, key("./dir/x/../f.txt"))
	assert.NotEqual(t, k, key("dir/g.txt"))
	assert.NotEqual(t, k, key("f.txt"))
}

// TestLockFile: a file's lock is held by one write at a time, and its
// entry goes once no write holds or waits for it.
func TestLockFile(t *testing.T) {
	t.Parallel()
	k := fileKey{name: "TestLockFile"}
	unlock := lockFile(k)
	got := make(chan func())
	go func() { got <- lockFile(k) }()
	// The second lockFile waits: its entry counts it before it blocks.
	require.Eventually(t, func() bool {
		fileLocks.Lock()
		defer fileLocks.Unlock()
		return fileLocks.m[k] != nil && fileLocks.m[k].refs == 2
	}, 10*time.Second, time.Millisecond)
	select {
	case <-got:
		t.Fatal("a second write took the lock while the first held it")
	default:
	}
	unlock()
	(<-got)()
	fileLocks.Lock()
	defer fileLocks.Unlock()
	assert.NotContains(t, fileLocks.m, k)
}

// TestWriteLongPaths: a path the system refuses as too long is unwritable,
// not unreadable (SPEC section 9), whether the whole path is over
// PATH_MAX or one name is over the file system's limit.
func TestWriteLongPaths(t *testing.T) {
	t.Parallel()
	r, dir := writeRoot(t)
	long := strings.Repeat("d/", maxPath/2) + "x.txt"
	name := strings.Repeat("n", 300) + ".txt"
	tests := []struct {
		path string
		msg  string
	}{
		{long, "cannot write " + quoteName(long) + ": file name too long (the system takes paths of at most 4095 bytes)"},
		{name, `cannot write "` + name + `": file name too long`},
		{"dir/" + name, `cannot write "dir/` + name + `": file name too long`},
		{name + "/x.txt", `cannot write "` + name + `/x.txt": file name too long`},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(len(tt.path)), func(t *testing.T) {
			_, err := r.Target(tt.path)
			require.NotNil(t, err)
			assert.Equal(t, errcode.Unwritable, err.Code, err.Msg)
			assert.Equal(t, tt.msg, err.Msg)
			werr := writeNow(r, tt.path, []byte("x"))
			require.NotNil(t, werr)
			assert.Equal(t, errcode.Unwritable, werr.Code, werr.Msg)
		})
	}
	// Reading such a path stays unreadable.
	_, _, err := r.Read(long, 10)
	require.NotNil(t, err)
	assert.Equal(t, errcode.Unreadable, err.Code)
	assertNoTemp(t, dir)
}

func assertFile(t *testing.T, path, want string, mode fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), path)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, mode, fi.Mode().Perm(), path)
}

// assertNoTemp checks that no temporary file of Write is left under dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if m, _ := filepath.Match(".loom-*.tmp", d.Name()); m {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}
