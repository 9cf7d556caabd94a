package workspace

import (
	"errors"

	"golang.org/x/sys/unix"
)

// On macOS a process's start is its p_starttime (sysctl kern.proc.pid),
// in microseconds since the epoch.

// processStart is pid's start, 0 when it cannot be read.
func processStart(pid int) uint64 {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return 0
	}
	t := k.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec)
}

// makerAlive reports whether the process that made a temporary file may
// still be running: false only when no process has the PID (ESRCH), or
// the one that has it started at another time.
func makerAlive(pid int, start uint64) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	s := processStart(pid)
	return s == 0 || start == 0 || s == start
}
