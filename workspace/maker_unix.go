//go:build unix

package workspace

import (
	"errors"

	"golang.org/x/sys/unix"
)

// processStart is pid's start as the system reads it (processState), 0
// when it cannot be read: what a temporary file's name records of its
// maker.
func processStart(pid int) uint64 {
	start, _ := processState(pid)
	return start
}

// makerAlive reports whether the process that made a temporary file may
// still be running: false only when no process has the PID (ESRCH), it has
// ended (where the system says so), or the one that has it started at
// another time. A start that cannot be read, the maker's when it stamped
// the file or the process's now, keeps the file: the safe way to be wrong.
func makerAlive(pid int, start uint64) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	s, ended := processState(pid)
	return !ended && (s == 0 || start == 0 || s == start)
}
