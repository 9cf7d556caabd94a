//go:build unix

package workspace

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// deadline bounds every Read in these tests, so that a Read that blocks (on
// a FIFO, say) fails the test instead of hanging it.
const deadline = 10 * time.Second

type readResult struct {
	data []byte
	rel  string
	err  *errcode.Error
}

// readWithin calls r.Read in a goroutine and fails the test if it does not
// return within deadline.
func readWithin(t *testing.T, r *Root, path string, maxBytes int64) readResult {
	t.Helper()
	done := make(chan readResult, 1)
	go func() {
		data, rel, err := r.Read(path, maxBytes)
		done <- readResult{data, rel, err}
	}()
	select {
	case got := <-done:
		return got
	case <-time.After(deadline):
		t.Fatalf("Read(%q) did not return within %v", path, deadline)
		return readResult{}
	}
}

// tree is the test tree: base holds outside.txt and the root directory dir.
type tree struct {
	base, dir string
	root      *Root
}

// longName is one path component longer than NAME_MAX (255 on Linux).
var longName = strings.Repeat("n", 300)

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "outside.txt"), []byte("secret\n"), 0o644))

	files := map[string]string{
		"a.go":             "package a\n",
		"ten.txt":          "0123456789",
		"one.txt":          "x",
		"empty":            "",
		"sub/b.txt":        "bee\n",
		"sub/deep/c.txt":   "sea\n",
		"weird name ü.txt": "unicode\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	links := map[string]string{
		"link_in":      "a.go",
		"sub/link_up":  "../a.go",
		"linkdir":      "sub",
		"chain":        "link_in",
		"escape":       "../outside.txt",
		"escape_deep":  "sub/../../outside.txt",
		"abs_in":       filepath.Join(dir, "a.go"),
		"abs_out":      filepath.Join(base, "outside.txt"),
		"abs_devnull":  "/dev/null",
		"loop_a":       "loop_b",
		"loop_b":       "loop_a",
		"self":         "self",
		"dangling":     "missing.txt",
		"link_to_dir":  "sub/deep",
		"link_to_fifo": "fifo",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))))
	}
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))

	// A Unix socket path must fit in sun_path (108 bytes on Linux).
	sock := filepath.Join(dir, "sock")
	require.Less(t, len(sock), 100, "temporary directory too deep for a socket path")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })

	root, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return tree{base: base, dir: dir, root: root}
}

func TestRead(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	dir := tr.dir

	tests := []struct {
		name     string
		path     string
		wantCode errcode.Code // "" for success
		wantRel  string
		wantData string
	}{
		// Plain and lexically cleaned relative paths.
		{name: "regular", path: "a.go", wantRel: "a.go", wantData: "package a\n"},
		{name: "dot prefix", path: "./a.go", wantRel: "a.go", wantData: "package a\n"},
		{name: "nested", path: "sub/deep/c.txt", wantRel: "sub/deep/c.txt", wantData: "sea\n"},
		{name: "dot and dotdot cleaned", path: "sub/./deep/../b.txt", wantRel: "sub/b.txt", wantData: "bee\n"},
		{name: "double slash", path: "sub//b.txt", wantRel: "sub/b.txt", wantData: "bee\n"},
		{name: "trailing slash cleaned away", path: "sub/b.txt/", wantRel: "sub/b.txt", wantData: "bee\n"},
		{name: "dotdot back inside", path: "sub/../a.go", wantRel: "a.go", wantData: "package a\n"},
		{name: "unicode name", path: "weird name ü.txt", wantRel: "weird name ü.txt", wantData: "unicode\n"},

		// Leaving the root lexically.
		{name: "dotdot", path: "..", wantCode: errcode.PathOutsideRoot},
		{name: "dotdot file", path: "../outside.txt", wantCode: errcode.PathOutsideRoot},
		{name: "dotdot after dir", path: "a/../../b", wantCode: errcode.PathOutsideRoot},
		{name: "dotdot deep", path: "sub/deep/../../../outside.txt", wantCode: errcode.PathOutsideRoot},

		// Absolute paths.
		{name: "absolute inside", path: filepath.Join(dir, "a.go"), wantRel: "a.go", wantData: "package a\n"},
		{name: "absolute nested uncleaned", path: dir + "/sub/./deep/../b.txt", wantRel: "sub/b.txt", wantData: "bee\n"},
		{name: "absolute root itself", path: dir, wantCode: errcode.NotRegularFile, wantRel: "."},
		{name: "absolute root with slash", path: dir + "/", wantCode: errcode.NotRegularFile, wantRel: "."},
		{name: "absolute sibling prefix", path: dir + "y/a.go", wantCode: errcode.PathOutsideRoot},
		{name: "absolute parent", path: tr.base, wantCode: errcode.PathOutsideRoot},
		{name: "absolute escaping by dotdot", path: dir + "/../outside.txt", wantCode: errcode.PathOutsideRoot},
		{name: "absolute dev null", path: "/dev/null", wantCode: errcode.PathOutsideRoot},
		{name: "absolute proc", path: "/proc/self/status", wantCode: errcode.PathOutsideRoot},
		{name: "filesystem root", path: "/", wantCode: errcode.PathOutsideRoot},

		// The root directory itself, relatively.
		{name: "dot", path: ".", wantCode: errcode.NotRegularFile, wantRel: "."},
		{name: "dir then dotdot", path: "sub/..", wantCode: errcode.NotRegularFile, wantRel: "."},

		// Missing files.
		{name: "missing", path: "missing.txt", wantCode: errcode.NotFound, wantRel: "missing.txt"},
		{name: "missing dir", path: "nodir/x.go", wantCode: errcode.NotFound, wantRel: "nodir/x.go"},
		{name: "file as dir", path: "a.go/x", wantCode: errcode.NotFound, wantRel: "a.go/x"},

		// Symbolic links: followed when relative and inside.
		{name: "symlink inside", path: "link_in", wantRel: "link_in", wantData: "package a\n"},
		{name: "symlink chain", path: "chain", wantRel: "chain", wantData: "package a\n"},
		{name: "symlink dotdot inside", path: "sub/link_up", wantRel: "sub/link_up", wantData: "package a\n"},
		{name: "through dir symlink", path: "linkdir/b.txt", wantRel: "linkdir/b.txt", wantData: "bee\n"},
		{name: "absolute through dir symlink", path: dir + "/linkdir/deep/c.txt", wantRel: "linkdir/deep/c.txt", wantData: "sea\n"},
		{name: "symlink escaping", path: "escape", wantCode: errcode.PathOutsideRoot, wantRel: "escape"},
		{name: "symlink escaping deep", path: "escape_deep", wantCode: errcode.PathOutsideRoot, wantRel: "escape_deep"},
		// os.Root refuses every absolute target, even one inside the root.
		{name: "absolute symlink inside", path: "abs_in", wantCode: errcode.PathOutsideRoot, wantRel: "abs_in"},
		{name: "absolute symlink outside", path: "abs_out", wantCode: errcode.PathOutsideRoot, wantRel: "abs_out"},
		{name: "absolute symlink to device", path: "abs_devnull", wantCode: errcode.PathOutsideRoot, wantRel: "abs_devnull"},
		{name: "symlink loop", path: "loop_a", wantCode: errcode.Unreadable, wantRel: "loop_a"},
		{name: "symlink to itself", path: "self", wantCode: errcode.Unreadable, wantRel: "self"},
		{name: "dangling symlink", path: "dangling", wantCode: errcode.NotFound, wantRel: "dangling"},
		// "link/.." is cleaned lexically before the link is looked at.
		{name: "symlink then dotdot", path: "abs_out/../a.go", wantRel: "a.go", wantData: "package a\n"},

		// Not regular files.
		{name: "directory", path: "sub", wantCode: errcode.NotRegularFile, wantRel: "sub"},
		{name: "symlink to directory", path: "link_to_dir", wantCode: errcode.NotRegularFile, wantRel: "link_to_dir"},
		{name: "fifo", path: "fifo", wantCode: errcode.NotRegularFile, wantRel: "fifo"},
		{name: "symlink to fifo", path: "link_to_fifo", wantCode: errcode.NotRegularFile, wantRel: "link_to_fifo"},
		{name: "socket", path: "sock", wantCode: errcode.NotRegularFile, wantRel: "sock"},

		// Invalid arguments.
		{name: "empty path", path: "", wantCode: errcode.InvalidArgument},
		{name: "nul byte", path: "a.go\x00.txt", wantCode: errcode.InvalidArgument},
		{name: "nul byte outside", path: "../\x00", wantCode: errcode.InvalidArgument},
		{name: "invalid utf-8", path: "\xff.go", wantCode: errcode.InvalidArgument},
		{name: "lone continuation byte", path: "sub/\x80", wantCode: errcode.InvalidArgument},

		// Names the system refuses: Linux says ENAMETOOLONG for a component
		// over NAME_MAX, which is unreadable with the system's reason.
		{name: "long name", path: longName, wantCode: errcode.Unreadable, wantRel: longName},
		{name: "long name in dir", path: "sub/" + longName + "/x", wantCode: errcode.Unreadable, wantRel: "sub/" + longName + "/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readWithin(t, tr.root, tt.path, 1<<20)
			checkRead(t, got, tt.wantCode, tt.wantRel, tt.wantData)
		})
	}
}

func TestReadLimits(t *testing.T) {
	t.Parallel()
	tr := newTree(t)

	tests := []struct {
		name     string
		path     string
		maxBytes int64
		wantCode errcode.Code // "" for success
		wantRel  string
		wantData string
	}{
		{name: "size equals limit", path: "ten.txt", maxBytes: 10, wantRel: "ten.txt", wantData: "0123456789"},
		{name: "size over limit", path: "ten.txt", maxBytes: 9, wantCode: errcode.TooLarge, wantRel: "ten.txt"},
		{name: "empty with limit 0", path: "empty", maxBytes: 0, wantRel: "empty", wantData: ""},
		{name: "one byte with limit 0", path: "one.txt", maxBytes: 0, wantCode: errcode.TooLarge, wantRel: "one.txt"},
		{name: "negative limit counts as 0", path: "empty", maxBytes: -1, wantRel: "empty", wantData: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readWithin(t, tr.root, tt.path, tt.maxBytes)
			checkRead(t, got, tt.wantCode, tt.wantRel, tt.wantData)
		})
	}
}

func checkRead(t *testing.T, got readResult, wantCode errcode.Code, wantRel, wantData string) {
	t.Helper()
	assert.Equal(t, wantRel, got.rel, "rel")
	if wantCode == "" {
		require.Nil(t, got.err)
		assert.Equal(t, wantData, string(got.data))
		assert.NotNil(t, got.data, "an empty file reads as an empty, non-nil slice")
		return
	}
	require.NotNil(t, got.err, "want %s", wantCode)
	assert.Equal(t, wantCode, got.err.Code, "message: %s", got.err.Msg)
	assert.Nil(t, got.data)
	assert.False(t, unicode.IsUpper([]rune(got.err.Msg)[0]), "messages start in lowercase: %s", got.err.Msg)
}

// TestReadMessages checks that messages carry the values involved and the
// system's reason, and that too_large has its details.
func TestReadMessages(t *testing.T) {
	t.Parallel()
	tr := newTree(t)

	tests := []struct {
		name         string
		path         string
		maxBytes     int64
		wantContains []string
		wantDetails  errcode.Details
	}{
		{name: "empty", path: "", wantContains: []string{"path is empty"}},
		{name: "invalid utf-8", path: "\xff", wantContains: []string{`"\xff"`, "utf-8"}},
		{name: "nul byte", path: "a\x00b", wantContains: []string{`"a\x00b"`, "nul byte"}},
		{name: "dotdot", path: "../x", wantContains: []string{`"../x"`, "leaves the root", tr.dir}},
		{name: "absolute outside", path: "/dev/null", wantContains: []string{`"/dev/null"`, "outside the root", tr.dir}},
		{name: "symlink escaping", path: "escape", wantContains: []string{`"escape"`, "resolves outside the root", "symbolic links"}},
		{name: "missing", path: "missing.txt", wantContains: []string{`"missing.txt"`, "not found"}},
		{name: "file as dir", path: "a.go/x", wantContains: []string{`"a.go/x"`, "not found", "not a directory"}},
		{name: "directory", path: "sub", wantContains: []string{`"sub" is a directory`}},
		{name: "fifo", path: "fifo", wantContains: []string{`"fifo" is a named pipe`}},
		{name: "socket", path: "sock", wantContains: []string{`"sock" is a socket`}},
		{name: "symlink loop", path: "loop_a", wantContains: []string{`"loop_a"`, "too many levels of symbolic links"}},
		{name: "long name", path: longName, wantContains: []string{"file name too long"}},
		{
			name: "too large", path: "ten.txt", maxBytes: 9,
			wantContains: []string{`"ten.txt"`, "10 bytes", "limit of 9 bytes"},
			wantDetails:  errcode.Details{Size: new(int64(10)), Limit: new(int64(9))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			maxBytes := tt.maxBytes
			if maxBytes == 0 {
				maxBytes = 1 << 20
			}
			got := readWithin(t, tr.root, tt.path, maxBytes)
			require.NotNil(t, got.err)
			for _, want := range tt.wantContains {
				assert.Contains(t, got.err.Msg, want)
			}
			assert.Equal(t, tt.wantDetails, got.err.Details)
		})
	}
}

// TestOpenRefusesNonRegular exercises the guard behind Read's Stat: when a
// regular file is replaced by a FIFO or a socket between Stat and open, the
// non-blocking open and the fstat must still refuse it without blocking.
func TestOpenRefusesNonRegular(t *testing.T) {
	t.Parallel()
	tr := newTree(t)

	for _, name := range []string{"fifo", "link_to_fifo", "sock", "sub", "."} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			done := make(chan *errcode.Error, 1)
			go func() {
				f, err := tr.root.open(name, 1<<20)
				if f != nil {
					f.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				require.NotNil(t, err)
				assert.Equal(t, errcode.NotRegularFile, err.Code, err.Msg)
			case <-time.After(deadline):
				t.Fatalf("open(%q) did not return within %v", name, deadline)
			}
		})
	}
}

func TestReadDevices(t *testing.T) {
	t.Parallel()
	root, err := Open("/dev")
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })

	for _, path := range []string{"null", "/dev/null", "zero"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			got := readWithin(t, root, path, 1<<20)
			require.NotNil(t, got.err)
			assert.Equal(t, errcode.NotRegularFile, got.err.Code, got.err.Msg)
			assert.Equal(t, strings.TrimPrefix(path, "/dev/"), got.rel)
			assert.Contains(t, got.err.Msg, "character device")
		})
	}
}

// TestReadProc reads files that report size 0 but have contents.
func TestReadProc(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc:", err)
	}
	root, err := Open("/proc/self")
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })

	fi, err := os.Stat("/proc/self/status")
	require.NoError(t, err)
	require.Zero(t, fi.Size(), "the point of this test is a file whose stat size is 0")

	t.Run("read despite size 0", func(t *testing.T) {
		t.Parallel()
		got := readWithin(t, root, "status", 1<<20)
		require.Nil(t, got.err)
		assert.Equal(t, "status", got.rel)
		assert.Contains(t, string(got.data), "Name:")
	})
	t.Run("bounded despite size 0", func(t *testing.T) {
		t.Parallel()
		got := readWithin(t, root, "status", 10)
		require.NotNil(t, got.err)
		assert.Equal(t, errcode.TooLarge, got.err.Code, got.err.Msg)
		assert.Equal(t, errcode.Details{Limit: new(int64(10))}, got.err.Details, "no size: it is not known")
	})
	t.Run("magic link is absolute", func(t *testing.T) {
		t.Parallel()
		got := readWithin(t, root, "cwd/go.mod", 1<<20)
		require.NotNil(t, got.err)
		assert.Equal(t, errcode.PathOutsideRoot, got.err.Code, got.err.Msg)
	})
}

func TestReadPermissionDenied(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not deny root, so there is no permission error to observe")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(p, []byte("x"), 0o000))
	root, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })

	got := readWithin(t, root, "secret", 1<<20)
	require.NotNil(t, got.err)
	assert.Equal(t, errcode.Unreadable, got.err.Code)
	assert.Contains(t, got.err.Msg, "permission denied")
}

func TestReadAfterClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644))
	root, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, root.Close())

	got := readWithin(t, root, "a", 1<<20)
	require.NotNil(t, got.err)
	assert.Equal(t, errcode.Unreadable, got.err.Code, got.err.Msg)
	assert.Equal(t, "a", got.rel)
}

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.NoError(t, os.Symlink(dir, filepath.Join(dir, "link")))
	wd, err := os.Getwd()
	require.NoError(t, err)

	tests := []struct {
		name    string
		dir     string
		wantDir string
		wantErr bool
	}{
		{name: "empty is working directory", dir: "", wantDir: wd},
		{name: "dot", dir: ".", wantDir: wd},
		{name: "relative", dir: "..", wantDir: filepath.Dir(wd)},
		{name: "uncleaned", dir: dir + "/./x/../", wantDir: dir},
		// The root's path is cleaned, not resolved: "lexically under" is
		// measured against the path as given.
		{name: "symlink kept", dir: filepath.Join(dir, "link"), wantDir: filepath.Join(dir, "link")},
		{name: "missing", dir: filepath.Join(dir, "missing"), wantErr: true},
		{name: "regular file", dir: file, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, err := Open(tt.dir)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			t.Cleanup(func() { root.Close() })
			assert.Equal(t, tt.wantDir, root.Dir())
		})
	}
}

// TestReadFilesystemRoot checks the one root whose path ends in a slash.
func TestReadFilesystemRoot(t *testing.T) {
	t.Parallel()
	root, err := Open("/")
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	assert.Equal(t, "/", root.Dir())

	tests := []struct {
		path     string
		wantCode errcode.Code
		wantRel  string
	}{
		{path: "/", wantCode: errcode.NotRegularFile, wantRel: "."},
		{path: "/dev/null", wantCode: errcode.NotRegularFile, wantRel: "dev/null"},
		{path: "dev/null", wantCode: errcode.NotRegularFile, wantRel: "dev/null"},
		{path: "/..", wantCode: errcode.NotRegularFile, wantRel: "."},
		{path: "..", wantCode: errcode.PathOutsideRoot},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got := readWithin(t, root, tt.path, 1<<20)
			require.NotNil(t, got.err)
			assert.Equal(t, tt.wantCode, got.err.Code, got.err.Msg)
			assert.Equal(t, tt.wantRel, got.rel)
		})
	}
}

func BenchmarkRead(b *testing.B) {
	const size = 16 << 20
	dir := b.TempDir()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	require.NoError(b, os.WriteFile(filepath.Join(dir, "big"), data, 0o644))

	b.Run("workspace", func(b *testing.B) {
		root, err := Open(dir)
		require.NoError(b, err)
		defer root.Close()
		b.SetBytes(size)
		for b.Loop() {
			if _, _, err := root.Read("big", size); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		p := filepath.Join(dir, "big")
		b.SetBytes(size)
		for b.Loop() {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestStream checks that Stream hands over a file in window-sized chunks,
// stops when asked, refuses a file that grew past the limit, and that
// ReadAll after it reads the file from its start.
func TestStream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Repeat("0123456789", 100) // 1,000 bytes
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644))
	r, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })

	f, rel, oerr := r.Open("a.txt", 1000)
	require.Nil(t, oerr)
	defer f.Close()
	assert.Equal(t, "a.txt", rel)
	assert.Equal(t, int64(1000), f.Size())

	var got strings.Builder
	var sizes []int
	n, serr := f.Stream(make([]byte, 300), func(chunk []byte) bool {
		got.Write(chunk)
		sizes = append(sizes, len(chunk))
		return true
	})
	require.Nil(t, serr)
	assert.Equal(t, int64(1000), n)
	assert.Equal(t, text, got.String())
	assert.Equal(t, []int{300, 300, 300, 100}, sizes)

	n, serr = f.Stream(make([]byte, 300), func([]byte) bool { return false })
	require.Nil(t, serr)
	assert.Equal(t, int64(300), n, "stopped after the first chunk")

	data, rerr := f.ReadAll(nil)
	require.Nil(t, rerr)
	assert.Equal(t, text, string(data), "ReadAll starts again from the start")

	// A file that grew past the limit after Open: never more than the
	// limit plus one byte is read.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text+"more"), 0o644))
	var streamed int
	n, serr = f.Stream(make([]byte, 4096), func(chunk []byte) bool { streamed += len(chunk); return true })
	require.NotNil(t, serr)
	assert.Equal(t, errcode.TooLarge, serr.Code)
	assert.Equal(t, int64(1001), n)
	assert.Equal(t, 0, streamed, "the chunk that passed the limit is not handed over")
}

// TestReadStalls: a file that can be polled and brings no data (as
// /proc/kmsg with no kernel message to give) fails with unreadable once
// the stall timeout passes, and one that brings data is read to its end.
// A pipe stands in for such a file: the runtime polls it as it polls
// /proc/kmsg, and a test can decide what it delivers.
func TestReadStalls(t *testing.T) {
	t.Parallel()
	root, err := Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	root.stall = 20 * time.Millisecond

	tests := []struct {
		name   string
		stream bool
		data   string // written before the read
		close  bool   // the writer ends: EOF after data
	}{
		{name: "ReadAll, nothing"},
		{name: "ReadAll, data then nothing", data: "some\n"},
		{name: "Stream, nothing", stream: true},
		{name: "Stream, data then nothing", stream: true, data: "some\n"},
		{name: "ReadAll, data then EOF", data: "all\n", close: true},
		{name: "Stream, data then EOF", stream: true, data: "all\n", close: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			t.Cleanup(func() { pr.Close(); pw.Close() })
			_, err = pw.WriteString(tt.data)
			require.NoError(t, err)
			if tt.close {
				require.NoError(t, pw.Close())
			}
			f := newFile(root, pr, "kmsg", 0, 1<<20)
			require.True(t, f.polled)
			done := make(chan readResult, 1)
			go func() {
				var got []byte
				var rerr *errcode.Error
				if tt.stream {
					_, rerr = f.Stream(make([]byte, 64), func(c []byte) bool { got = append(got, c...); return true })
				} else {
					got, rerr = f.ReadAll(nil)
				}
				done <- readResult{data: got, err: rerr}
			}()
			var got []byte
			var rerr *errcode.Error
			select {
			case r := <-done:
				got, rerr = r.data, r.err
			case <-time.After(deadline):
				t.Fatalf("the read did not return within %v", deadline)
			}
			if tt.close {
				require.Nil(t, rerr)
				assert.Equal(t, tt.data, string(got))
				return
			}
			require.NotNil(t, rerr)
			assert.Equal(t, errcode.Unreadable, rerr.Code)
			assert.Equal(t, `cannot read "kmsg": it gave no data for 20ms (a file that waits for events, like /proc/kmsg)`, rerr.Msg)
		})
	}
}

// TestReadDiskFileNotPolled: a file on disk is not polled, so its reads
// take no deadline at all.
func TestReadDiskFileNotPolled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644))
	root, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	f, _, oerr := root.Open("a", 10)
	require.Nil(t, oerr)
	defer f.Close()
	assert.False(t, f.polled)
}

// TestReadPathTooLong: a path that, cleaned, is longer than the system
// takes is unreadable before any system call, with a message that names
// it cut; one that cleans to a shorter path is read.
func TestReadPathTooLong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644))
	root, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })

	deep := strings.Repeat("d/", 2047) + "b" // 4095 bytes: as long as the system takes
	tests := []struct {
		name, path string
		code       errcode.Code
		msg        string
	}{
		{"4095 bytes", deep, errcode.NotFound, ""},
		{"4096 bytes", deep + "b", errcode.Unreadable,
			`cannot read "` + strings.Repeat("d/", 100) + `"... (4096 bytes): file name too long (the system takes paths of at most 4095 bytes)`},
		{"8 MiB of a/", strings.Repeat("a/", 4<<20) + "b", errcode.Unreadable, ""},
		{"cleans to a.txt", strings.Repeat("./", 4<<10) + "a.txt", "", ""},
		{"8 MiB of ../", strings.Repeat("../", 1<<20) + "x", errcode.PathOutsideRoot,
			`path "` + strings.Repeat("../", 66) + `.."... (3145729 bytes) leaves the root ` + strconv.Quote(root.Dir()) + "; name a path under it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readWithin(t, root, tt.path, 1<<20)
			if tt.code == "" {
				require.Nil(t, got.err)
				assert.Equal(t, "x", string(got.data))
				return
			}
			require.NotNil(t, got.err)
			assert.Equal(t, tt.code, got.err.Code, got.err.Msg)
			if tt.msg != "" {
				assert.Equal(t, tt.msg, got.err.Msg)
			}
			if tt.code != errcode.NotFound {
				assert.Less(t, len(got.err.Msg), 400, "the message names the path cut")
			}
		})
	}
}
