package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
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

func TestWrite(t *testing.T) {
	t.Parallel()
	r, dir := writeRoot(t)
	// An existing file: replaced, its mode kept.
	tgt, err := r.Target("a.txt")
	require.Nil(t, err)
	require.Nil(t, r.Write(tgt, []byte("new\n")))
	assertFile(t, filepath.Join(dir, "a.txt"), "new\n", 0o640)

	// A new file in new directories: 0644 less the umask.
	tgt, err = r.Target("n/m/b.txt")
	require.Nil(t, err)
	require.Nil(t, r.Write(tgt, []byte("b")))
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	assertFile(t, filepath.Join(dir, "n/m/b.txt"), "b", fs.FileMode(0o644&^umask))

	// A hard link to the old file keeps the old bytes: the rename replaces
	// the directory entry, not the file.
	require.NoError(t, os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "hard")))
	tgt, err = r.Target("a.txt")
	require.Nil(t, err)
	require.Nil(t, r.Write(tgt, []byte("newer\n")))
	assertFile(t, filepath.Join(dir, "a.txt"), "newer\n", 0o640)
	assertFile(t, filepath.Join(dir, "hard"), "new\n", 0o640)
	assertNoTemp(t, dir)
}

// TestWriteFailures: a failure at any stage leaves the target as it was
// and no temporary file behind, and is unwritable with the reason.
func TestWriteFailures(t *testing.T) {
	// Not parallel: failWrite is the package's.
	for _, stage := range []string{"write", "sync", "rename"} {
		t.Run(stage, func(t *testing.T) {
			r, dir := writeRoot(t)
			failWrite = func(s string) error {
				if s == stage {
					return &fs.PathError{Op: s, Path: "x", Err: syscall.ENOSPC}
				}
				return nil
			}
			t.Cleanup(func() { failWrite = nil })
			for _, name := range []string{"a.txt", "brand-new.txt"} {
				tgt, err := r.Target(name)
				require.Nil(t, err)
				err = r.Write(tgt, []byte("never\n"))
				require.NotNil(t, err)
				assert.Equal(t, errcode.Unwritable, err.Code)
				assert.Equal(t, `cannot write "`+name+`": no space left on device`, err.Msg)
			}
			assertFile(t, filepath.Join(dir, "a.txt"), "old\n", 0o640)
			_, serr := os.Stat(filepath.Join(dir, "brand-new.txt"))
			assert.True(t, errors.Is(serr, fs.ErrNotExist))
			assertNoTemp(t, dir)
		})
	}
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
