package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/testkit/loombin"
	// The commands run a server that TestMain builds, which go test cannot
	// see. Importing the server makes its sources part of this test's
	// inputs, so a change to them invalidates cached results.
	_ "github.com/loom-results/loom-results/server"
)

// server is the loom-results executable that TestMain builds once.
var server string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "loom-check-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "loom-check:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if server, err = loombin.Build(context.Background(), dir); err != nil {
		fmt.Fprintln(os.Stderr, "loom-check:", err)
		return 1
	}
	return m.Run()
}

// check runs loom-check with args in process and returns its exit status,
// stdout and stderr, as main would give them.
func check(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = cli.Status("loom-check", run(t.Context(), args, &out, &errOut), &errOut)
	return status, out.String(), errOut.String()
}

// TestBadCommandLine: every bad command line exits with status 2 and prints
// the message and a pointer to the command's --help on stderr, nothing
// else, and nothing on stdout.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	const (
		top   = "run 'loom-check --help' for usage\n"
		help  = "run 'loom-check help --help' for usage\n"
		rep   = "run 'loom-check replay --help' for usage\n"
		bench = "run 'loom-check bench-edits --help' for usage\n"
	)
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"no command", nil, "loom-check: no command: the commands are replay, bench-edits, help\n" + top},
		{"unknown command", []string{"serve"}, `loom-check: unknown command "serve"; the commands are replay, bench-edits, help` + "\n" + top},
		{"a flag for a command", []string{"--server", "x"}, `loom-check: unknown command "--server"; the commands are replay, bench-edits, help` + "\n" + top},
		{"help of an unknown command", []string{"help", "nope"}, `loom-check help: unknown command "nope"; the commands are replay, bench-edits, help` + "\n" + help},
		{"help of two commands", []string{"help", "replay", "bench-edits"}, "loom-check help: give one command, not 2 (the commands are replay, bench-edits, help)\n" + help},
		{"replay without scripts", []string{"replay"}, "loom-check replay: no scripts: name txtar files, or directories of them\n" + rep},
		{"replay's unknown flag", []string{"replay", "--nope"}, "loom-check replay: flag provided but not defined: -nope\n" + rep},
		{"replay's server without a value", []string{"replay", "--server"}, "loom-check replay: flag needs an argument: -server\n" + rep},
		{"bench-edits' stray argument", []string{"bench-edits", "x"}, `loom-check bench-edits: unexpected argument "x"` + "\n" + bench},
		{"bench-edits' bad agent", []string{"bench-edits", "--agent", "y"}, `loom-check bench-edits: --agent "y" is not splice or write` + "\n" + bench},
		{"bench-edits' bad answers", []string{"bench-edits", "--answers", "json"}, `loom-check bench-edits: --answers "json" is not text or full` + "\n" + bench},
		{"bench-edits' misaim over 1", []string{"bench-edits", "--agent", "write", "--misaim", "1.5"}, "loom-check bench-edits: --misaim 1.5 is not a fraction from 0 to 1\n" + bench},
		{"bench-edits' negative misaim", []string{"bench-edits", "--agent", "write", "--misaim", "-0.1"}, "loom-check bench-edits: --misaim -0.1 is not a fraction from 0 to 1\n" + bench},
		{"bench-edits' misaim of the splice agent", []string{"bench-edits", "--misaim", "0.05"}, "loom-check bench-edits: --misaim applies to --agent write\n" + bench},
		{"bench-edits' step gap 0", []string{"bench-edits", "--agent", "write", "--step-gap", "0"}, "loom-check bench-edits: --step-gap 0s is not a positive duration\n" + bench},
		{"bench-edits' bad number", []string{"bench-edits", "--commits", "x"}, `loom-check bench-edits: invalid value "x" for flag -commits: parse error` + "\n" + bench},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := check(t, tt.args...)
			assert.Equal(t, 2, status)
			assert.Equal(t, tt.want, stderr)
			assert.Empty(t, stdout)
		})
	}
}

// TestHelp: help that was asked for goes to stdout and is not an error
// (status 0); the top-level usage lists every command and says which
// server runs by default.
func TestHelp(t *testing.T) {
	t.Parallel()
	top := []string{"usage: loom-check COMMAND [flags]", "replay ", "bench-edits ", "help ",
		"the\nserver is a loom-results built from this module into a temporary directory", "go run ./cmd/loom-check bench-edits --repo ."}
	const byDefault = "default: loom-results built from the module in the working directory into a temporary directory"
	tests := []struct {
		name string
		args []string
		want []string // in stdout
	}{
		{"--help", []string{"--help"}, top},
		{"-h", []string{"-h"}, top},
		{"help", []string{"help"}, top},
		{"help replay", []string{"help", "replay"}, []string{`usage: loom-check replay [--server "CMD"] SCRIPT...`, "-server", byDefault}},
		{"replay --help", []string{"replay", "--help"}, []string{`usage: loom-check replay [--server "CMD"] SCRIPT...`}},
		{"help bench-edits", []string{"help", "bench-edits"}, []string{"usage: loom-check bench-edits", "-commits", "-server-flags", byDefault}},
		{"bench-edits -h", []string{"bench-edits", "-h"}, []string{"usage: loom-check bench-edits"}},
		{"help help", []string{"help", "help"}, []string{"usage: loom-check help [COMMAND]", "replay, bench-edits, help"}},
		{"help --help", []string{"help", "--help"}, []string{"usage: loom-check help [COMMAND]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := check(t, tt.args...)
			assert.Equal(t, 0, status)
			for _, w := range tt.want {
				assert.Contains(t, stdout, w)
			}
			assert.Empty(t, stderr)
		})
	}
}

// TestExitStatus runs the command as a process: help exits 0 with nothing
// on stderr, a bad command line 2 with the message and the pointer to
// --help, a failed check 1.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "loom-check")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	tests := []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"--help", []string{"--help"}, 0, ""},
		{"help bench-edits", []string{"help", "bench-edits"}, 0, ""},
		{"replay --help", []string{"replay", "--help"}, 0, ""},
		{"no command", nil, 2, "loom-check: no command: the commands are replay, bench-edits, help\nrun 'loom-check --help' for usage\n"},
		{"replay --nope", []string{"replay", "--nope"}, 2, "loom-check replay: flag provided but not defined: -nope\nrun 'loom-check replay --help' for usage\n"},
		{"a missing script", []string{"replay", "--server", server, filepath.Join(t.TempDir(), "missing.txtar")}, 1, "loom-check: replay: 1 script(s) failed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), bin, tt.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			got := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				got = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.stderr, stderr.String())
		})
	}
}

// scripts writes a passing script (a conformance script as it is) and a
// failing one (the same with one answer changed) into a temporary
// directory.
func scripts(t *testing.T) (pass, fail string) {
	t.Helper()
	data, err := os.ReadFile("../../conformance/testdata/begin_step.txtar")
	require.NoError(t, err)
	dir := t.TempDir()
	pass, fail = filepath.Join(dir, "a_pass.txtar"), filepath.Join(dir, "b_fail.txtar")
	broken := strings.Replace(string(data), `"text": "step 3"`, `"text": "step 9"`, 1)
	require.NotEqual(t, string(data), broken, "begin_step.txtar answers no step 3")
	require.NoError(t, os.WriteFile(pass, data, 0o644))
	require.NoError(t, os.WriteFile(fail, []byte(broken), 0o644))
	return pass, fail
}

// lastLine returns the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestReplay runs `loom-check replay`: status 0 when every script passes,
// 1 otherwise, with the count as the last line; the server is --server
// (with flags of its own) or, by default, a loom-results built from the
// module.
func TestReplay(t *testing.T) {
	t.Parallel()
	pass, fail := scripts(t)
	tests := []struct {
		name     string
		args     []string
		wantLast string
		status   int
		stderr   string
	}{
		{"pass", []string{"--server", server, pass}, "1 passed, 0 failed", 0, ""},
		{"pass with server flags", []string{"--server", server + " --max-results 9", pass}, "1 passed, 0 failed", 0, ""},
		{"fail", []string{"--server", server, pass, fail}, "1 passed, 1 failed", 1, "loom-check: replay: 1 script(s) failed\n"},
		{"a directory", []string{"--server", server, filepath.Dir(pass)}, "1 passed, 1 failed", 1, "loom-check: replay: 1 script(s) failed\n"},
		{"the default server", []string{pass}, "1 passed, 0 failed", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := check(t, append([]string{"replay"}, tt.args...)...)
			assert.Equal(t, tt.wantLast, lastLine(stdout), stdout)
			assert.Equal(t, tt.status, status, stdout)
			assert.Equal(t, tt.stderr, stderr)
		})
	}
}

// TestReplayRelativeServer: --server takes a relative path to the binary
// (bin/loom-results) from the working directory, though each script's
// server runs in the script's own temporary root.
func TestReplayRelativeServer(t *testing.T) {
	pass, _ := scripts(t)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	data, err := os.ReadFile(server)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "loom-results"), data, 0o755))
	t.Chdir(dir)
	status, stdout, stderr := check(t, "replay", "--server", "bin/loom-results", pass)
	assert.Equal(t, 0, status, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Equal(t, "1 passed, 0 failed", lastLine(stdout))
}

// TestDefaultServerOutsideTheModule: out of a checkout, the default server
// cannot be built; the command says so and what to do, with status 1.
func TestDefaultServerOutsideTheModule(t *testing.T) {
	pass, _ := scripts(t)
	t.Chdir(t.TempDir())
	status, stdout, stderr := check(t, "replay", pass)
	assert.Equal(t, 1, status)
	assert.Empty(t, stdout)
	assert.True(t, strings.HasPrefix(stderr, "loom-check: replay: building the default server (or name one with --server): go build loom-results/cmd/loom-results (run inside the module)"), stderr)
}

// history makes a git repository of two commits: a file, then one line of
// it changed.
func history(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("line %02d: some text to find it by %d", i, i))
	}
	before := strings.Join(lines, "\n") + "\n"
	lines[24] = "line 25: changed in the second commit"
	after := strings.Join(lines, "\n") + "\n"
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	git("init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(before), 0o644))
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(after), 0o644))
	git("commit", "-q", "-a", "-m", "second")
	return dir
}

// TestBenchEdits runs `loom-check bench-edits` over a two-commit history:
// the table or the JSON summary and status 0 when the file is preserved,
// status 1 after the summary when it is not; the server is --server or, by
// default, a loom-results built from the module.
func TestBenchEdits(t *testing.T) {
	t.Parallel()
	repo := history(t)
	const table = "1 files, 1 preserved (100.0%)"
	tests := []struct {
		name   string
		args   []string
		stdout string // in stdout; "{" for the JSON summary
		status int
		stderr string
	}{
		{"the table", []string{"--server", server}, table, 0, ""},
		{"the write agent", []string{"--server", server, "--agent", "write", "--answers", "full"}, table, 0, ""},
		{"JSON", []string{"--server", server, "--json"}, "{", 0, ""},
		{"not preserved", []string{"--server", server, "--server-flags", "--max-expand-bytes 100"}, "1 files, 0 preserved (0.0%)", 1, "loom-check: bench-edits: 1 of 1 files not preserved\n"},
		{"the default server", nil, table, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := check(t, append([]string{"bench-edits", "--repo", repo, "--commits", "0"}, tt.args...)...)
			assert.Equal(t, tt.status, status, stdout)
			assert.Equal(t, tt.stderr, stderr)
			if tt.stdout != "{" {
				assert.Contains(t, stdout, tt.stdout)
				return
			}
			var sum struct{ Commits, Files, Preserved int }
			require.NoError(t, json.Unmarshal([]byte(stdout), &sum), stdout)
			assert.Equal(t, struct{ Commits, Files, Preserved int }{2, 1, 1}, sum)
		})
	}
}
