package workspace

import (
	"golang.org/x/sys/unix"
)

// On macOS a process's start is its p_starttime (sysctl kern.proc.pid),
// in microseconds since the epoch.

// processState is pid's start, 0 when it cannot be read; whether it has
// ended is not read.
func processState(pid int) (start uint64, ended bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return 0, false
	}
	t := k.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec), false
}
