package workspace

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oracleNames are the names of generated entries: ones the patterns below
// name, and ones with the characters that patterns escape.
var oracleNames = []string{
	"a", "b", "foo", "bar", "build", "x.go", "y.go", "z.txt", "a.o", "#hash", "!bang", "sp ace", "trail ",
	"br[1]", "st*r", "q?", "Doc", "doc", "deep", "keep", "node_modules", "a**b", "ab", "a.b.c", "-dash", `\bs`, "tmp",
}

// oraclePatterns are ignore lines: negations, anchored patterns,
// directory-only patterns, "**" in every place, escaped characters,
// character classes, trailing spaces (escaped or not), comments.
var oraclePatterns = []string{
	"a", "/a", "a/", "/a/", "foo/bar", "foo/**/bar", "**/bar", "foo/**", "**/foo/", "*.o", "*.go", "!x.go", "!*.go", "!/a",
	`\#hash`, "#hash", `\!bang`, "!bang", `trail\ `, "trail ", "trail", "sp ace", `br\[1]`, "br[1]", "br[0-9]*", `st\*r`, "st*r",
	"q?", `q\?`, "[!a]*", "[^a]*", "[a-c]", "a**b", "***", "**", "*", "/*", "/*/", "*/", "[[:upper:]]*", "[[:digit:]]", "deep/", "!deep/",
	"!keep", "keep/", "node_modules/", "!node_modules/keep", "!foo/", "build/*", "!build/keep", "/build/**/x.go", "doc/**/", "a/**/b/**/c",
	"**/*.txt", "!**/z.txt", "a.b.*", `\-dash`, "-dash", `\\bs`, "foo/*", "*/bar", "bar/", "!bar", "  a", "a  ", `a\  `, "**/tmp/**",
	"!tmp/", "*/*/x.go", "**/a/b", "a/**", "!a/**/keep", "[[:alpha:]][[:punct:]]*", "[]]", "[a-]", "d?c/", "*.[oa]", "!*/",
}

// genTree lays out a random tree under root: directories four deep, files,
// symbolic links, .gitignore files (some with CRLF lines) and, in a git
// repository, .git/info/exclude.
func genTree(t *testing.T, r *rand.Rand, root string) {
	t.Helper()
	var mk func(dir string, depth int)
	mk = func(dir string, depth int) {
		for range 2 + r.Intn(5) {
			name := oracleNames[r.Intn(len(oracleNames))]
			p := filepath.Join(dir, name)
			if _, err := os.Lstat(p); err == nil {
				continue
			}
			switch k := r.Intn(10); {
			case k < 4 && depth < 4:
				require.NoError(t, os.Mkdir(p, 0o755))
				mk(p, depth+1)
			case k == 4:
				require.NoError(t, os.Symlink(oracleNames[r.Intn(len(oracleNames))], p))
			default:
				require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
			}
		}
		if r.Intn(3) == 0 {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(genRules(r, 6)), 0o644))
		}
	}
	mk(root, 0)
	git(t, root, "init", "-q")
	if r.Intn(2) == 0 {
		require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(genRules(r, 3)), 0o644))
	}
}

func genRules(r *rand.Rand, most int) string {
	var b strings.Builder
	for range 1 + r.Intn(most) {
		b.WriteString(oraclePatterns[r.Intn(len(oraclePatterns))])
		if r.Intn(8) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// git runs git in dir with no configuration but the repository's: no
// global or system excludes file.
func git(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=off"}, args...)...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+home, "XDG_CONFIG_HOME="+home)
	out, err := cmd.Output()
	require.NoError(t, err, "git %v", args)
	return out
}

// gitListed is what `git ls-files -co --exclude-standard` lists under dir
// (the root's own path "" or ending in "/"), sorted by bytes.
func gitListed(t *testing.T, root, dir string) []string {
	t.Helper()
	args := []string{"ls-files", "-co", "--exclude-standard", "-z"}
	if dir != "" {
		args = append(args, "--", dir)
	}
	var out []string
	for _, p := range strings.Split(string(git(t, root, args...)), "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func walked(t *testing.T, r *Root, dir string) []string {
	t.Helper()
	l, err := r.Walk(dir, MaxListing, false)
	require.Nil(t, err)
	out := []string{}
	for _, e := range l.Entries {
		out = append(out, e.Path)
	}
	return out
}

// TestWalkMatchesGit: on generated trees, a listing of the root holds what
// `git ls-files -co --exclude-standard` lists in a repository where
// nothing is tracked, and so does the listing of a directory that no rule
// leaves out. git's own rules are the oracle; each way of walking
// (walkWays) is held to them.
func TestWalkMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: it is the oracle of this test")
	}
	t.Parallel()
	for seed := range 150 {
		r := rand.New(rand.NewSource(int64(seed)))
		dir := t.TempDir()
		genTree(t, r, dir)
		want := gitListed(t, dir, "")
		// A directory whose files git lists is not left out: its listing
		// is git's listing of it.
		var sub string
		for _, p := range want {
			if i := strings.LastIndexByte(p, '/'); i > 0 && r.Intn(3) == 0 {
				sub = p[:i]
				break
			}
		}
		var wantSub []string
		if sub != "" {
			wantSub = gitListed(t, dir, sub+"/")
		}
		for _, way := range walkWays {
			root := openWay(t, dir, way.open)
			if !assert.Equal(t, nonNil(want), walked(t, root, "."), "seed %d, %s: %s", seed, way.name, describeTree(t, dir)) {
				continue
			}
			if sub != "" {
				assert.Equal(t, nonNil(wantSub), walked(t, root, sub), "seed %d, %s, directory %s", seed, way.name, sub)
			}
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// describeTree lists a tree's ignore files, for a failure's message.
func describeTree(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".gitignore" || strings.HasSuffix(p, "/.git/info/exclude") {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			b.WriteString("\n" + rel + ": " + strings.ReplaceAll(strings.ReplaceAll(string(data), "\r", `\r`), "\n", " | "))
		}
		return nil
	})
	return b.String()
}
