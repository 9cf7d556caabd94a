package main

import (
	"bytes"
	"context"
	"errors"

	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"negative limit", []string{"--max-lookups", "-1"}, "max-lookups"},
		{"page size zero", []string{"--page-size", "0"}, "page-size"},
		{"bad context", []string{"--context", "wide"}, `--context "wide"`},
		{"unknown flag", []string{"--nope"}, "nope"},
		{"stray argument", []string{"extra"}, `unexpected argument "extra"`},
		{"missing root", []string{"--root", "/does/not/exist"}, "--root"},
		{"non-loopback HTTP without a token", []string{"--http", "0.0.0.0:0"}, "--http"},
		{"negative memory slack", []string{"--memory-slack", "-1"}, "memory-slack"},
		{"no sessions", []string{"--http", "127.0.0.1:0", "--max-sessions", "0"}, "max-sessions"},
		{"zero read timeout", []string{"--http", "127.0.0.1:0", "--http-read-timeout", "0s"}, "--http-read-timeout 0s: must be positive"},
		{"zero write timeout", []string{"--http", "127.0.0.1:0", "--http-write-timeout", "0s"}, "--http-write-timeout 0s: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
			var usage usageError
			require.True(t, errors.As(err, &usage), "want a usage error, got %v", err)
			assert.Contains(t, stderr.String(), tt.want)
		})
	}
}

func TestRunEndOfInput(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}` + "\n"
	require.NoError(t, run(context.Background(), []string{"--root", t.TempDir()}, strings.NewReader(in), &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), `"text":"step 2"`)
}

// TestSignals starts the real binary and ends it with SIGINT and SIGTERM
// while it waits on its input: it exits with status 0 (SPEC section 2).
func TestSignals(t *testing.T) {
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "--root", t.TempDir())
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			// One answered request shows the server is up and reading.
			_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}` + "\n"))
			require.NoError(t, err)
			buf := make([]byte, 1)
			_, err = stdout.Read(buf)
			require.NoError(t, err)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				assert.NoError(t, err, "exit status 0")
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the server did not exit")
			}
		})
	}
}

// TestInitWork runs the binary with the runtime's init trace and sums what
// package initialisation allocates before main. Start-up is most of the time
// to a served tools/list (README, Performance). The JSON Schema module that
// mcp-go's server package imports for its optional validation compiles five
// drafts' metaschemas at init (about 1.7 MB); this server validates no
// schema, but a module installed with go install cannot patch it, so it is
// the one package left out (schemaModule). Every other package, and all of
// them together, are held to what they allocate today, in bytes, which do
// not vary with the machine.
func TestInitWork(t *testing.T) {
	const schemaModule = "github.com/santhosh-tekuri/jsonschema/v6"
	cmd := exec.Command(buildBinary(t), "--root", t.TempDir())
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	total, packages := 0, 0
	for line := range strings.Lines(stderr.String()) {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," || f[1] == schemaModule {
			continue
		}
		n, err := strconv.Atoi(f[7])
		require.NoError(t, err, line)
		assert.Less(t, n, 256<<10, "one package's init allocates this much: %s", line)
		total += n
		packages++
	}
	require.Greater(t, packages, 10, "no init trace in stderr:\n%s", stderr.String())
	assert.Less(t, total, 512<<10, "all package inits together")
}

// buildBinary builds this command into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "loom-results")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// TestReplayRelativeServer: replay --server takes a relative path to the
// binary (bin/loom-results) from the working directory, though each
// script's server runs in the script's own temporary root.
func TestReplayRelativeServer(t *testing.T) {
	script, err := filepath.Abs("../../conformance/testdata/begin_step.txtar")
	require.NoError(t, err)
	bin := buildBinary(t)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Rename(bin, filepath.Join(dir, "bin", "loom-results")))
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"replay", "--server", "bin/loom-results", script}, strings.NewReader(""), &stdout, &stderr)
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "1 passed, 0 failed")
}
