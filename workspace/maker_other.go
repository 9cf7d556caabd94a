//go:build unix && !linux && !darwin

package workspace

import (
	"errors"

	"golang.org/x/sys/unix"
)

// On the other Unix systems (FreeBSD, OpenBSD, ...) the start of a
// process is not read: it is 0 in a temporary file's name, and a file is
// taken as stale only when no process has its maker's PID. A reused PID
// keeps a stale file, which is the safe way to be wrong.

func processStart(int) uint64 { return 0 }

// makerAlive reports whether a process has the PID.
func makerAlive(pid int, _ uint64) bool {
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}
