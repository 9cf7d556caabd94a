//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd

package workspace

import "golang.org/x/sys/unix"

// parseDirents appends the names of the entries in buf, as the system's
// ReadDirent writes them, "." and ".." left out. Their types are left
// unknown, for the walk to lstat: struct dirent has no d_type here
// (Solaris, illumos, AIX), or x/sys/unix does not say where it is.
func parseDirents(buf []byte, names []string, types []entryType) ([]string, []entryType) {
	n := len(names)
	_, _, names = unix.ParseDirent(buf, -1, names)
	for range names[n:] {
		types = append(types, typeUnknown)
	}
	return names, types
}
