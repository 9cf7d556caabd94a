package workspace

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Where the server may create a cgroup (cgroup v2 mounted, and the
// server's own cgroup a subtree it may write: delegated to its user, or
// the server runs as root), each run gets a cgroup of its own, below the
// server's: the command starts in it (clone3 CLONE_INTO_CGROUP, through
// SysProcAttr.UseCgroupFD), every process it starts is born in it whatever
// it does to its session, group or environment, and the run ends them all
// with cgroup.kill (Linux 5.14) before removing the cgroup. Whether it may
// is found by trying: the first run that cannot create its cgroup, or
// start its command in it, turns the cgroups off for the life of the
// process, and runs fall back to the process group, the subreaper and
// /proc.

// noCgroups turns the cgroups off, as where the system allows none (tests
// of the fallback). Set it only while no run is running.
var noCgroups atomic.Bool

// cgroupsFailed is set once a run could not use a cgroup.
var cgroupsFailed atomic.Bool

// cgroupBase is the directory of the server's own cgroup in the cgroup v2
// hierarchy, or "" where there is none (no cgroup2 mount, or the server's
// cgroup is not under it).
var cgroupBase = sync.OnceValue(func() string {
	mount, root := cgroup2Mount()
	if mount == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "0::")
		if !ok {
			continue
		}
		// Relative to the mount's root (a cgroup namespace mounts its own).
		rel, ok := strings.CutPrefix(rest, root)
		if !ok || strings.Contains(rest, "(deleted)") {
			return ""
		}
		dir := filepath.Join(mount, rel)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
			return ""
		}
		return dir
	}
	return ""
})

// cgroup2Mount is the mount point of the cgroup v2 hierarchy and the
// root of the hierarchy it shows, from /proc/self/mountinfo.
func cgroup2Mount() (mount, root string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "id parent major:minor root mountpoint options [optional...] - fstype source superoptions"
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(right, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(left)
		if len(fields) < 5 {
			continue
		}
		return unescapeMount(fields[4]), unescapeMount(fields[3])
	}
	return "", ""
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var cgroupSeq atomic.Int64

// runCgroup is a run's cgroup: its directory, open for clone3.
type runCgroup struct {
	dir string
	fd  int
}

// newRunCgroup creates a cgroup for a run below the server's, or returns
// nil where the server may not (or must not) use one.
func newRunCgroup() *runCgroup {
	if noCgroups.Load() || cgroupsFailed.Load() {
		return nil
	}
	base := cgroupBase()
	if base == "" {
		return nil
	}
	dir := filepath.Join(base, "loom-results-"+strconv.Itoa(os.Getpid())+"-run-"+strconv.FormatInt(cgroupSeq.Add(1), 10))
	if err := unix.Mkdir(dir, 0o755); err != nil {
		cgroupsFailed.Store(true)
		return nil
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		// Before Linux 5.14 there is no cgroup.kill (the root cgroup has
		// none either, hence the look at the new one).
		if err = unix.Access(filepath.Join(dir, "cgroup.kill"), unix.W_OK); err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		unix.Rmdir(dir)
		cgroupsFailed.Store(true)
		return nil
	}
	return &runCgroup{dir: dir, fd: fd}
}

// pids lists the processes in the cgroup.
func (c *runCgroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for f := range strings.FieldsSeq(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// kill sends SIGKILL to every process in the cgroup, and to those that
// it forks meanwhile.
func (c *runCgroup) kill() error {
	return os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
}

// remove kills what is left in the cgroup and removes it, waiting at most
// killWait for its processes to be gone.
func (c *runCgroup) remove() {
	unix.Close(c.fd)
	deadline := time.Now().Add(killWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 20*time.Millisecond) {
		err := unix.Rmdir(c.dir)
		if err == nil || errors.Is(err, unix.ENOENT) || time.Now().After(deadline) {
			return
		}
		c.kill() // what is left, or joined since (an empty cgroup takes it too)
		time.Sleep(pause)
	}
}
