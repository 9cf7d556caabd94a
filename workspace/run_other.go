//go:build !unix

package workspace

import (
	"os/exec"
	"time"
)

// Without process groups (Windows) a run ends the command's own process
// only: the processes it started can outlive the call.

func setProcessGroup(*exec.Cmd) {}

// tracked is a started command.
type tracked struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startTracked(cmd *exec.Cmd, _ string) (*tracked, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &tracked{cmd: cmd, done: make(chan struct{})}
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

// end kills the command when it is still running; there is no gentler
// signal to send first.
func (t *tracked) end(time.Duration) {
	select {
	case <-t.done:
	default:
		t.cmd.Process.Kill()
	}
}
