package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loom-results/loom-results/errcode"
)

// KillGrace is how long the processes of a run that is being ended have
// between SIGTERM and SIGKILL (SPEC section 10).
const KillGrace = 5 * time.Second

// RunMarker is the environment variable that every run adds to the
// server's environment, set to a value of its own: a process that left the
// command's process group and outlived its parent (a daemon, a setsid
// child) is known by it as the run's, so that it is ended with the run.
const RunMarker = "LOOM_RESULTS_RUN"

// pipeDrain bounds the wait for the end of the output once every process
// of the run has been ended: a process that escaped the run (a
// platform without a child subreaper or cgroups, or a daemon that another
// run going at the same time could have started) may still hold the pipe,
// and the call must not wait for it.
const pipeDrain = time.Second

// readChunk is the size of each read of the output pipe.
const readChunk = 64 << 10

// RunOptions bound one run.
type RunOptions struct {
	// Timeout ends the command when it runs longer (--run-timeout); 0 is
	// no limit.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; 0 is KillGrace.
	Grace time.Duration
}

// Exit is how a run ended.
type Exit struct {
	// Code is the command's exit status; nil when a signal ended it (or it
	// never started, cancelled before its turn).
	Code *int64
	// TimedOut: the command ran past the timeout and was ended.
	TimedOut bool
	// Cancelled: the caller's context ended the command (a client's
	// cancellation, or the server's shutdown).
	Cancelled bool
	// Elapsed is the time from the start to the moment every process of
	// the run had ended; Ended the part of it after the command was told
	// to end (timed out or cancelled), 0 otherwise.
	Elapsed, Ended time.Duration
}

var runSeq atomic.Int64

// Run runs c with the root as its working directory, the server's
// environment (and RunMarker), standard input empty (/dev/null), and
// standard output and standard error joined into one pipe, so that out
// gets the output in the order it was written. out is called from one
// goroutine at a time, with chunks that are not kept after it returns.
//
// The command runs in a process group of its own. When it runs past
// opts.Timeout, or ctx ends, the group and every other process the command
// started are sent SIGTERM, and SIGKILL after the grace period if any is
// left; when the command exits on its own, what it left running is ended
// the same way. Where the platform allows it (Linux: a cgroup of the run's
// own, or the server as a child subreaper), that includes processes that
// left the group. Run returns
// once all of them have ended and the output has been read.
//
// A program that cannot be started (not found, not executable) is
// cannot_run, with the system's reason. A ctx that ended before the start
// starts nothing: Exit.Cancelled, no code.
func (r *Root) Run(ctx context.Context, c Command, opts RunOptions, out func([]byte)) (Exit, *errcode.Error) {
	if ctx.Err() != nil {
		return Exit{Cancelled: true}, nil
	}
	grace := opts.Grace
	if grace <= 0 {
		grace = KillGrace
	}
	prog, err := program(c.Args[0])
	if err != nil {
		return Exit{}, cannotRun(c, err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Exit{}, errcode.New(errcode.CannotRun, "command %s: cannot make its output pipe: %v", c.Name, err)
	}
	marker := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(runSeq.Add(1), 10)
	cmd := &exec.Cmd{
		Path:   prog,
		Args:   c.Args,
		Dir:    r.dir,
		Env:    append(os.Environ(), RunMarker+"="+marker),
		Stdout: pw,
		Stderr: pw, // the same *os.File: one pipe, in write order
	}
	setProcessGroup(cmd)
	start := time.Now()
	procs, err := startTracked(cmd, marker)
	pw.Close()
	if err != nil {
		pr.Close()
		return Exit{}, cannotRun(c, err)
	}

	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, readChunk)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				out(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()

	var exit Exit
	exited := procs.exited()
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var told time.Time
	select {
	case <-exited:
	case <-timeout:
		exit.TimedOut = true
	case <-ctx.Done():
		exit.Cancelled = true
	}
	if exit.TimedOut || exit.Cancelled {
		told = time.Now()
		procs.end(grace)
		<-exited
	}
	// What the command left running.
	procs.end(grace)
	if !told.IsZero() {
		exit.Ended = time.Since(told)
	}
	code := procs.wait()
	exit.Code = code
	exit.Elapsed = time.Since(start)

	pr.SetReadDeadline(time.Now().Add(pipeDrain))
	<-read
	pr.Close()
	return exit, nil
}

// program is the path of the program a command names: found through PATH
// unless it holds a "/" (a relative path is then relative to the root, the
// command's working directory).
func program(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	return exec.LookPath(name)
}

// cannotRunHint ends a cannot_run message: the model cannot change a
// command, so it says who can (SPEC section 8).
const cannotRunHint = "; the program is missing or not executable, and only the person who named the command with --run can fix that"

// cannotRun is the error of a program that cannot be started, with the
// system's reason.
func cannotRun(c Command, err error) *errcode.Error {
	if err = unwrapExec(err); errors.Is(err, exec.ErrNotFound) {
		return errcode.New(errcode.CannotRun, "command %s: program %q not found in PATH%s", c.Name, c.Args[0], cannotRunHint)
	}
	return errcode.New(errcode.CannotRun, "command %s: cannot run %q: %s%s", c.Name, c.Args[0], reason(err), cannotRunHint)
}

// String renders an exit for messages: "exit 1", "killed by a signal".
func (e Exit) String() string {
	var s string
	if e.Code != nil {
		s = fmt.Sprintf("exit %d", *e.Code)
	} else {
		s = "ended by a signal"
	}
	if e.TimedOut {
		s += ", timed out"
	}
	if e.Cancelled {
		s += ", cancelled"
	}
	return s
}

// exitCode is a finished command's exit status, nil when a signal ended
// it.
func exitCode(ps *os.ProcessState) *int64 {
	if ps == nil {
		return nil
	}
	code := ps.ExitCode()
	if code < 0 {
		return nil
	}
	c := int64(code)
	return &c
}
