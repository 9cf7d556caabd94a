//go:build unix

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// TestWalkTypes: every way lists the regular files and the links (none
// followed: not the links to directories, nor the one to a FIFO), and
// leaves out the FIFO and the socket, with the regular files' sizes.
func TestWalkTypes(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	want := []ListEntry{
		{"a.go", false, 10}, {"abs_devnull", true, -1}, {"abs_in", true, -1}, {"abs_out", true, -1},
		{"chain", true, -1}, {"dangling", true, -1}, {"empty", false, 0}, {"escape", true, -1},
		{"escape_deep", true, -1}, {"link_in", true, -1}, {"link_to_dir", true, -1}, {"link_to_fifo", true, -1},
		{"linkdir", true, -1}, {"loop_a", true, -1}, {"loop_b", true, -1}, {"one.txt", false, 1},
		{"self", true, -1}, {"sub/b.txt", false, 4}, {"sub/deep/c.txt", false, 4}, {"sub/link_up", true, -1},
		{"ten.txt", false, 10}, {"weird name ü.txt", false, 8},
	}
	for _, way := range walkWays {
		t.Run(way.name, func(t *testing.T) {
			r := openWay(t, tr.dir, way.open)
			l, err := r.Walk(".", MaxListing, true)
			require.Nil(t, err)
			assert.Equal(t, want, l.Entries)

			l, err = r.Walk("linkdir", MaxListing, false) // named: followed as os.Root follows it
			require.Nil(t, err)
			assert.Equal(t, []ListEntry{{"linkdir/b.txt", false, -1}, {"linkdir/deep/c.txt", false, -1}, {"linkdir/link_up", true, -1}}, l.Entries)

			for path, want := range map[string]string{
				"sub/..":  "",
				"fifo":    `not_regular_file: "fifo" is a named pipe, not a regular file`,
				"sock":    `not_regular_file: "sock" is not a regular file`, // ENXIO from its open
				"missing": `not_found: file "missing" not found; inspect a directory ("." is the root) to list its files`,
				"escape":  `path_outside_root: path "escape" resolves outside the root ` + strconv.Quote(tr.dir) + `: symbolic links must be relative and stay inside it`,
				"../x":    `path_outside_root: path "../x" leaves the root ` + strconv.Quote(tr.dir) + "; name a path under it",
			} {
				err := walkWithin(t, r, path)
				if want == "" {
					assert.Nil(t, err, path)
					continue
				}
				require.NotNil(t, err, path)
				assert.Equal(t, want, string(err.Code)+": "+err.Msg)
			}
		})
	}
}

// walkWithin lists path with r.Walk in a goroutine and fails the test if
// it does not return within deadline.
func walkWithin(t *testing.T, r *Root, path string) *errcode.Error {
	t.Helper()
	done := make(chan *errcode.Error, 1)
	go func() {
		_, err := r.Walk(path, MaxListing, false)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(deadline):
		t.Fatalf("Walk(%q) did not return within %v", path, deadline)
		return nil
	}
}

// TestDirReadFile: a Dir reads its regular files by name, the same way
// whatever the way: no link followed (ErrLink), no FIFO waited on, the
// same errors.
func TestDirReadFile(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	cases := []struct {
		dir, name string
		max       int64
		want      string
		code      errcode.Code
		msg       string
	}{
		{".", "a.go", 100, "package a\n", "", ""},
		{".", "empty", 100, "", "", ""},
		{".", "ten.txt", 10, "0123456789", "", ""},
		{"sub", "b.txt", 100, "bee\n", "", ""},
		{"sub/deep", "c.txt", 100, "sea\n", "", ""},
		{".", "ten.txt", 9, "", errcode.TooLarge, `file "ten.txt" is 10 bytes, over the limit of 9 bytes (--max-result-bytes, which the person who starts the server sets: ask them to raise it, or read a smaller file)`},
		{".", "link_in", 100, "", errcode.Unreadable, "a symbolic link"},
		{".", "dangling", 100, "", errcode.Unreadable, "a symbolic link"},
		{".", "link_to_fifo", 100, "", errcode.Unreadable, "a symbolic link"},
		{".", "fifo", 100, "", errcode.NotRegularFile, `"fifo" is a named pipe, not a regular file`},
		{".", "sock", 100, "", errcode.NotRegularFile, `"sock" is a socket, not a regular file`},
		{".", "sub", 100, "", errcode.NotRegularFile, `"sub" is a directory, not a regular file`},
		{".", "missing", 100, "", errcode.NotFound, `file "missing" not found; inspect a directory ("." is the root) to list its files`},
		{"sub", "missing", 100, "", errcode.NotFound, `file "sub/missing" not found; inspect a directory ("." is the root) to list its files`},
	}
	for _, way := range walkWays {
		t.Run(way.name, func(t *testing.T) {
			r := openWay(t, tr.dir, way.open)
			buf := make([]byte, 0, 4)
			for _, c := range cases {
				d, err := r.OpenDir(c.dir)
				require.Nil(t, err)
				got, err := d.ReadFile(c.name, buf, c.max)
				d.Close()
				if c.code != "" {
					require.NotNil(t, err, "%s/%s", c.dir, c.name)
					assert.Equal(t, c.code, err.Code, "%s/%s", c.dir, c.name)
					assert.Equal(t, c.msg, err.Msg, "%s/%s", c.dir, c.name)
					if c.msg == "a symbolic link" {
						assert.Same(t, ErrLink, err)
					}
					continue
				}
				require.Nil(t, err, "%s/%s", c.dir, c.name)
				assert.Equal(t, c.want, string(got), "%s/%s", c.dir, c.name)
			}
		})
	}
}

// TestRootWalkFollowsNoSwappedLink: os.Root's way follows a symbolic link
// that stays inside the root, so it checks that what it opened is what it
// looked at. A directory or a file replaced by a link between its Lstat
// and its open is not followed: the directory is not entered, the file is
// read by its path instead (ErrLink). Not parallel: it sets rootLooked.
func TestRootWalkFollowsNoSwappedLink(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"d/x.txt": "x", "other/secret.txt": "s", "a.txt": "a", "b.txt": "b"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	swapped := map[string]bool{}
	rootLooked = func(name string) {
		if (name == "d" || name == "a.txt") && !swapped[name] {
			swapped[name] = true
			target := map[string]string{"d": "other", "a.txt": "b.txt"}[name]
			require.NoError(t, os.Rename(filepath.Join(dir, name), filepath.Join(dir, name+".old")))
			require.NoError(t, os.Symlink(target, filepath.Join(dir, name)))
		}
	}
	t.Cleanup(func() { rootLooked = nil })
	r := openWay(t, dir, openRootDir)

	l, err := r.Walk(".", MaxListing, false)
	require.Nil(t, err)
	assert.True(t, swapped["d"])
	// d was a directory when it was read; by the time it was opened it was
	// a link to other: not entered. a.txt is listed as the walk saw it.
	assert.Equal(t, "a.txt\nb.txt\nother/secret.txt\n", string(l.Text()))

	d, err := r.OpenDir(".")
	require.Nil(t, err)
	defer d.Close()
	_, err = d.ReadFile("a.txt", nil, 100)
	assert.True(t, swapped["a.txt"])
	assert.Same(t, ErrLink, err)
}

// benchTree lays out a tree like loom-perf's paths phase: files files in
// directories of 25, 20 to a parent, a .gitignore that leaves out an
// ignored subtree of files/10 more.
func benchTree(b *testing.B, files int) string {
	dir := b.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(body), 0o644))
	}
	write(".gitignore", "/vendor/\n*.o\n")
	for i := range files - 1 {
		write(fmt.Sprintf("pkg%02d/sub%02d/file%04d.go", i/500, i/25%20, i), "package p\n")
	}
	for i := range files / 10 {
		write(fmt.Sprintf("vendor/mod%02d/dep%04d.go", i/50, i), "package dep\n")
	}
	return dir
}

// BenchmarkWalk lists a tree of 10,000 files, each way, without and with
// sizes (inspect's listing, a find's walk).
func BenchmarkWalk(b *testing.B) {
	dir := benchTree(b, 10_000)
	for _, way := range walkWays {
		for _, sizes := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sizes=%v", way.name, sizes), func(b *testing.B) {
				r, err := Open(dir)
				require.NoError(b, err)
				defer r.Close()
				r.walkOpen = way.open
				for b.Loop() {
					l, werr := r.Walk(".", MaxListing, sizes)
					if werr != nil || len(l.Entries) != 10_000 {
						b.Fatal(werr, len(l.Entries))
					}
				}
			})
		}
	}
}

// BenchmarkDirReadFile reads the 25 files of one directory by name, as a
// find over paths does.
func BenchmarkDirReadFile(b *testing.B) {
	dir := benchTree(b, 100)
	r, err := Open(dir)
	require.NoError(b, err)
	defer r.Close()
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		d, derr := r.OpenDir("pkg00/sub01")
		if derr != nil {
			b.Fatal(derr)
		}
		for i := 25; i < 50; i++ {
			data, rerr := d.ReadFile(fmt.Sprintf("file%04d.go", i), buf, 1<<20)
			if rerr != nil || len(data) != 10 {
				b.Fatal(rerr, len(data))
			}
		}
		d.Close()
	}
}
