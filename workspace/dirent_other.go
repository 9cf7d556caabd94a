//go:build !linux

package workspace

import "syscall"

// parseDirents appends the names of the entries in buf, as the system's
// ReadDirent writes them, "." and ".." left out; their types are left
// unknown, for the walk to lstat.
func parseDirents(buf []byte, names []string, types []uint8) ([]string, []uint8) {
	n := len(names)
	_, _, names = syscall.ParseDirent(buf, -1, names)
	for range names[n:] {
		types = append(types, syscall.DT_UNKNOWN)
	}
	return names, types
}
