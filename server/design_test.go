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
// line without a folder and a package not named, and the files it checks
// leave out what git ignores.
func TestDesignLayoutChecksFail(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "a/a.go", "a/b/b.go", "a/b/testdata/x.txt", "a/c/testdata/x.go", "d/notes.md", ".ci/run"}
	const block = "a/   the product\n  b/   a package\nd/   notes\n.ci/ checks\n"
	tests := []struct {
		name  string
		block string
		files []string
		want  []string
	}{
		{"as it is", block, files, nil},
		{"a folder without a line", block, append(slices.Clone(files), "e/e.go"), []string{"top-level folder e/ has no line"}},
		{"a line without a folder", block + "f/  gone\n", files, []string{"a line names f/, which git does not hold"}},
		{"a package not named", block, append(slices.Clone(files), "a/g/h/g.go"), []string{"a/g/ holds Go code and has no indented line under a/"}},
		{"a package named that is not there", strings.Replace(block, "  b/", "  c/", 1), files, []string{"a/b/ holds Go code and has no indented line under a/", "an indented line names a/c/, which holds no Go code"}},
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
// repository's root): an unindented line for every top-level folder and
// for no other; under a top-level folder, an indented line whose first
// word names each folder one level down that holds Go code outside
// testdata (other names of such folders in a line's text count too), and
// none for a folder that holds none. It returns the differences.
func checkLayout(block string, files []string) []string {
	top := map[string]bool{}      // top-level folders
	packages := map[string]bool{} // "a/b": a folder one level down with Go code
	for _, f := range files {
		parts := strings.Split(f, "/")
		if len(parts) < 2 {
			continue
		}
		top[parts[0]] = true
		if len(parts) >= 3 && strings.HasSuffix(f, ".go") && !slices.Contains(parts, "testdata") {
			packages[parts[0]+"/"+parts[1]] = true
		}
	}

	var problems []string
	lined := map[string]bool{}
	named := map[string]bool{}
	parent := ""
	name := regexp.MustCompile(`(^|\s)([a-z.][a-z0-9_.-]*)/`)
	for line := range strings.Lines(block) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			m := name.FindStringSubmatch(line)
			if m == nil || m[1] != "" {
				problems = append(problems, "a line names no folder first: "+strings.TrimSpace(line))
				continue
			}
			parent = m[2]
			lined[parent] = true
			if !top[parent] {
				problems = append(problems, "a line names "+parent+"/, which git does not hold")
			}
			continue
		}
		for i, m := range name.FindAllStringSubmatch(line, -1) {
			p := parent + "/" + m[2]
			if i == 0 && strings.HasPrefix(strings.TrimSpace(line), m[2]+"/") {
				named[p] = true
				if !packages[p] {
					problems = append(problems, "an indented line names "+p+"/, which holds no Go code")
				}
			} else if packages[p] {
				named[p] = true
			}
		}
	}
	for _, f := range slices.Sorted(maps.Keys(top)) {
		if !lined[f] {
			problems = append(problems, "top-level folder "+f+"/ has no line")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(packages)) {
		if !named[p] {
			dir, _, _ := strings.Cut(p, "/")
			problems = append(problems, p+"/ holds Go code and has no indented line under "+dir+"/")
		}
	}
	slices.Sort(problems)
	return problems
}
