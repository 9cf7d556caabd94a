//go:build linux

// Command writeattack attacks write_file as a hostile environment would,
// through a loom-results binary as a process, and counts what it loses or
// leaves behind (SPEC section 9). It takes the binary to attack, so that
// two builds can be compared side by side:
//
//	go build -o /tmp/before ./cmd/loom-results   # at the commit before
//	go build -o /tmp/after ./cmd/loom-results
//	go run ./internal/writeattack --server /tmp/before --server /tmp/after [--attacks LIST] [--runs N]
//
// The attacks (--attacks, comma-separated; default all):
//
//   - appends-http: two sessions of one --http server append a line to
//     one file, each from a freshly inspected base, --appends times each;
//     counted: writes answered as written that are missing at the end.
//   - appends-proc: the same from two stdio server processes.
//   - sigkill, sigterm: --kills times, a 12 MiB write_file over stdio gets
//     the signal at a random instant of its temporary file's life: after
//     its first write (seen by inotify, named or anonymous), uniform over
//     the time that life lasts in an undisturbed write (until the target's
//     name is moved or linked to it); counted: temporary files left,
//     targets neither old nor new, and (sigterm) exits with a status
//     other than 0.
//   - sigkill-link: --kills times, a write over stdio of an existing file
//     gets SIGKILL at the instant its anonymous temporary file has been
//     linked under its temporary name and is not yet renamed: the server
//     runs on CPU 0 alone, and the attack waits for the link's inotify
//     event on a thread of its own pinned there at real-time priority
//     (SCHED_FIFO, so root), which runs before the server's next system
//     call. Then a new server writes the file once; counted: kills that
//     left a temporary file, and temporary files left after the new
//     server's write.
//   - swap: while 200 writes of new files into d/ run over stdio, the
//     attack swaps d with a symbolic link out of the root (renameat2
//     RENAME_EXCHANGE); counted: temporary files left, files outside.
//
// It prints one line per binary and attack and run.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
)

type servers []string

func (s *servers) String() string     { return strings.Join(*s, ",") }
func (s *servers) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var bins servers
	flag.Var(&bins, "server", "a loom-results binary to attack (repeatable)")
	attacks := flag.String("attacks", "appends-http,appends-proc,sigkill,sigterm,swap", "the attacks to run (sigkill-link too, which needs root)")
	runs := flag.Int("runs", 3, "runs of each attack")
	appends := flag.Int("appends", 40, "appends of each writer (appends-http, appends-proc)")
	kills := flag.Int("kills", 10, "signals of a run (sigkill, sigterm)")
	flag.Parse()
	if len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "writeattack: give at least one --server")
		os.Exit(2)
	}
	ctx := context.Background()
	for run := range *runs {
		for _, attack := range strings.Split(*attacks, ",") {
			for _, bin := range bins {
				var line string
				var err error
				switch attack {
				case "appends-http":
					line, err = appendsHTTP(ctx, bin, *appends)
				case "appends-proc":
					line, err = appendsProc(ctx, bin, *appends)
				case "sigkill":
					line, err = signals(ctx, bin, syscall.SIGKILL, *kills)
				case "sigterm":
					line, err = signals(ctx, bin, syscall.SIGTERM, *kills)
				case "swap":
					line, err = swap(ctx, bin)
				case "sigkill-link":
					line, err = sigkillLink(ctx, bin, *kills)
				default:
					err = fmt.Errorf("unknown attack %q", attack)
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "writeattack: %s %s: %v\n", attack, bin, err)
					os.Exit(1)
				}
				fmt.Printf("run %d  %-12s  %-24s  %s\n", run+1, attack, bin, line)
			}
		}
	}
}

// appendLine is the write_file arguments that append line to path, whose
// inspected text is the result id.
func appendArgs(path, id, line string) string {
	return fmt.Sprintf(`{"path":%q,"base":%q,"compose":[{"result":%q},%q]}`, path, id, id, line)
}

// toolResult is what the attacks read of an answer.
type toolResult struct {
	Result *struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Results []struct {
				ID *string `json:"id"`
			} `json:"results"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// appender is one writer of the append attacks: call sends a tools/call
// and returns its answer.
type appender func(tool, args string) (*toolResult, error)

// appendAll appends n lines tagged tag to log.txt through call, retrying
// each after a conflict; it returns the lines answered as written.
func appendAll(call appender, tag string, n int) ([]string, int, error) {
	var written []string
	conflicts := 0
	for i := 0; i < n; {
		r, err := call("inspect", `{"paths":["log.txt"]}`)
		if err != nil {
			return nil, 0, err
		}
		id := r.Result.StructuredContent.Results[0].ID
		if id == nil {
			return nil, 0, errors.New("inspect answered no result ID")
		}
		line := fmt.Sprintf("%s %d\n", tag, i)
		if _, err := call("begin_step", `{}`); err != nil {
			return nil, 0, err
		}
		r, err = call("write_file", appendArgs("log.txt", *id, line))
		switch {
		case err != nil:
			return nil, 0, err
		case !r.Result.IsError:
			written = append(written, line)
			i++
		case r.Result.StructuredContent.Error != nil && r.Result.StructuredContent.Error.Code == "conflict":
			conflicts++
		default:
			return nil, 0, fmt.Errorf("write_file: %+v", r.Result.StructuredContent.Error)
		}
	}
	return written, conflicts, nil
}

// lost counts the lines of written missing from the file.
func lost(path string, written [][]string) (int, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	have := map[string]bool{}
	for _, l := range strings.SplitAfter(string(data), "\n") {
		have[l] = true
	}
	n, total := 0, 0
	for _, w := range written {
		for _, l := range w {
			total++
			if !have[l] {
				n++
			}
		}
	}
	return n, total, nil
}

func newRoot(files map[string]string) (string, error) {
	dir, err := os.MkdirTemp("", "writeattack-")
	if err != nil {
		return "", err
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

var urlLine = regexp.MustCompile(`serving MCP \(Streamable HTTP\) at (http://\S+/mcp)`)

// appendsHTTP runs two sessions of one --http server appending at once.
func appendsHTTP(ctx context.Context, bin string, n int) (string, error) {
	dir, err := newRoot(map[string]string{"log.txt": ""})
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, bin, "--http", "127.0.0.1:0", "--write", "--root", dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	buf := make([]byte, 4096)
	k, _ := io.ReadAtLeast(stderr, buf, 1)
	m := urlLine.FindSubmatch(buf[:k])
	if m == nil {
		return "", fmt.Errorf("no URL in %q", buf[:k])
	}
	go io.Copy(io.Discard, stderr)
	url := string(m[1])
	var wg sync.WaitGroup
	written := make([][]string, 2)
	conflicts := make([]int, 2)
	errs := make([]error, 2)
	for w := range 2 {
		wg.Go(func() {
			s := &httpSession{url: url}
			if errs[w] = s.initialize(); errs[w] != nil {
				return
			}
			written[w], conflicts[w], errs[w] = appendAll(s.call, fmt.Sprintf("session%d", w), n)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	l, total, err := lost(filepath.Join(dir, "log.txt"), written)
	return fmt.Sprintf("lost %d of %d answered writes (%d conflicts)", l, total, conflicts[0]+conflicts[1]), err
}

type httpSession struct {
	url, id string
	next    int
}

func (s *httpSession) post(body string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if s.id == "" {
		s.id = resp.Header.Get("Mcp-Session-Id")
	}
	return io.ReadAll(resp.Body)
}

func (s *httpSession) initialize() error {
	_, err := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"writeattack","version":"1"}}}`)
	if err == nil && s.id == "" {
		err = errors.New("no session ID")
	}
	return err
}

func (s *httpSession) call(tool, args string) (*toolResult, error) {
	s.next++
	b, err := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.next, tool, args))
	if err != nil {
		return nil, err
	}
	return decode(b)
}

func decode(b []byte) (*toolResult, error) {
	var r toolResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %.200s", err, b)
	}
	if r.Error != nil {
		return nil, errors.New(r.Error.Message)
	}
	if r.Result == nil {
		return nil, fmt.Errorf("no result: %.200s", b)
	}
	return &r, nil
}

// stdioCall returns an appender over one stdio process.
func stdioCall(ctx context.Context, p *stdioclient.Process) appender {
	return func(tool, args string) (*toolResult, error) {
		line, err := p.Request(ctx, "tools/call", fmt.Appendf(nil, `{"name":%q,"arguments":%s}`, tool, args))
		if err != nil {
			return nil, err
		}
		return decode(line)
	}
}

func startStdio(ctx context.Context, bin, dir string) (*stdioclient.Process, error) {
	p, err := stdioclient.Start(ctx, []string{bin, "--write", "--root", dir}, stdioclient.Options{})
	if err != nil {
		return nil, err
	}
	return p, p.Initialize(ctx, "writeattack")
}

// appendsProc runs two stdio processes appending at once.
func appendsProc(ctx context.Context, bin string, n int) (string, error) {
	dir, err := newRoot(map[string]string{"log.txt": ""})
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	var wg sync.WaitGroup
	written := make([][]string, 2)
	conflicts := make([]int, 2)
	errs := make([]error, 2)
	for w := range 2 {
		wg.Go(func() {
			p, err := startStdio(ctx, bin, dir)
			if err != nil {
				errs[w] = err
				return
			}
			defer p.Close()
			written[w], conflicts[w], errs[w] = appendAll(stdioCall(ctx, p), fmt.Sprintf("process%d", w), n)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	l, total, err := lost(filepath.Join(dir, "log.txt"), written)
	return fmt.Sprintf("lost %d of %d answered writes (%d conflicts)", l, total, conflicts[0]+conflicts[1]), err
}

// bigText is about size bytes of lines tagged tag.
func bigText(tag string, size int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "%s line %07d of a large file that takes a while to write\n", tag, i)
	}
	return sb.String()
}

// signals sends sig k times, each at a random instant of a 12 MiB write's
// temporary file's life.
func signals(ctx context.Context, bin string, sig syscall.Signal, k int) (string, error) {
	old, next := bigText("old", 12<<20), bigText("new", 12<<20)
	args, err := json.Marshal(map[string]string{"path": "big.txt", "base": "r1", "text": next})
	if err != nil {
		return "", err
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"write_file","arguments":%s}}`, args)

	// One undisturbed write: how long its temporary file lives.
	span, err := signalOnce(ctx, bin, old, next, msg, 0, 0)
	if err != nil {
		return "", err
	}
	temps, torn, failed := 0, 0, 0
	for range k {
		r, err := signalOnce(ctx, bin, old, next, msg, sig, time.Duration(rand.Int64N(int64(span.window))))
		if err != nil {
			return "", err
		}
		temps += r.temps
		if r.torn {
			torn++
		}
		if sig == syscall.SIGTERM && r.status != 0 {
			failed++
		}
	}
	line := fmt.Sprintf("%d temporary files left after %d %s (temporary file of 12 MiB lives %v); %d targets neither old nor new",
		temps, k, sig, span.window.Round(time.Millisecond), torn)
	if sig == syscall.SIGTERM {
		line += fmt.Sprintf("; %d exits with a status other than 0", failed)
	}
	return line, nil
}

type signalResult struct {
	window time.Duration // the temporary file's life (undisturbed)
	temps  int
	torn   bool
	status int
}

// signalOnce writes next over old through a fresh server. The write's
// temporary file is seen (inotify) at its first write, named or
// anonymous ("#" and its inode); without sig the call returns how long
// it lives, until the target's name is given to it; with sig, it sends
// sig that long after the first write.
func signalOnce(ctx context.Context, bin, old, next string, msg []byte, sig syscall.Signal, delay time.Duration) (signalResult, error) {
	var r signalResult
	dir, err := newRoot(map[string]string{"big.txt": old})
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return r, err
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, dir, unix.IN_MODIFY|unix.IN_MOVED_TO|unix.IN_CREATE); err != nil {
		return r, err
	}
	p, err := startStdio(ctx, bin, dir)
	if err != nil {
		return r, err
	}
	if _, err := stdioCall(ctx, p)("inspect", `{"paths":["big.txt"]}`); err != nil {
		return r, err
	}
	if err := p.WriteLine(msg); err != nil {
		return r, err
	}
	go func() { // the answer, if it comes
		for {
			if _, err := p.ReadLine(); err != nil {
				return
			}
		}
	}()
	var born time.Time
	watch(in, func(mask uint32, name string) bool {
		if mask&unix.IN_MODIFY != 0 && name != "big.txt" && born.IsZero() {
			born = time.Now()
			return sig != 0
		}
		if mask&(unix.IN_MOVED_TO|unix.IN_CREATE) != 0 && name == "big.txt" {
			r.window = time.Since(born)
			return true
		}
		return false
	})
	if sig == 0 {
		return r, p.Close()
	}
	time.Sleep(delay)
	syscall.Kill(p.Pid(), sig)
	err = p.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.status = exit.ExitCode()
	case err != nil:
		return r, err
	}
	names, _ := filepath.Glob(filepath.Join(dir, ".loom-*.tmp"))
	r.temps = len(names)
	got, _ := os.ReadFile(filepath.Join(dir, "big.txt"))
	r.torn = string(got) != old && string(got) != next
	return r, nil
}

// watch reads inotify events from in, calling fn with each, until fn
// returns true.
func watch(in int, fn func(mask uint32, name string) bool) {
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(in, buf)
		if err != nil {
			return
		}
		for i := 0; i+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[i]))
			name := strings.TrimRight(string(buf[i+unix.SizeofInotifyEvent:i+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			if fn(ev.Mask, name) {
				return
			}
			i += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// sigkillLink kills k servers between the link of a write's temporary
// file and its rename, each followed by one write of a new server.
func sigkillLink(ctx context.Context, bin string, k int) (string, error) {
	hits, left := 0, 0
	for i := range k {
		hit, n, err := sigkillLinkOnce(ctx, bin, i)
		if err != nil {
			return "", err
		}
		if hit {
			hits++
		}
		left += n
	}
	return fmt.Sprintf("%d of %d SIGKILLs left a temporary file; %d temporary files left after a new server's write", hits, k, left), nil
}

func sigkillLinkOnce(ctx context.Context, bin string, i int) (hit bool, left int, err error) {
	dir, err := newRoot(map[string]string{"a.txt": "old\n"})
	if err != nil {
		return false, 0, err
	}
	defer os.RemoveAll(dir)
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return false, 0, err
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, dir, unix.IN_CREATE); err != nil {
		return false, 0, err
	}
	p, err := stdioclient.Start(ctx, []string{"taskset", "-c", "0", bin, "--write", "--root", dir}, stdioclient.Options{})
	if err != nil {
		return false, 0, err
	}
	defer p.Close()
	if err := p.Initialize(ctx, "writeattack"); err != nil {
		return false, 0, err
	}
	call := stdioCall(ctx, p)
	if _, err := call("inspect", `{"paths":["a.txt"]}`); err != nil {
		return false, 0, err
	}
	ready, killed := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(killed)
		runtime.LockOSThread() // this thread ends with the goroutine: its priority goes with it
		var cpu unix.CPUSet
		cpu.Set(0)
		if err := unix.SchedSetaffinity(0, &cpu); err != nil {
			ready <- fmt.Errorf("pinning to CPU 0: %w", err)
			return
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: 1 /* SCHED_FIFO */, Priority: 10}
		if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
			ready <- fmt.Errorf("real-time priority (root only): %w", err)
			return
		}
		ready <- nil
		watch(in, func(_ uint32, name string) bool {
			if strings.HasPrefix(name, ".loom-") {
				syscall.Kill(p.Pid(), syscall.SIGKILL)
				return true
			}
			return false
		})
	}()
	if err := <-ready; err != nil {
		return false, 0, err
	}
	time.Sleep(20 * time.Millisecond) // the watcher blocks in its read
	if err := p.WriteLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","base":"r1","text":"new %d\n"}}}`, i)); err != nil {
		return false, 0, err
	}
	select {
	case <-killed:
	case <-time.After(10 * time.Second):
		return false, 0, errors.New("the write never linked a temporary file")
	}
	p.Wait()
	names, _ := filepath.Glob(filepath.Join(dir, ".loom-*.tmp"))
	hit = len(names) > 0

	q, err := startStdio(ctx, bin, dir)
	if err != nil {
		return false, 0, err
	}
	defer q.Close()
	call = stdioCall(ctx, q)
	if _, err := call("inspect", `{"paths":["a.txt"]}`); err != nil {
		return false, 0, err
	}
	r, err := call("write_file", `{"path":"a.txt","base":"r1","text":"after\n"}`)
	if err != nil {
		return false, 0, err
	}
	if r.Result.IsError {
		return false, 0, fmt.Errorf("the new server's write failed: %+v", r.Result)
	}
	names, _ = filepath.Glob(filepath.Join(dir, ".loom-*.tmp"))
	return hit, len(names), nil
}

// swap swaps d with a link out of the root while 200 writes run.
func swap(ctx context.Context, bin string) (string, error) {
	dir, err := newRoot(map[string]string{"d/keep.txt": "keep\n"})
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	outside, err := os.MkdirTemp("", "writeattack-outside-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(outside)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		return "", err
	}
	p, err := startStdio(ctx, bin, dir)
	if err != nil {
		return "", err
	}
	defer p.Close()
	stop := make(chan struct{})
	var swapper sync.WaitGroup
	swapper.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, filepath.Join(dir, "link"), unix.RENAME_EXCHANGE)
		}
	})
	call := stdioCall(ctx, p)
	codes := map[string]int{}
	for i := range 200 {
		r, err := call("write_file", fmt.Sprintf(`{"path":"d/x%03d.txt","text":"x\n"}`, i))
		if err != nil {
			close(stop)
			return "", err
		}
		code := "written"
		if r.Result.IsError {
			code = r.Result.StructuredContent.Error.Code
		}
		codes[code]++
	}
	close(stop)
	swapper.Wait()
	temps := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".loom-") {
			temps++
		}
		return nil
	})
	out, _ := os.ReadDir(outside)
	var keys []string
	for k, v := range codes {
		keys = append(keys, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(keys)
	return fmt.Sprintf("%d temporary files left, %d files outside the root (200 writes: %s)",
		temps, len(out), strings.Join(keys, ", ")), nil
}
