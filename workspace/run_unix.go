//go:build unix && !linux

package workspace

import (
	"os/exec"
	"syscall"
	"time"
)

// Outside Linux a run ends its command's process group only: there is no
// child subreaper to keep a process that left the group (setsid, a
// daemon) below the server, and such a process can outlive the call.

// setProcessGroup puts the command in a process group of its own.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// tracked is a started command and its process group.
type tracked struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{}
}

func startTracked(cmd *exec.Cmd, _ string) (*tracked, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &tracked{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(t.done)
	}()
	return t, nil
}

func (t *tracked) exited() <-chan struct{} { return t.done }

func (t *tracked) wait() *int64 {
	<-t.done
	return exitCode(t.cmd.ProcessState)
}

// alive reports whether any process is left in the group.
func (t *tracked) alive() bool { return syscall.Kill(-t.pid, 0) == nil }

// end sends the group SIGTERM, and SIGKILL when any member is left after
// grace.
func (t *tracked) end(grace time.Duration) {
	if !t.alive() {
		return
	}
	syscall.Kill(-t.pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for pause := time.Millisecond; time.Now().Before(deadline); pause = min(2*pause, 50*time.Millisecond) {
		time.Sleep(min(pause, time.Until(deadline)))
		if !t.alive() {
			return
		}
	}
	syscall.Kill(-t.pid, syscall.SIGKILL)
}
