package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: its controlling side and the
// terminal a process reads from.
func openPTY(t *testing.T) (control, term *os.File) {
	t.Helper()
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	control = os.NewFile(uintptr(m), "/dev/ptmx")
	t.Cleanup(func() { control.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0), "unlock the terminal")
	n, err := unix.IoctlGetUint32(m, unix.TIOCGPTN)
	require.NoError(t, err)
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	s, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	term = os.NewFile(uintptr(s), name)
	t.Cleanup(func() { term.Close() })
	return control, term
}

// TestGreetOnATerminal: run by hand, its standard input a terminal, the
// server writes one line to stderr (SPEC section 2): it serves the root
// over stdio and waits for an MCP client, where the README shows how to
// connect one, and Ctrl-C quits; Ctrl-C then ends it with status 0.
func TestGreetOnATerminal(t *testing.T) {
	_, term := openPTY(t)
	root := t.TempDir()
	want := "loom-results: serving " + root + " over stdio: waiting for an MCP client to start it " +
		"(the README's \"Using it from an agent\" shows how to connect one); Ctrl-C quits\n"

	var out testWriter
	greet(term, &out, root)
	assert.Equal(t, want, string(out), "a terminal gets the line")

	bin := buildBinary(t)
	cmd := exec.Command(bin, "--root", root)
	cmd.Stdin = term
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, want, line)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "Ctrl-C exits with status 0")
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not exit on SIGINT")
	}
}

type testWriter []byte

func (w *testWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }
