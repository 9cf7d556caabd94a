package workspace

import (
	"errors"

	"golang.org/x/sys/unix"
)

// On Linux a process's start is its starttime in /proc/PID/stat: clock
// ticks after boot. A PID with the same start is the same process (a PID
// is reused only after its process is gone, and not within one tick);
// after a reboot, a process with the same PID and start as a stale file's
// maker keeps that file, which is the safe way to be wrong.

// processStart is pid's start, 0 when it cannot be read.
func processStart(pid int) uint64 {
	p, ok := readStat(pid, make([]byte, 1024))
	if !ok {
		return 0
	}
	return p.start
}

// makerAlive reports whether the process that made a temporary file may
// still be running: false only when no process has the PID (ESRCH), or
// the one that has it started at another time.
func makerAlive(pid int, start uint64) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	p, ok := readStat(pid, make([]byte, 1024))
	if !ok {
		return true // not ours to look at (hidepid): it may be the maker
	}
	if p.zombie {
		return false
	}
	return p.start == start
}
