//go:build unix

package workspace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// output collects a run's output; seen is closed when it first holds want.
type output struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newOutput(want string) *output { return &output{want: want, seen: make(chan struct{})} }

func (o *output) write(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	had := o.want != "" && strings.Contains(o.buf.String(), o.want)
	o.buf.Write(p)
	if o.want != "" && !had && strings.Contains(o.buf.String(), o.want) {
		close(o.seen)
	}
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// command is a Command of the given words.
func command(args ...string) Command {
	return Command{Name: "t", Line: strings.Join(args, " "), Args: args}
}

func openRoot(t *testing.T) (*Root, string) {
	t.Helper()
	dir := t.TempDir()
	r, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r, dir
}

func code(n int64) *int64 { return &n }

func TestRunExit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   *int64
		out    string
	}{
		{"exit 0", "echo ok", code(0), "ok\n"},
		{"exit 3", "echo failing; exit 3", code(3), "failing\n"},
		{"exit 255", "exit 255", code(255), ""},
		{"a signal", "echo bye; kill -KILL $$", nil, "bye\n"},
		{"its own SIGTERM", "kill -TERM $$", nil, ""},
		{"stdout and stderr in write order", "echo 1; echo 2 >&2; echo 3; echo 4 >&2", code(0), "1\n2\n3\n4\n"},
		{"standard input is empty", "cat; echo done", code(0), "done\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := openRoot(t)
			out := newOutput("")
			exit, err := r.Run(context.Background(), command("sh", "-c", tt.script), RunOptions{Timeout: time.Minute}, out.write)
			require.Nil(t, err)
			assert.Equal(t, tt.want, exit.Code)
			assert.False(t, exit.TimedOut)
			assert.False(t, exit.Cancelled)
			assert.Equal(t, tt.out, out.String())
		})
	}
}

// TestRunWhereAndWhat: the root is the working directory, the server's
// environment is the command's, with the run's marker, and a program with
// a "/" is found from the root.
func TestRunWhereAndWhat(t *testing.T) {
	r, dir := openRoot(t)
	t.Setenv("LOOM_RUN_TEST", "from the server")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "show.sh"), []byte("#!/bin/sh\npwd -P\necho \"$LOOM_RUN_TEST\"\necho \"marked=${LOOM_RESULTS_RUN:+yes}\"\necho \"$@\"\n"), 0o755))
	out := newOutput("")
	exit, err := r.Run(context.Background(), command("./bin/show.sh", "a b", "$c"), RunOptions{}, out.write)
	require.Nil(t, err)
	assert.Equal(t, code(0), exit.Code)
	real, rerr := filepath.EvalSymlinks(dir)
	require.NoError(t, rerr)
	assert.Equal(t, real+"\nfrom the server\nmarked=yes\na b $c\n", out.String())
}

func TestRunCannotRun(t *testing.T) {
	t.Parallel()
	r, dir := openRoot(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain.sh"), []byte("echo hi\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"no-such-program-loom"}, `command t: program "no-such-program-loom" not found in PATH; the program is missing or not executable, and only the person who named the command with --run can fix that`},
		{[]string{"./missing", "x"}, `command t: cannot run "./missing": no such file or directory; the program is missing or not executable, and only the person who named the command with --run can fix that`},
		{[]string{"./plain.sh"}, `command t: cannot run "./plain.sh": permission denied; the program is missing or not executable, and only the person who named the command with --run can fix that`},
		{[]string{"./sub"}, `command t: cannot run "./sub": permission denied; the program is missing or not executable, and only the person who named the command with --run can fix that`},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			t.Parallel()
			_, err := r.Run(context.Background(), command(tt.args...), RunOptions{}, func([]byte) { t.Error("no output expected") })
			require.NotNil(t, err)
			assert.Equal(t, errcode.CannotRun, err.Code)
			assert.Equal(t, tt.want, err.Msg)
		})
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	t.Run("ended by SIGTERM", func(t *testing.T) {
		t.Parallel()
		r, _ := openRoot(t)
		out := newOutput("")
		exit, err := r.Run(context.Background(), command("sh", "-c", "echo started; exec sleep 300"), RunOptions{Timeout: 50 * time.Millisecond}, out.write)
		require.Nil(t, err)
		assert.True(t, exit.TimedOut)
		assert.False(t, exit.Cancelled)
		assert.Nil(t, exit.Code, "a signal ended it")
		assert.Equal(t, "started\n", out.String(), "what was written before the timeout is kept")
		assert.Less(t, exit.Ended, KillGrace, "SIGTERM was enough")
	})
	t.Run("exits on SIGTERM with its own code", func(t *testing.T) {
		t.Parallel()
		r, _ := openRoot(t)
		out := newOutput("")
		// The shell runs the trap once the sleep it waits for ends: the
		// group's SIGTERM ends both.
		exit, err := r.Run(context.Background(), command("sh", "-c", `trap 'echo cleaning up; exit 7' TERM; echo ready; sleep 300`),
			RunOptions{Timeout: time.Second}, out.write)
		require.Nil(t, err)
		assert.True(t, exit.TimedOut)
		assert.Equal(t, code(7), exit.Code)
		// (The shell may report the sleep's end: "Terminated".)
		assert.True(t, strings.HasPrefix(out.String(), "ready\n") && strings.HasSuffix(out.String(), "cleaning up\n"), out.String())
	})
}

// TestRunKillAfterGrace: a command that ignores SIGTERM gets SIGKILL once
// the grace period has passed.
func TestRunKillAfterGrace(t *testing.T) {
	t.Parallel()
	r, _ := openRoot(t)
	out := newOutput("ready")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-out.seen
		cancel()
	}()
	// An ignored signal stays ignored across exec: sleep ignores it too.
	exit, err := r.Run(ctx, command("sh", "-c", `trap '' TERM; echo ready; sleep 300; echo not reached`), RunOptions{Grace: 100 * time.Millisecond}, out.write)
	require.Nil(t, err)
	assert.True(t, exit.Cancelled)
	assert.False(t, exit.TimedOut)
	assert.Nil(t, exit.Code)
	assert.Equal(t, "ready\n", out.String())
	assert.GreaterOrEqual(t, exit.Ended, 100*time.Millisecond, "SIGKILL only after the grace period")
}

func TestRunCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	r, dir := openRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	exit, err := r.Run(ctx, command("touch", "ran"), RunOptions{}, func([]byte) {})
	require.Nil(t, err)
	assert.Equal(t, Exit{Cancelled: true}, exit)
	assert.NoFileExists(t, filepath.Join(dir, "ran"))
}

// TestRunEndsDescendants: no process the command started outlives the
// call, whether it stayed in the command's process group or left it, held
// the output pipe or not, and whether the command exited on its own, timed
// out or was cancelled. Each script prints the PIDs to check, one a line.
func TestRunEndsDescendants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		script  string
		timeout time.Duration
	}{
		{"a background child", `sleep 300 & echo $!`, 0},
		{"a setsid child", `setsid sleep 300 & echo $!`, 0},
		{"a double-forking daemon", `setsid sh -c 'sleep 300 & echo $!' & wait`, 0},
		{"a daemon that let go of the output", `setsid sh -c 'sleep 300 >/dev/null 2>&1 & echo $!' & wait`, 0},
		{"a daemon that ignores SIGTERM", `setsid sh -c "trap '' TERM; sleep 300 & echo \$!" & wait`, 0},
		{"descendants of a command that times out", `setsid sleep 300 & echo $!; sleep 300 & echo $!; wait`, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := openRoot(t)
			out := newOutput("")
			exit, err := r.Run(context.Background(), command("sh", "-c", tt.script), RunOptions{Timeout: tt.timeout, Grace: 200 * time.Millisecond}, out.write)
			require.Nil(t, err)
			assert.Equal(t, tt.timeout > 0, exit.TimedOut)
			pids := strings.Fields(out.String())
			require.NotEmpty(t, pids)
			for _, s := range pids {
				pid, err := strconv.Atoi(s)
				require.NoError(t, err, out.String())
				assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d outlived the call", pid)
			}
		})
	}
}
