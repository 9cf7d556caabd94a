//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/loom-results/loom-results/internal/writehook"
)

// The test binary runs the command itself when envServer is "1" (TestMain),
// so that the process tests can stop a write at a known stage: envHalt
// names the stage (writehook's), where the write writes "halt <stage>" on
// stderr and waits until the test closes its end of the pipe given as
// file descriptor 3; envNamed "1" forces named temporary files.
const (
	envServer = "LOOM_RESULTS_TEST_SERVER"
	envHalt   = "LOOM_RESULTS_TEST_HALT"
	envNamed  = "LOOM_RESULTS_TEST_NAMED"
	envWait   = "LOOM_RESULTS_TEST_SHUTDOWN_WAIT" // shutdownWait, when set
)

func TestMain(m *testing.M) {
	if os.Getenv(envServer) == "1" {
		runAsCommand()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runAsCommand runs main with the hooks the environment asks for.
func runAsCommand() {
	if d, err := time.ParseDuration(os.Getenv(envWait)); err == nil {
		shutdownWait = d
	}
	h := &writehook.Hooks{Named: os.Getenv(envNamed) == "1"}
	if stage := os.Getenv(envHalt); stage != "" {
		release := os.NewFile(3, "release")
		var once sync.Once
		h.At = func(s string) error {
			if s == stage {
				once.Do(func() {
					fmt.Fprintf(os.Stderr, "halt %s\n", s)
					io.Copy(io.Discard, release) // until the test closes its end
				})
			}
			return nil
		}
	}
	writehook.Set(h)
	main()
}

// serverProc is a server process over stdio, its stderr as lines, and the
// pipe that releases a halted write.
type serverProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  chan string // closed at the end of stderr
	release *os.File
	exited  chan error
	id      int
}

// startServer starts argv with --root dir --write added, env added to its
// environment, and, when cred is set, as that user.
func startServer(t *testing.T, argv []string, dir string, env []string, cred *syscall.Credential) *serverProc {
	t.Helper()
	cmd := exec.Command(argv[0], append(argv[1:], "--root", dir, "--write")...)
	cmd.Env = append(os.Environ(), env...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.ExtraFiles = []*os.File{r}
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r.Close()
	p := &serverProc{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: make(chan string, 64),
		release: w, exited: make(chan error, 1)}
	var read sync.WaitGroup
	read.Go(func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.stderr <- sc.Text()
		}
		close(p.stderr)
	})
	go func() {
		read.Wait()
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		w.Close()
		cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// send writes a tools/call of tool with args (JSON) and returns its id.
func (p *serverProc) send(tool, args string) int {
	p.t.Helper()
	p.id++
	_, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", p.id, tool, args)
	require.NoError(p.t, err)
	return p.id
}

// answer reads the next answer line: its result's text content, and
// whether the result is an error.
func (p *serverProc) answer() (text string, isError bool) {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	require.NoError(p.t, err, "reading an answer")
	var m struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	require.NoError(p.t, json.Unmarshal(line, &m), string(line))
	require.Len(p.t, m.Result.Content, 1, string(line))
	return m.Result.Content[0].Text, m.Result.IsError
}

// call sends a call and returns its answer's text, which must not be an
// error.
func (p *serverProc) call(tool, args string) string {
	p.t.Helper()
	p.send(tool, args)
	text, isErr := p.answer()
	require.False(p.t, isErr, text)
	return text
}

// waitStderr reads stderr lines until one starts with prefix; the end of
// stderr (the process exited) fails the test.
func (p *serverProc) waitStderr(prefix string) string {
	p.t.Helper()
	var seen []string
	for line := range p.stderr {
		if strings.HasPrefix(line, prefix) {
			return line
		}
		seen = append(seen, line)
	}
	p.t.Fatalf("the server ended without writing %q on stderr; it wrote:\n%s", prefix, strings.Join(seen, "\n"))
	return ""
}

// wait waits for the process to exit and returns its status (-1: killed
// by a signal).
func (p *serverProc) wait() int {
	p.t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		require.NoError(p.t, err)
		return 0
	case <-time.After(30 * time.Second):
		p.t.Fatal("the server did not exit")
		return 0
	}
}

// tempFiles lists the names of writes' temporary files in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".loom-*.tmp"))
	require.NoError(t, err)
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	return names
}

func readFile(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	require.NoError(t, err)
	return string(b), true
}

// hasTmpfile reports whether the file system of dir has O_TMPFILE.
func hasTmpfile(dir string) bool {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// haltCase is a write stopped at a stage, and what is on disk then: the
// target's text (or none) and the temporary files named.
type haltCase struct {
	named  bool   // the named fallback, not O_TMPFILE
	exists bool   // the target exists (with base) or is new
	stage  string // where the write stops
	target string // its text at the stop; "" for none
	temps  int    // named temporary files at the stop
}

func (c haltCase) name() string {
	kind, target := "anonymous", "new"
	if c.named {
		kind = "named"
	}
	if c.exists {
		target = "existing"
	}
	return kind + "/" + target + "/" + c.stage
}

// haltCases are the stages a write reaches, for each kind of temporary
// file and of target. A named temporary file exists from the start; an
// anonymous one of an existing target is named only between its link
// and the rename; an anonymous new file is linked in place, never named.
func haltCases() []haltCase {
	var cs []haltCase
	for _, named := range []bool{false, true} {
		for _, exists := range []bool{true, false} {
			stages := []string{writehook.Write, writehook.Sync, writehook.Check, writehook.Link, writehook.Rename, writehook.Done}
			for _, stage := range stages {
				c := haltCase{named: named, exists: exists, stage: stage}
				switch {
				case named && stage == writehook.Link, !named && !exists && stage == writehook.Rename:
					continue // not reached
				case stage == writehook.Done:
					c.target = "new\n"
				case exists:
					c.target = "old\n"
				}
				if stage != writehook.Done && (named || exists && stage == writehook.Rename) {
					c.temps = 1
				}
				cs = append(cs, c)
			}
		}
	}
	return cs
}

// startHalted starts the test binary as the server over a root holding
// a.txt ("old\n") when c.exists, sends a write of "new\n" to it (with the
// inspected result as base), and returns once the write has stopped at
// c.stage. env is added to the server's environment.
func startHalted(t *testing.T, c haltCase, env ...string) (*serverProc, string) {
	t.Helper()
	dir := t.TempDir()
	if !c.named && !hasTmpfile(dir) {
		t.Skip("the file system of the test's temporary directory has no O_TMPFILE")
	}
	env = append(env, envServer+"=1", envHalt+"="+c.stage)
	if c.named {
		env = append(env, envNamed+"=1")
	}
	base := ""
	if c.exists {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644))
	}
	p := startServer(t, []string{os.Args[0]}, dir, env, nil)
	if c.exists {
		p.call("inspect", `{"paths":["a.txt"]}`)
		base = `,"base":"r1"`
	}
	p.send("write_file", `{"path":"a.txt","text":"new\n"`+base+`}`)
	p.waitStderr("halt " + c.stage)
	text, _ := readFile(t, filepath.Join(dir, "a.txt"))
	assert.Equal(t, c.target, text, "the target at the stop")
	assert.Len(t, tempFiles(t, dir), c.temps, "named temporary files at the stop")
	return p, dir
}

// TestSIGTERMDuringWrite: SIGTERM while a call is writing a file ends the
// server with status 0 once the write has finished (SPEC sections 2 and
// 9): the shutdown waits for it, the target holds the new text, the
// answer is written, and no temporary file is left; at every stage, over
// stdio.
func TestSIGTERMDuringWrite(t *testing.T) {
	for _, c := range haltCases() {
		t.Run(c.name(), func(t *testing.T) {
			p, dir := startHalted(t, c)
			require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			p.waitStderr("loom-results: shutting down: waiting up to 7s for 1 call in flight")
			require.NoError(t, p.release.Close())
			text, isErr := p.answer()
			assert.False(t, isErr, text)
			assert.True(t, strings.HasPrefix(text, "wrote a.txt: 4 bytes, 1 lines"), text)
			assert.Equal(t, 0, p.wait(), "exit status")
			got, _ := readFile(t, filepath.Join(dir, "a.txt"))
			assert.Equal(t, "new\n", got)
			assert.Empty(t, tempFiles(t, dir))
		})
	}
}

// TestSIGKILLDuringWrite: SIGKILL at any stage of a write leaves the
// target old or new, never a part; what it can leave besides is a named
// temporary file: from the start of the write with the named fallback,
// and with O_TMPFILE only when killed between the link and the rename.
func TestSIGKILLDuringWrite(t *testing.T) {
	for _, c := range haltCases() {
		t.Run(c.name(), func(t *testing.T) {
			p, dir := startHalted(t, c)
			require.NoError(t, p.cmd.Process.Kill())
			assert.Equal(t, -1, p.wait(), "killed")
			text, _ := readFile(t, filepath.Join(dir, "a.txt"))
			assert.Equal(t, c.target, text)
			assert.Len(t, tempFiles(t, dir), c.temps)
		})
	}
}

// TestShutdownBound: a call that does not return within the shutdown's
// bound does not keep the server: it exits with status 1, saying so.
func TestShutdownBound(t *testing.T) {
	c := haltCase{named: true, exists: false, stage: writehook.Sync, temps: 1}
	p, _ := startHalted(t, c, envWait+"=50ms")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	p.waitStderr("loom-results: shutting down: waiting up to 50ms for 1 call in flight")
	assert.Equal(t, "loom-results: shutdown: 1 call still running: gave up waiting after 50ms", p.waitStderr("loom-results: shutdown:"))
	assert.Equal(t, 1, p.wait())
}

// TestSecondSignal: a second SIGTERM while the shutdown waits ends the
// process at once, by the signal.
func TestSecondSignal(t *testing.T) {
	c := haltCase{named: true, exists: false, stage: writehook.Sync, temps: 1}
	p, _ := startHalted(t, c)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	p.waitStderr("loom-results: shutting down:")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, -1, p.wait(), "ended by the second signal")
}

// bigText is about size bytes of numbered lines, each starting with tag.
func bigText(tag string, size int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "%s line %07d of a large file that takes a while to write\n", tag, i)
	}
	return sb.String()
}

// TestSIGTERMWhenTempAppears runs the command as built, without hooks:
// it sends SIGTERM as soon as a write's named temporary file appears in
// the root (inotify), during a write of 12 MiB. The server exits with
// status 0, the target holds its old or its new text, and no temporary
// file is left (SPEC sections 2 and 9). With O_TMPFILE the file is named
// only an instant before the rename.
func TestSIGTERMWhenTempAppears(t *testing.T) {
	bin := buildBinary(t)
	for try := range 3 {
		t.Run(fmt.Sprint(try), func(t *testing.T) {
			dir := t.TempDir()
			old, next := bigText("old", 12<<20), bigText("new", 12<<20)
			target := filepath.Join(dir, "big.txt")
			require.NoError(t, os.WriteFile(target, []byte(old), 0o644))
			in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
			require.NoError(t, err)
			defer unix.Close(in)
			_, err = unix.InotifyAddWatch(in, dir, unix.IN_CREATE)
			require.NoError(t, err)

			p := startServer(t, []string{bin}, dir, nil, nil)
			p.call("inspect", `{"paths":["big.txt"]}`)
			args, err := json.Marshal(map[string]string{"path": "big.txt", "base": "r1", "text": next})
			require.NoError(t, err)
			p.send("write_file", string(args))
			go io.Copy(io.Discard, p.out) // the answer, with its diff
			waitCreate(t, in, ".loom-*.tmp")
			require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			signalled := time.Now()
			assert.Equal(t, 0, p.wait(), "exit status")
			t.Logf("exited %v after the signal", time.Since(signalled))
			got, _ := readFile(t, target)
			assert.True(t, got == old || got == next, "the target is old or new (%d bytes)", len(got))
			assert.Empty(t, tempFiles(t, dir))
		})
	}
}

// waitCreate reads inotify events from in until a file whose name matches
// pattern is created.
func waitCreate(t *testing.T, in int, pattern string) {
	t.Helper()
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(in, buf)
		require.NoError(t, err)
		for i := 0; i+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[i]))
			name := strings.TrimRight(string(buf[i+unix.SizeofInotifyEvent:i+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			if ok, _ := filepath.Match(pattern, name); ok {
				return
			}
			i += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// TestWriteAsAnotherUser runs the command as uid 65534 in a directory
// that user may write, over a file of root's (0644): the directory would
// let it replace the file, but the user may not write the file itself,
// so write_file refuses it with unwritable (access(2) W_OK, SPEC section
// 9), and the file stays root's, unchanged.
func TestWriteAsAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a child as another user needs root; this test runs as uid", os.Getuid())
	}
	// Directories the child can reach: t.TempDir's parents are 0700.
	top, err := os.MkdirTemp("", "loom-uid-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(top) })
	require.NoError(t, os.Chmod(top, 0o755))
	bin := buildBinary(t)
	exe := filepath.Join(top, "loom-results")
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(exe, data, 0o755))
	dir := filepath.Join(top, "root")
	require.NoError(t, os.Mkdir(dir, 0o777))
	require.NoError(t, os.Chmod(dir, 0o777)) // world-writable, as the umask would not leave it
	target := filepath.Join(dir, "roots.txt")
	require.NoError(t, os.WriteFile(target, []byte("root's\n"), 0o644))

	cmd := exec.Command(exe, "--version")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("the system does not let this test run a child as uid 65534: %v %s", err, out)
	}

	p := startServer(t, []string{exe}, dir, nil, &syscall.Credential{Uid: 65534, Gid: 65534})
	p.call("inspect", `{"paths":["roots.txt"]}`)
	p.send("write_file", `{"path":"roots.txt","base":"r1","text":"nobody's\n"}`)
	text, isErr := p.answer()
	assert.True(t, isErr)
	assert.Equal(t, `error unwritable: file "roots.txt" may not be written by this server's user (uid 65534): permission denied; `+
		`write_file replaces only files that user could write itself`, text)
	// A new file in the same directory is the user's to write.
	p.call("write_file", `{"path":"mine.txt","text":"nobody's\n"}`)
	got, _ := readFile(t, target)
	assert.Equal(t, "root's\n", got)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(target, &st))
	assert.Equal(t, uint32(0), st.Uid, "the file is still root's")
	require.NoError(t, syscall.Stat(filepath.Join(dir, "mine.txt"), &st))
	assert.Equal(t, uint32(65534), st.Uid)
	assert.Empty(t, tempFiles(t, dir))
}

// selfStart is this process's start time as /proc/self/stat says it
// (field 22, clock ticks after boot).
func selfStart(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/stat")
	require.NoError(t, err)
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	return fields[19]
}

// TestSIGKILLThenRestartCleans: a server killed between the link of its
// anonymous temporary file and the rename (or during a named fallback's
// write) leaves a temporary file whose name says its maker; a new
// server's first write into that directory removes it, and leaves alone
// a live process's temporary file (this test process's).
func TestSIGKILLThenRestartCleans(t *testing.T) {
	for _, named := range []bool{false, true} {
		stage := writehook.Rename
		if named {
			stage = writehook.Sync
		}
		c := haltCase{named: named, exists: true, stage: stage, target: "old\n", temps: 1}
		t.Run(c.name(), func(t *testing.T) {
			p, dir := startHalted(t, c)
			left := tempFiles(t, dir)
			require.Len(t, left, 1)
			assert.Regexp(t, fmt.Sprintf(`^\.loom-%d-[0-9]+-[0-9a-f]{8}\.tmp$`, p.cmd.Process.Pid), left[0], "the name says its maker")
			require.NoError(t, p.cmd.Process.Kill())
			assert.Equal(t, -1, p.wait(), "killed")
			require.Equal(t, left, tempFiles(t, dir), "SIGKILL left the temporary file")
			live := fmt.Sprintf(".loom-%d-%s-0000abcd.tmp", os.Getpid(), selfStart(t))
			require.NoError(t, os.WriteFile(filepath.Join(dir, live), []byte("x"), 0o644))

			q := startServer(t, []string{os.Args[0]}, dir, []string{envServer + "=1"}, nil)
			q.call("inspect", `{"paths":["a.txt"]}`)
			text := q.call("write_file", `{"path":"a.txt","text":"newer\n","base":"r1"}`)
			assert.True(t, strings.HasPrefix(text, "wrote a.txt: 6 bytes, 1 lines"), text)
			assert.Equal(t, []string{live}, tempFiles(t, dir), "the stale file is removed, the live one kept")
			got, _ := readFile(t, filepath.Join(dir, "a.txt"))
			assert.Equal(t, "newer\n", got)
		})
	}
}
