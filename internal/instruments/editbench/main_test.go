package editbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-results/loom-results/internal/testkit/loombin"
	// The tests run a binary that TestMain builds, which go test cannot see.
	// Importing the server makes its sources part of this test's inputs, so
	// a change to them invalidates cached results.
	_ "github.com/loom-results/loom-results/server"
)

// binary is the loom-results executable that TestMain builds once; repo
// the history of fixture (below) that every test replays.
var binary, repo string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if _, err := exec.LookPath("git"); err != nil {
		fmt.Fprintln(os.Stderr, "editbench: git not found; the tests need it")
		return 1
	}
	dir, err := os.MkdirTemp("", "loom-editbench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "editbench:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = loombin.Build(context.Background(), dir); err != nil {
		fmt.Fprintln(os.Stderr, "editbench:", err)
		return 1
	}
	repo = filepath.Join(dir, "repo")
	if err := fixture(repo); err != nil {
		fmt.Fprintln(os.Stderr, "editbench: making the fixture repository:", err)
		return 1
	}
	return m.Run()
}

// numbered returns n lines made by format from 1..n.
func numbered(format string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i, i)
	}
	return b.String()
}

// replaceLines returns s with its lines first..last (1-based) replaced by
// with.
func replaceLines(s string, first, last int, with string) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:first-1], "") + with + strings.Join(lines[last:], "")
}

// The fixture's files, before their edits. Each has 60 distinct lines, so
// that the edits below lie past the 1 KiB preview and find locates them.
var (
	midGo   = numbered("func step%02d(x int) int { return x + %d }\n", 60)
	insTxt  = numbered("entry %02d: alpha beta gamma %d\n", 60)
	delTxt  = numbered("record %02d: delta epsilon %d\n", 60)
	crlfTxt = strings.ReplaceAll(numbered("crlf line %02d value %d\n", 60), "\n", "\r\n")
	nonlTxt = numbered("plain line %02d text %d\n", 59) + "final line without newline"
	oldName = numbered("var name%02d = %d // renamed file\n", 60)
	bigTxt  = numbered("big file line %05d with some padding text to make it long %d\n", 1600)
	// moveGo has three functions; the fixture moves alpha below gamma.
	moveAlpha = "func alpha(items []string) (count int) {\n\tfor _, item := range items {\n\t\tif strings.HasPrefix(item, \"alpha\") {\n\t\t\tcount++\n\t\t}\n\t}\n\treturn count\n}\n"
	moveBeta  = "\nfunc beta(items []string) []string {\n" + numbered("\titems = append(items, \"beta %02d\") // %d\n", 30) + "\treturn items\n}\n"
	moveGamma = "\nfunc gamma() int {\n" + numbered("\tgammaTotal += %d * %d\n", 10) + "\treturn gammaTotal\n}\n"
)

// fixture makes a repository whose first-parent history holds, one commit
// each: the root (every file added), an edit in the middle, an insertion,
// a deletion, a moved block, a CRLF edit, an edit of a last line without
// newline, a rename with an edit, a binary change with a file added and one
// deleted and a large file's edit, an edit with an insertion at the top,
// and a merge whose first-parent diff edits one file (the side branch's own
// commit is not on the first-parent history).
func fixture(dir string) error {
	r := &gitRepo{dir: dir}
	r.run("init", "-q", "-b", "main", dir)
	r.write("mid.go", midGo)
	r.write("ins.txt", insTxt)
	r.write("del.txt", delTxt)
	r.write("move.go", moveAlpha+moveBeta+moveGamma)
	r.write("crlf.txt", crlfTxt)
	r.write("nonl.txt", nonlTxt)
	r.write("old_name.go", oldName)
	r.write("bin.dat", "\x00\x01binary\x00")
	r.write("gone.txt", "to be deleted\n")
	r.write("big.txt", bigTxt)
	r.commit("root: every file")

	r.write("mid.go", replaceLines(midGo, 40, 41, "func step40(x int) int { return x * 40 }\nfunc step41(x int) int { return x * 41 }\n"))
	r.commit("edit in the middle")
	r.write("ins.txt", replaceLines(insTxt, 46, 45, "inserted one\ninserted two\ninserted three\n"))
	r.commit("insertion")
	r.write("del.txt", replaceLines(delTxt, 48, 50, ""))
	r.commit("deletion")
	r.write("move.go", strings.TrimPrefix(moveBeta, "\n")+moveGamma+"\n"+moveAlpha)
	r.commit("moved block")
	r.write("crlf.txt", replaceLines(crlfTxt, 50, 50, "crlf line 50 changed\r\n"))
	r.commit("crlf edit")
	r.write("nonl.txt", replaceLines(nonlTxt, 60, 60, "final line changed, still without newline"))
	r.commit("no final newline")
	r.run("mv", "old_name.go", "new_name.go")
	r.write("new_name.go", replaceLines(oldName, 45, 45, "var name45 = 4500 // renamed and edited\n"))
	r.commit("rename with an edit")
	r.write("bin.dat", "\x00\x02binary changed\x00")
	r.write("new.txt", "a new file\n")
	r.run("rm", "-q", "gone.txt")
	r.write("big.txt", replaceLines(bigTxt, 1200, 1200, "big file line 01200 was edited\n"))
	r.commit("binary, added, deleted, large")
	r.write("crlf.txt", "top line\r\n"+replaceLines(crlfTxt, 50, 50, "crlf line 50 changed again\r\n"))
	r.commit("insertion at the top and an edit")

	r.run("checkout", "-q", "-b", "side")
	r.write("del.txt", replaceLines(replaceLines(delTxt, 48, 50, ""), 30, 30, "record 30: changed on the side branch\n"))
	r.commit("side branch")
	r.run("checkout", "-q", "main")
	r.run("merge", "-q", "--no-ff", "-m", "merge side", "side")
	return r.err
}

// gitRepo runs git in a test repository, keeping the first error.
type gitRepo struct {
	dir string
	err error
	n   int
}

func (r *gitRepo) run(args ...string) {
	if r.err != nil {
		return
	}
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	if args[0] == "init" {
		cmd = exec.Command("git", args...)
	}
	date := fmt.Sprintf("2026-01-01T00:%02d:00Z", r.n)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.err = fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
}

func (r *gitRepo) write(path, content string) {
	if r.err != nil {
		return
	}
	r.err = os.WriteFile(filepath.Join(r.dir, path), []byte(content), 0o644)
}

func (r *gitRepo) commit(msg string) {
	r.n++
	r.run("add", "-A")
	r.run("commit", "-q", "-m", msg)
}
