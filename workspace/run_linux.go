package workspace

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux the server makes itself a child subreaper (prctl
// PR_SET_CHILD_SUBREAPER) before its first run: a process whose parent
// exits is then reparented to the server, not to init, so that every
// process a command started stays below the server, even one that left
// the command's process group (setsid) and outlived its parent (a
// double-forking daemon). A run finds its processes in /proc: the
// command's process group, the descendants of the command, the processes
// of its cgroup (run_cgroup_linux.go) where it has one, and the orphans:
// the server's children that it did not start itself, with their
// descendants. An orphan is the run's when it carries the run's RunMarker
// in its environment, or when no other run that is still going could have
// started it: none began before the orphan did (start times from
// /proc/PID/stat). With one run at a time every orphan is the ending
// run's, whatever it did to its environment; an orphan that two
// overlapping runs could have started is ended when the last of them
// ends. The server's own children that are not runs are those in its own
// process group (a run's processes never are: the command starts in a
// group of its own), and they are neither ended nor reaped. What can
// escape is a process that another subreaper or a new PID namespace (a
// container) takes in, and, without a cgroup, one that outlives the last
// of the runs that could have started it only because it was reparented
// after that run's last look (a race of microseconds).

var subreaper sync.Once

// setProcessGroup puts the command in a process group of its own.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// runs is what the sweeps of every run share: the runs that are going
// (started and not yet done with their processes), by their command's PID,
// which is the server's own child and no orphan until it is reaped. Held
// while a command starts, so that a sweep never takes a command that has
// just started for an orphan, and while a sweep looks at the server's
// children.
var runs = struct {
	sync.Mutex
	active map[int]*tracked
}{active: map[int]*tracked{}}

// tracked is a started command and the processes found to be its.
type tracked struct {
	cmd    *exec.Cmd
	pid    int
	marker string
	self   int
	done   chan struct{} // closed when the command has exited (not yet reaped)

	// seen holds every process found to be the run's, by PID, with its
	// start time (so that a reused PID is not taken for it); termed
	// those already sent SIGTERM, the same way.
	seen, termed map[int]uint64
	groupTermed  bool

	cg    *runCgroup // nil without a cgroup
	start uint64     // the command's start time, clock ticks after boot
}

// startTracked starts cmd and begins to track its processes: in a cgroup
// of its own where the server may create one.
func startTracked(cmd *exec.Cmd, marker string) (*tracked, error) {
	subreaper.Do(func() {
		// Without it (a kernel before 3.4), orphans go to init and only
		// the process group can be ended.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
	cg := newRunCgroup()
	runs.Lock()
	defer runs.Unlock()
	if cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
	}
	err := cmd.Start()
	if err != nil && cg != nil {
		// Try without: when that starts, the cgroup was what failed (no
		// clone3, or no right to move a process there).
		cg.remove()
		cg = nil
		attr := *cmd.SysProcAttr
		attr.UseCgroupFD, attr.CgroupFD = false, 0
		*cmd = exec.Cmd{Path: cmd.Path, Args: cmd.Args, Dir: cmd.Dir, Env: cmd.Env,
			Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, SysProcAttr: &attr}
		if err = cmd.Start(); err == nil {
			cgroupsFailed.Store(true)
		}
	}
	if err != nil {
		return nil, err
	}
	t := &tracked{
		cmd: cmd, pid: cmd.Process.Pid, marker: marker, self: os.Getpid(),
		done: make(chan struct{}), seen: map[int]uint64{}, termed: map[int]uint64{},
		cg: cg,
	}
	t.start = processStart(t.pid)
	runs.active[t.pid] = t
	go func() {
		// Wait for the exit without reaping: until wait reaps it, the
		// command's PID, and so its process group's ID, cannot be reused,
		// and signals to the group reach no one else.
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, t.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		close(t.done)
	}()
	return t, nil
}

// onlyOurs reports whether no other run that is going could have started
// a process that started at start: none began before it. Called with runs
// held.
func (t *tracked) onlyOurs(start uint64) bool {
	for _, o := range runs.active {
		if o != t && o.start <= start {
			return false
		}
	}
	return true
}

// exited is closed once the command has exited.
func (t *tracked) exited() <-chan struct{} { return t.done }

// wait reaps the command, and the zombies of the run that it left to the
// server, removes the run's cgroup, and returns the command's exit code,
// nil when a signal ended it. The run is no longer going: orphans that it
// shared with other runs are theirs now.
func (t *tracked) wait() *int64 {
	runs.Lock()
	t.cmd.Wait()
	delete(runs.active, t.pid)
	runs.Unlock()
	v := newProcView()
	for pid, start := range t.seen {
		if p, ok := v.stat(pid); ok && p.start == start && p.zombie {
			t.reap(p)
		}
	}
	if t.cg != nil {
		t.cg.remove()
	}
	return exitCode(t.cmd.ProcessState)
}

// reap reaps p, a zombie of the run, when it is the server's child.
func (t *tracked) reap(p proc) {
	if p.ppid != t.self {
		return
	}
	var ws unix.WaitStatus
	if pid, _ := unix.Wait4(p.pid, &ws, unix.WNOHANG, nil); pid == p.pid {
		delete(t.seen, p.pid)
	}
}

// end ends every process of the run that is still running: SIGTERM, then
// SIGKILL to those left after grace. Processes found later (forked
// meanwhile) get SIGTERM when found. It returns once none is left, or when
// SIGKILL has not ended them within killWait (a process in uninterruptible
// sleep).
func (t *tracked) end(grace time.Duration) {
	start := time.Now()
	pause := time.Millisecond
	for {
		running, unsure := t.sweep(unix.SIGTERM)
		if running == 0 && (unsure == 0 || time.Since(start) > unsureWait) {
			return
		}
		left := grace - time.Since(start)
		if left <= 0 {
			break
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
	if t.cg != nil {
		// Every process of the cgroup at once, and those it forks meanwhile.
		t.cg.kill()
	}
	deadline := time.Now().Add(killWait)
	for pause := time.Millisecond; time.Now().Before(deadline); pause = min(2*pause, 20*time.Millisecond) {
		if running, _ := t.sweep(unix.SIGKILL); running == 0 {
			return
		}
		time.Sleep(pause)
	}
}

// unsureWait bounds the time end looks again at a child of the server
// whose environment could not be read (unsure): one in the middle of an
// exec shows an empty environment for an instant.
const unsureWait = 200 * time.Millisecond

// killWait bounds the wait for SIGKILL to take effect.
const killWait = 5 * time.Second

// proc is one process as /proc/PID/stat shows it.
type proc struct {
	pid, ppid, pgid int
	zombie          bool
	start           uint64 // clock ticks after boot
}

// sweep finds the run's processes, sends sig to each one still running
// (SIGTERM once a process), reaps those that are the server's zombie
// children, and returns how many are still running, and how many of the
// server's children could not be told to be the run's or not.
//
// The run's processes are the command and its descendants, the processes
// seen as the run's before (a PID counts with its start time, so that a
// reused PID is not taken for it) and their descendants, and the server's
// children that carry the run's marker, or that are zombies of the
// command's group, with theirs.
func (t *tracked) sweep(sig unix.Signal) (running, unsure int) {
	// Whether the command had exited before this look at /proc: then the
	// processes it left were the server's children before it began.
	done := t.doneNow()
	v := newProcView()
	found := map[int]proc{}
	var queue []int
	add := func(p proc) bool {
		if _, ok := found[p.pid]; ok {
			return false
		}
		found[p.pid] = p
		queue = append(queue, p.pid)
		return true
	}
	walk := func() {
		for len(queue) > 0 {
			pid := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, c := range v.children(pid) {
				if p, ok := v.stat(c); ok {
					add(p)
				}
			}
		}
	}
	if p, ok := v.stat(t.pid); ok {
		add(p)
	}
	for pid, start := range t.seen {
		if p, ok := v.stat(pid); ok && p.start == start {
			add(p)
		} else {
			delete(t.seen, pid)
		}
	}
	if t.cg != nil {
		for _, pid := range t.cg.pids() {
			if p, ok := v.stat(pid); ok {
				add(p)
			}
		}
	}
	walk()
	// The server's children come last, and again after each walk that
	// found more: a process that exits while its children are read leaves
	// them to the server (its subreaper) before it is a zombie, so that
	// they are found here. One that exits later was found running.
	runs.Lock()
	defer runs.Unlock()
	pgrp := unix.Getpgrp()
	checked := map[int]bool{}
	for more := true; more; {
		more = false
		for _, pid := range v.children(t.self) {
			if _, ok := found[pid]; ok || checked[pid] || runs.active[pid] != nil {
				continue
			}
			checked[pid] = true
			p, ok := v.stat(pid)
			switch {
			case !ok:
			case p.pgid == pgrp:
				// The server's own child, not a run's: not an orphan.
			case p.zombie:
				if p.pgid == t.pid {
					more = add(p) || more
				} else {
					// An orphan that has ended: whichever run's it was,
					// the server reaps it.
					t.reap(p)
				}
			default:
				// The environment is read only when another going run
				// could have started the process.
				if t.onlyOurs(p.start) {
					more = add(p) || more
					break
				}
				switch hasMarker(pid, t.marker) {
				case marked:
					more = add(p) || more
				case unknown:
					unsure++
				}
			}
		}
		walk()
	}
	// The group is signalled as a whole, and SIGTERM only once; a
	// process is signalled on its own when it is outside the group, or
	// joined it after the group's SIGTERM.
	group := sig != unix.SIGTERM || !t.groupTermed
	for pid, p := range found {
		if p.zombie {
			// A zombie whose parent is another of the run's stays seen: its
			// parent's exit leaves it to the server, which reaps it then.
			if pid != t.pid {
				t.seen[pid] = p.start
				t.reap(p)
			}
			continue
		}
		t.seen[pid] = p.start
		if pid == t.pid && done {
			continue
		}
		running++
		switch {
		case p.pgid == t.pid && group:
			if sig == unix.SIGTERM {
				t.termed[pid] = p.start
			}
		case sig == unix.SIGTERM && t.termed[pid] == p.start:
		default:
			if unix.Kill(pid, sig) == nil && sig == unix.SIGTERM {
				t.termed[pid] = p.start
			}
		}
	}
	if running > 0 && group {
		// The group at once: a member forked since the look at /proc is
		// in it too.
		unix.Kill(-t.pid, sig)
		t.groupTermed = t.groupTermed || sig == unix.SIGTERM
	}
	return running, unsure
}

// doneNow reports whether the command has exited (its /proc entry may lag).
func (t *tracked) doneNow() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// procView reads processes from /proc: a process's children from
// /proc/PID/task/TID/children (the kernel's list, without reading every
// process), or, where the kernel has no such file (CONFIG_PROC_CHILDREN
// off), from one scan of every process's stat.
type procView struct {
	buf   []byte
	stats map[int]proc  // read so far
	kids  map[int][]int // the scan's, when there is no children file
}

// childrenFiles reports whether the kernel lists a task's children.
var childrenFiles = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/children")
	return err == nil
})

// scanProcs makes every view scan, as on a kernel without children
// files (tests).
var scanProcs = false

func newProcView() *procView {
	v := &procView{buf: make([]byte, 1024), stats: map[int]proc{}}
	if scanProcs || !childrenFiles() {
		v.scan()
	}
	return v
}

// stat returns the process's stat, reading it once.
func (v *procView) stat(pid int) (proc, bool) {
	if p, ok := v.stats[pid]; ok {
		return p, true
	}
	if v.kids != nil {
		return proc{}, false // the scan read every process there was
	}
	p, ok := readStat(pid, v.buf)
	if ok {
		v.stats[pid] = p
	}
	return p, ok
}

// children returns the process's children.
func (v *procView) children(pid int) []int {
	if v.kids != nil {
		return v.kids[pid]
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	var out []int
	for _, tid := range tids {
		b, err := os.ReadFile(dir + "/" + tid + "/children")
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// scan reads every process's stat from /proc.
func (v *procView) scan() {
	v.kids = map[int][]int{}
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid, v.buf); ok {
			v.stats[pid] = p
			v.kids[p.ppid] = append(v.kids[p.ppid], pid)
		}
	}
}

// readStat parses /proc/PID/stat: "pid (comm) state ppid pgrp session
// tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
// cstime priority nice num_threads itrealvalue starttime ...". comm may
// hold spaces and parentheses, so the fields are counted from the last
// ')'.
func readStat(pid int, buf []byte) (proc, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	n, _ := f.Read(buf)
	f.Close()
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return proc{}, false
	}
	fields := bytes.Fields(b[i+2:])
	// fields[0] is the state, [1] ppid, [2] pgrp, [19] starttime.
	if len(fields) < 20 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(string(fields[1]))
	pgid, _ := strconv.Atoi(string(fields[2]))
	start, _ := strconv.ParseUint(string(fields[19]), 10, 64)
	state := fields[0][0]
	return proc{pid: pid, ppid: ppid, pgid: pgid, zombie: state == 'Z' || state == 'X', start: start}, true
}

// marking is whether a process carries the run's marker.
type marking int

const (
	unmarked marking = iota
	marked
	unknown // its environment read empty: it may be in the middle of an exec
)

// hasMarker tells whether the process's environment holds the run's
// marker.
func hasMarker(pid int, marker string) marking {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	switch {
	case err != nil:
		return unmarked // gone, or not ours to read
	case len(env) == 0:
		return unknown
	}
	want := []byte(RunMarker + "=" + marker)
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(kv, want) {
			return marked
		}
	}
	return unmarked
}
