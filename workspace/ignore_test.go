package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIgnoreRules: each rule of git's ignore files, on concrete lines and
// paths, as `git check-ignore` answers them.
func TestIgnoreRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, base string
		path             string
		dir              bool
		want             bool
	}{
		{"a name matches at any depth", "x.go\n", "", "a/b/x.go", false, true},
		{"a name matches a directory", "build\n", "", "a/build", true, true},
		{"a leading slash anchors", "/x.go\n", "", "a/x.go", false, false},
		{"a leading slash anchors, at the top", "/x.go\n", "", "x.go", false, true},
		{"a middle slash anchors", "a/x.go\n", "", "b/a/x.go", false, false},
		{"anchored to the file's directory", "x.go\n/y.go\n", "sub/", "sub/y.go", false, true},
		{"not outside the file's directory", "/y.go\n", "sub/", "y.go", false, false},
		{"a trailing slash: directories only", "build/\n", "", "build", false, false},
		{"a trailing slash matches a directory", "build/\n", "", "a/build", true, true},
		{"negation includes again", "*.log\n!keep.log\n", "", "keep.log", false, false},
		{"the last matching rule decides", "!keep.log\n*.log\n", "", "keep.log", false, true},
		{"a star stops at a slash", "a/*.go\n", "", "a/b/x.go", false, false},
		{"a star in a name crosses nothing", "*.go\n", "", "a/b/x.go", false, true},
		{"leading **/ matches at any depth", "**/x.go\n", "", "a/b/x.go", false, true},
		{"trailing /** matches what is inside", "a/**\n", "", "a/b/c", false, true},
		{"trailing /** is not the directory itself", "a/**\n", "", "a", true, false},
		{"/**/ matches zero directories", "a/**/x.go\n", "", "a/x.go", false, true},
		{"/**/ matches many directories", "a/**/x.go\n", "", "a/b/c/x.go", false, true},
		{"** beside a name is a star", "a**b\n", "", "axxb", false, true},
		{"? is one character", "x?.go\n", "", "xy.go", false, true},
		{"? is not a slash", "a?b\n", "", "a/b", false, false},
		{"a class", "x[0-9].go\n", "", "x5.go", false, true},
		{"a negated class with !", "x[!0-9].go\n", "", "x5.go", false, false},
		{"a negated class with ^", "x[^0-9].go\n", "", "xa.go", false, true},
		{"a POSIX class", "[[:upper:]]*\n", "", "Doc", false, true},
		{"] first in a class is itself", "[]]\n", "", "]", false, true},
		{"an escaped #", "\\#x\n", "", "#x", false, true},
		{"# starts a comment", "#x\n", "", "#x", false, false},
		{"an escaped !", "\\!x\n", "", "!x", false, true},
		{"an escaped star is a star", "a\\*b\n", "", "axb", false, false},
		{"an escaped star matches itself", "a\\*b\n", "", "a*b", false, true},
		{"trailing spaces are trimmed", "x.go  \n", "", "x.go", false, true},
		{"an escaped trailing space stays", "x\\ \n", "", "x ", false, true},
		{"an escaped trailing space is not trimmed", "x\\ \n", "", "x", false, false},
		{"CRLF lines", "x.go\r\ny.go\r\n", "", "y.go", false, true},
		{"a byte order mark is skipped", "\xef\xbb\xbfx.go\n", "", "x.go", false, true},
		{"a blank line matches nothing", "\n   \n", "", "x", false, false},
		{"a last line without a newline", "a\nx.go", "", "x.go", false, true},
		{"an unclosed class matches nothing", "x[ab\n", "", "x[ab", false, false},
		{"a pattern ending in a backslash matches nothing", "x\\\n", "", "x\\", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rs ignoreRules
			rs = rs.parseIgnore([]byte(c.file), c.base)
			name := filepath.Base(c.path)
			assert.Equal(t, c.want, rs.excluded(c.path, name, c.dir), "%q in %q", c.path, c.file)
		})
	}
}

// TestWalk: what a listing holds, on one concrete tree.
func TestWalk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		".gitignore": "*.log\n!keep.log\n/build/\n", "a.go": "", "a-b.go": "", "a/z.go": "", "b.log": "", "keep.log": "",
		"build/x.go": "", "src/.gitignore": "gen/\n", "src/gen/g.go": "", "src/m.go": "", ".git/info/exclude": "secret\n",
		".git/HEAD": "", "secret": "", "sub/.git": "gitdir: x\n", "bad\xff.go": "",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.Symlink("a.go", filepath.Join(dir, "link")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "locked"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "locked", "x"), nil, 0o644))
	require.NoError(t, os.Chmod(filepath.Join(dir, "locked"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked"), 0o755) })
	for _, way := range walkWays {
		t.Run(way.name, func(t *testing.T) {
			root := openWay(t, dir, way.open)
			l, werr := root.Walk(".", MaxListing, false)
			require.Nil(t, werr)
			want := ".gitignore\na-b.go\na.go\na/z.go\nkeep.log\nlink\nsrc/.gitignore\nsrc/m.go\n"
			if os.Geteuid() == 0 {
				want = ".gitignore\na-b.go\na.go\na/z.go\nkeep.log\nlink\nlocked/x\nsrc/.gitignore\nsrc/m.go\n" // root reads any directory
			}
			assert.Equal(t, want, string(l.Text()))
			assert.True(t, l.Entries[5].Link)

			// The named directory is listed though a rule leaves it out.
			l, werr = root.Walk("build", MaxListing, true)
			require.Nil(t, werr)
			assert.Equal(t, "build/x.go\n", string(l.Text()))
			assert.Equal(t, int64(0), l.Entries[0].Size)

			_, werr = root.Walk(".", 3, false)
			require.NotNil(t, werr)
			assert.Equal(t, "too_large", string(werr.Code))
			assert.Equal(t, `directory "." has more than 3 entries, the most a listing holds; list a directory below it`, werr.Msg)

			_, werr = root.Walk("a.go", MaxListing, false)
			require.NotNil(t, werr)
			assert.Equal(t, "not_regular_file", string(werr.Code))
		})
	}
}
