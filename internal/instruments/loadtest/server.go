package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// serverProc is the server under load, started by this program.
type serverProc struct {
	cmd  *exec.Cmd
	url  string
	log  *tailBuffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done is closed
}

// urlLine is the log line ServeHTTP writes once it listens.
var urlLine = regexp.MustCompile(`serving MCP \(Streamable HTTP\) at (http://\S+/mcp)`)

// startServer runs bin with --http on an ephemeral loopback port and
// waits for the URL it logs.
func startServer(ctx context.Context, bin string, args, env []string) (*serverProc, error) {
	cmd := exec.Command(bin, append([]string{"--http", "127.0.0.1:0"}, args...)...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serverProc{cmd: cmd, log: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	found := make(chan string, 1)
	var drained sync.WaitGroup
	drained.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.log.WriteString(line + "\n")
			if m := urlLine.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	})
	go func() {
		drained.Wait() // Wait must not run before stderr is read to its end
		p.err = cmd.Wait()
		close(p.done)
	}()

	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	select {
	case p.url = <-found:
	case <-p.done:
		return nil, fmt.Errorf("%s exited before serving: %v\n%s", bin, p.err, p.log)
	case <-timeout.C:
		p.stop()
		return nil, fmt.Errorf("%s logged no URL within 20 s:\n%s", bin, p.log)
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	u, err := url.Parse(p.url)
	if err != nil || u.Hostname() != "127.0.0.1" {
		p.stop()
		return nil, fmt.Errorf("server URL %q is not on 127.0.0.1", p.url)
	}
	return p, nil
}

// peakRSS reads the process's peak resident set (VmHWM) in bytes.
func (p *serverProc) peakRSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// ProcessCPU reads a process's user and system time from /proc/<pid>/stat
// (fields 14 and 15, in clock ticks of 1/100 s, Linux's USER_HZ).
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc/<pid>/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("malformed /proc/<pid>/stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// stop ends the server with SIGTERM (SPEC section 2: status 0), killing
// it if it has not exited 5 s later, and returns how it exited.
func (p *serverProc) stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-p.done:
		return p.err
	case <-t.C:
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("still running 5 s after SIGTERM, killed")
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) WriteString(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.WriteString(s)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
