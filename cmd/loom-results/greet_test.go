package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGreetNotATerminal: a server that a client starts (its standard
// input a pipe) writes nothing to stderr (SPEC section 2), from start to
// its exit at the end of input.
func TestGreetNotATerminal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	cmd := exec.Command(bin, "--root", t.TempDir())
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run())
	assert.Contains(t, stdout.String(), `"text":"step 2"`)
	assert.Equal(t, "", stderr.String())

	var out bytes.Buffer
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	w.Close()
	greet(r, &out, "/root")
	greet(strings.NewReader(""), &out, "/root")
	assert.Equal(t, "", out.String(), "a pipe, or a reader that is not a file, is not a terminal")
}

// TestRunProgramChecked: each --run program is looked up when the server
// starts, as run looks it up when it runs (through PATH unless it holds a
// "/", a relative path relative to the root); one that is missing or not
// executable exits with status 2 and a message that names the command and
// the program (SPEC section 2).
func TestRunProgramChecked(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "ok.sh"), []byte("#!/bin/sh\necho ok\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "plain.sh"), []byte("#!/bin/sh\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	const top = "run 'loom-results --help' for usage\n"
	tests := []struct {
		name string
		run  string
		want string // stderr; "" starts and serves
	}{
		{"in PATH", "t=sh -c true", ""},
		{"relative to the root, not to the working directory", "t=./ok.sh", ""},
		{"an absolute path", "t=" + filepath.Join(root, "ok.sh"), ""},
		{"not in PATH", "x=nosuchcmd-loom-results", `loom-results: --run x=nosuchcmd-loom-results: program "nosuchcmd-loom-results" is not found in PATH: install it, or name it by its path` + "\n" + top},
		{"missing under the root", "t=./missing.sh", `loom-results: --run t=./missing.sh: program "./missing.sh" (relative to the root) cannot run: no such file or directory` + "\n" + top},
		{"not executable", "t=./plain.sh -v", `loom-results: --run t=./plain.sh -v: program "./plain.sh" (relative to the root) cannot run: permission denied` + "\n" + top},
		{"a directory", "t=sub/", `loom-results: --run t=sub/: program "sub/" (relative to the root) cannot run: is a directory` + "\n" + top},
		{"an absolute path that is missing", "t=/nonexistent/loom-results-prog", `loom-results: --run t=/nonexistent/loom-results-prog: program "/nonexistent/loom-results-prog" cannot run: no such file or directory` + "\n" + top},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := status(run(context.Background(), []string{"--root", root, "--run", tt.run}, strings.NewReader(""), &stdout, &stderr), &stderr)
			assert.Equal(t, tt.want, stderr.String())
			if tt.want == "" {
				assert.Equal(t, 0, got)
			} else {
				assert.Equal(t, 2, got)
				assert.Empty(t, stdout.String())
			}
		})
	}
}
