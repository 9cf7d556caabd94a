//go:build darwin || freebsd || netbsd || openbsd

package workspace

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// bsdDirent is where the system's struct dirent, as getdirentries (or, on
// macOS, x/sys/unix's readdir_r-based ReadDirent) writes it, holds each
// field: x/sys/unix's Dirent is that struct, generated from the system's
// headers. Its first field, on each of these systems, is the 8-byte
// inode number (d_ino, d_fileno).
var bsdDirent = direntLayout{
	reclen:     unsafe.Offsetof(unix.Dirent{}.Reclen),
	namlen:     unsafe.Offsetof(unix.Dirent{}.Namlen),
	namlenSize: unsafe.Sizeof(unix.Dirent{}.Namlen),
	typ:        unsafe.Offsetof(unix.Dirent{}.Type),
	name:       unsafe.Offsetof(unix.Dirent{}.Name),
}

// parseDirents appends the names and types of the entries in buf, "." and
// ".." left out.
func parseDirents(buf []byte, names []string, types []entryType) ([]string, []entryType) {
	return parseDirentsAt(buf, names, types, bsdDirent)
}
