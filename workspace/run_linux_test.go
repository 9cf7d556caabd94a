package workspace

import (
	"context"
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

// TestRunEndsDescendantsByScan: where the kernel lists no task's children,
// a run finds its processes by reading every process's stat, and ends the
// same ones. Not parallel: it sets scanProcs while no other test runs.
func TestRunEndsDescendantsByScan(t *testing.T) {
	scanProcs = true
	defer func() { scanProcs = false }()
	r, _ := openRoot(t)
	out := newOutput("")
	script := `setsid sleep 300 & echo $!; sleep 300 & echo $!; setsid sh -c 'sleep 300 & echo $!' & wait`
	exit, err := r.Run(context.Background(), command("sh", "-c", script), RunOptions{Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond}, out.write)
	require.Nil(t, err)
	assert.True(t, exit.TimedOut)
	pids := strings.Fields(out.String())
	require.Len(t, pids, 3, out.String())
	for _, s := range pids {
		pid, err := strconv.Atoi(s)
		require.NoError(t, err)
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d outlived the call", pid)
	}
}

// cgroupModes are the ways a run can hold its processes on this machine:
// a cgroup of its own where the server may create one, and the fallback
// (process group, subreaper and /proc), forced through noCgroups.
func cgroupModes(t *testing.T) []bool {
	t.Helper()
	modes := []bool{false}
	// Tried, not guessed: a cgroup v2 that the user may not write (not
	// root, not delegated) makes none.
	if cg := newRunCgroup(); cg != nil {
		cg.remove()
		modes = append(modes, true)
	} else {
		t.Log("this machine lets the server create no cgroup: only the fallback runs")
	}
	return modes
}

func modeName(cgroup bool) string {
	if cgroup {
		return "cgroup"
	}
	return "no cgroup"
}

// setCgroups turns the cgroups on or off for a test that runs alone.
func setCgroups(t *testing.T, on bool) {
	noCgroups.Store(!on)
	t.Cleanup(func() { noCgroups.Store(false) })
}

// daemonScript is a command that waits for NAME.spawn (when wait is set),
// starts a daemon that leaves its session and clears its environment
// (setsid env -i) and writes its PID to NAME.pid, prints its own cgroup,
// then waits for NAME.release and exits.
func daemonScript(t *testing.T, name string, wait bool) string {
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	s := ""
	if wait {
		s = `while [ ! -e ` + name + `.spawn ]; do sleep 0.01; done; `
	}
	return s + `setsid env -i sh -c 'echo $$ > ` + name + `.pid.tmp && mv ` + name + `.pid.tmp ` + name + `.pid; exec ` + sleep + ` 60' & ` +
		`while [ ! -e ` + name + `.pid ]; do sleep 0.01; done; cat /proc/self/cgroup; ` +
		`while [ ! -e ` + name + `.release ]; do sleep 0.01; done`
}

// waitPID waits for the daemon's PID file in dir.
func waitPID(t *testing.T, dir, name string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, name+".pid"))
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err)
			return pid
		}
		require.True(t, time.Now().Before(deadline), "no %s.pid", name)
		time.Sleep(5 * time.Millisecond)
	}
}

func touch(t *testing.T, dir, name string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
}

// alive reports whether pid is a process (a zombie counts: the server
// must reap what it ends).
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// bgRun is a run going on in the background.
type bgRun struct {
	done chan struct{}
	out  *output
	exit Exit
}

func startRun(t *testing.T, r *Root, script string) *bgRun {
	b := &bgRun{done: make(chan struct{}), out: newOutput("")}
	go func() {
		defer close(b.done)
		exit, err := r.Run(context.Background(), command("sh", "-c", script), RunOptions{Grace: 200 * time.Millisecond}, b.out.write)
		if err != nil {
			b.out.write([]byte("error: " + err.Error()))
		}
		b.exit = exit
	}()
	return b
}

func (b *bgRun) wait(t *testing.T) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not end")
	}
	require.NotNil(t, b.exit.Code, b.out.String())
	require.Equal(t, int64(0), *b.exit.Code, b.out.String())
}

// TestRunEndsEnvClearedDaemon: a daemon that left the command's session
// and cleared its environment (no RunMarker) is ended, and reaped, before
// the call answers, in a cgroup and without; 3 runs one after another.
// Not parallel: the runs of other tests would share its orphans.
func TestRunEndsEnvClearedDaemon(t *testing.T) {
	for _, cg := range cgroupModes(t) {
		t.Run(modeName(cg), func(t *testing.T) {
			setCgroups(t, cg)
			for i := range 3 {
				r, dir := openRoot(t)
				touch(t, dir, "a.release")
				b := startRun(t, r, daemonScript(t, "a", false))
				b.wait(t)
				pid := waitPID(t, dir, "a")
				assert.False(t, alive(pid), "run %d: the daemon %d outlived the call", i, pid)
				assert.Equal(t, cg, strings.Contains(b.out.String(), "/loom-results-"), "the command's cgroup: %s", b.out.String())
			}
		})
	}
}

// TestRunOverlappingDaemons: two runs at once, each with a daemon that
// does setsid and env -i. A daemon survives while the run that started it
// is going; without a cgroup, one that either run could have started (it
// began after both) survives until the last of them ends, and one that
// only the ending run could have started (it began before the other run)
// ends with it; with a cgroup each ends with its own run. None survives
// the last run. Not parallel.
func TestRunOverlappingDaemons(t *testing.T) {
	gap := 60 * time.Millisecond // several clock ticks between starts
	for _, cg := range cgroupModes(t) {
		t.Run(modeName(cg)+"/the second ends while the first runs", func(t *testing.T) {
			setCgroups(t, cg)
			r, dir := openRoot(t)
			a := startRun(t, r, daemonScript(t, "a", false))
			da := waitPID(t, dir, "a")
			time.Sleep(gap)
			b := startRun(t, r, daemonScript(t, "b", false))
			db := waitPID(t, dir, "b")
			touch(t, dir, "b.release")
			b.wait(t)
			assert.True(t, alive(da), "the first run's daemon ended while the first run was going")
			assert.Equal(t, !cg, alive(db), "the second run's daemon after the second run (either run could have started it)")
			touch(t, dir, "a.release")
			a.wait(t)
			assert.False(t, alive(da), "a daemon survived the last run")
			assert.False(t, alive(db), "a daemon survived the last run")
		})
		t.Run(modeName(cg)+"/the first ends, its daemon began after the second", func(t *testing.T) {
			setCgroups(t, cg)
			r, dir := openRoot(t)
			a := startRun(t, r, daemonScript(t, "a", true))
			time.Sleep(gap)
			b := startRun(t, r, daemonScript(t, "b", false))
			db := waitPID(t, dir, "b")
			time.Sleep(gap)
			touch(t, dir, "a.spawn")
			da := waitPID(t, dir, "a")
			touch(t, dir, "a.release")
			a.wait(t)
			assert.True(t, alive(db), "the second run's daemon ended while the second run was going")
			assert.Equal(t, !cg, alive(da), "the first run's daemon after the first run (either run could have started it)")
			touch(t, dir, "b.release")
			b.wait(t)
			assert.False(t, alive(da), "a daemon survived the last run")
			assert.False(t, alive(db), "a daemon survived the last run")
		})
		t.Run(modeName(cg)+"/the first ends, its daemon began before the second", func(t *testing.T) {
			setCgroups(t, cg)
			r, dir := openRoot(t)
			a := startRun(t, r, daemonScript(t, "a", false))
			da := waitPID(t, dir, "a")
			time.Sleep(gap)
			b := startRun(t, r, daemonScript(t, "b", false))
			db := waitPID(t, dir, "b")
			touch(t, dir, "a.release")
			a.wait(t)
			assert.False(t, alive(da), "the first run's daemon survived it though only it could have started it")
			assert.True(t, alive(db), "the second run's daemon ended while the second run was going")
			touch(t, dir, "b.release")
			b.wait(t)
			assert.False(t, alive(db), "a daemon survived the last run")
		})
	}
}

// TestRunLeavesServerChildren: a child that the server started itself,
// not as a run (in its own process group), is neither ended nor reaped
// when a run ends. Not parallel.
func TestRunLeavesServerChildren(t *testing.T) {
	for _, cg := range cgroupModes(t) {
		t.Run(modeName(cg), func(t *testing.T) {
			setCgroups(t, cg)
			own := exec.Command("sleep", "60")
			require.NoError(t, own.Start())
			defer func() { own.Process.Kill(); own.Wait() }()
			r, dir := openRoot(t)
			touch(t, dir, "a.release")
			b := startRun(t, r, daemonScript(t, "a", false))
			b.wait(t)
			assert.False(t, alive(waitPID(t, dir, "a")))
			assert.True(t, alive(own.Process.Pid), "the server's own child was ended")
			require.NoError(t, own.Process.Kill())
			err := own.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the server's own child was reaped by a run")
			assert.Equal(t, "signal: killed", ee.Error())
		})
	}
}
