package server

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// designPath is the page whose Layout block TestDesignLayout checks.
const designPath = "../docs/design.md"

// TestDesignLayout checks the Layout block of docs/design.md against the
// tree as git holds it: the files it tracks and those it would add, so
// that what git ignores (a bin/ from go build -o bin/..., node_modules)
// is not part of the layout.
func TestDesignLayout(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(designPath)
	require.NoError(t, err)
	block, ok := layoutBlock(string(page))
	require.True(t, ok, "docs/design.md has no ## Layout section with a code block")
	assert.Empty(t, checkLayout(block, gitFiles(t, "..")))
}

// TestDesignLayoutChecksFail: the check catches a folder without a line, a
// line without a folder, a package not named and a line that names no
// folder, and the files it checks leave out what git ignores.
func TestDesignLayoutChecksFail(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "a/a.go", "a/b/b.go", "a/b/testdata/x.txt", "a/c/testdata/x.go",
		"a/d/e/e.go", "a/d/f/f.go", "a/d/f/g/g.go", "d/notes.md", ".ci/run"}
	const block = "a/   the product\n  b/   a package\n  d/   two more\n    e/   a package; f/ another\nd/   notes\n.ci/ checks\n"
	tests := []struct {
		name  string
		block string
		files []string
		want  []string
	}{
		{"as it is", block, files, nil},
		{"a folder without a line", block, append(slices.Clone(files), "e/e.go"), []string{"top-level folder e/ has no line"}},
		{"a line without a folder", block + "f/  gone\n", files, []string{"a line names f/, which git does not hold"}},
		{"a package not named", block, append(slices.Clone(files), "a/g/h/g.go"), []string{"a/g/ holds Go code and has no line under a/"}},
		{"a package not named under a listed one", block, append(slices.Clone(files), "a/d/h/h.go"), []string{"a/d/h/ holds Go code and has no line under a/d/"}},
		{"a package named that is not there", strings.Replace(block, "  b/", "  c/", 1), files, []string{"a line names a/c/, which holds no Go code", "a/b/ holds Go code and has no line under a/"}},
		{"a line that names no folder", block + "  see above\n", files, []string{"a line names no folder first: see above"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, checkLayout(tt.block, tt.files))
		})
	}

	t.Run("git ignores bin", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		for name, text := range map[string]string{".gitignore": "bin/\n", "a/a.go": "package a\n", "bin/tool": "binary\n"} {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
		}
		out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Equal(t, []string{".gitignore", "a/a.go"}, gitFiles(t, dir))
	})
}

// layoutBlock returns the first code block of page's "## Layout" section.
func layoutBlock(page string) (string, bool) {
	_, section, ok := strings.Cut(page, "## Layout\n")
	if !ok {
		return "", false
	}
	_, block, ok := strings.Cut(section, "```\n")
	if !ok {
		return "", false
	}
	block, _, ok = strings.Cut(block, "```")
	return block, ok
}

// gitFiles lists the files under dir that git tracks or would add (not
// ignored), slash-separated and sorted.
func gitFiles(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err, "the layout is the tree git holds: run the tests in a git checkout")
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	slices.Sort(files)
	return slices.Compact(files)
}

// checkLayout compares a Layout block with files (paths relative to the
// repository's root). A line names a folder with its first word; two more
// spaces of indentation than the line above put it inside that line's
// folder, and other names in a line's text that exist beside its folder
// count too. It wants a line for every top-level folder and none for a
// folder git does not hold; a line for every folder one level down that
// holds Go code outside testdata; and, under a deeper folder that has
// lines of its own, a line for each such folder in it. It returns the
// differences, sorted.
func checkLayout(block string, files []string) []string {
	folders := map[string]bool{} // every folder, "a" and "a/b"
	hasGo := map[string]bool{}   // folders with Go code below them, outside testdata
	for _, f := range files {
		parts := strings.Split(f, "/")
		goCode := strings.HasSuffix(f, ".go") && !slices.Contains(parts, "testdata")
		for i := 1; i < len(parts); i++ {
			dir := strings.Join(parts[:i], "/")
			folders[dir] = true
			if goCode {
				hasGo[dir] = true
			}
		}
	}

	var problems []string
	lined := map[string]bool{}   // folders with a line, or named in one
	parents := map[string]bool{} // folders with lines inside them
	var stack []string           // the folder of the last line at each depth
	first := regexp.MustCompile(`^( *)([a-z.][a-z0-9_.-]*)/(\s|$)`)
	other := regexp.MustCompile(`\s([a-z.][a-z0-9_.-]*)/`)
	for line := range strings.Lines(block) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := first.FindStringSubmatch(line)
		if m == nil || len(m[1])%2 != 0 || len(m[1])/2 > len(stack) {
			problems = append(problems, "a line names no folder first: "+strings.TrimSpace(line))
			continue
		}
		depth := len(m[1]) / 2
		stack = stack[:depth]
		parent, path := "", m[2]
		if depth > 0 {
			parent = stack[depth-1]
			path = parent + "/" + m[2]
			parents[parent] = true
		}
		stack = append(stack, path)
		lined[path] = true
		switch {
		case !folders[path]:
			problems = append(problems, "a line names "+path+"/, which git does not hold")
		case depth > 0 && !hasGo[path]:
			problems = append(problems, "a line names "+path+"/, which holds no Go code")
		}
		for _, o := range other.FindAllStringSubmatch(line[len(m[0]):], -1) {
			if sibling := strings.TrimPrefix(parent+"/"+o[1], "/"); hasGo[sibling] {
				lined[sibling] = true
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(folders)) {
		_, _, nested := strings.Cut(dir, "/")
		switch {
		case !nested && !lined[dir]:
			problems = append(problems, "top-level folder "+dir+"/ has no line")
		case !nested:
		case lined[dir] || !hasGo[dir]:
		default:
			parent := dir[:strings.LastIndex(dir, "/")]
			if !strings.Contains(parent, "/") || parents[parent] {
				problems = append(problems, dir+"/ holds Go code and has no line under "+parent+"/")
			}
		}
	}
	slices.Sort(problems)
	return problems
}
