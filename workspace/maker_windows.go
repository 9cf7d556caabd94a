package workspace

import (
	"errors"

	"golang.org/x/sys/windows"
)

// On Windows a process's start is its creation time (GetProcessTimes), in
// 100-nanosecond intervals since 1601.

// processStart is pid's start, 0 when it cannot be read.
func processStart(pid int) uint64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
}

// makerAlive reports whether the process that made a temporary file may
// still be running: false only when no process has the PID, it has
// exited, or the one that has it started at another time.
func makerAlive(pid int, start uint64) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return false // no such process
	}
	if err != nil {
		return true // not ours to look at: it may be the maker
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != stillActive {
		return false
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return true
	}
	return start == 0 || uint64(created.HighDateTime)<<32|uint64(created.LowDateTime) == start
}

// stillActive is GetExitCodeProcess's code of a running process.
const stillActive = 259
