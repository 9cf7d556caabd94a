//go:build unix

package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// fdDir is a directory of a walk open as a file descriptor: each
// subdirectory opened by its name relative to its parent (openat, never
// through a link), read with getdents (unix.ReadDirent) and its entries
// stat-ed with fstatat.
type fdDir int

// topDir is the first directory of a walk: f's descriptor, closed with f.
type topDir struct {
	fdDir
	f *os.File
}

func (d topDir) close() { d.f.Close() }

// openNativeDir is the walk's first directory on Unix systems: f's own
// descriptor.
func openNativeDir(_ *Root, f *os.File, _ string) (walkDir, error) {
	return topDir{fdDir(f.Fd()), f}, nil
}

// dirFlags open a directory of the walk: never through a link, never
// waiting.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK

func (d fdDir) read(buf *[]byte) (names []string, types []entryType, ok bool) {
	if *buf == nil {
		*buf = make([]byte, 32<<10)
	}
	for {
		n, err := readDirent(int(d), *buf)
		if err != nil {
			return nil, nil, false
		}
		if n <= 0 {
			return names, types, true
		}
		names, types = parseDirents((*buf)[:n], names, types)
	}
}

func (d fdDir) lstat(name string) (entryType, int64) {
	var st unix.Stat_t
	if fstatat(int(d), name, &st) != nil {
		return typeUnknown, 0
	}
	// Mode is 16 bits wide on some systems (macOS, the BSDs), 32 on others.
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFDIR:
		return typeDir, st.Size
	case unix.S_IFREG:
		return typeReg, st.Size
	case unix.S_IFLNK:
		return typeLink, st.Size
	}
	return typeOther, st.Size
}

func (d fdDir) sub(name string) (walkDir, bool) {
	fd, err := openat(int(d), name, dirFlags, 0)
	if err != nil {
		return nil, false
	}
	return fdDir(fd), true
}

func (d fdDir) close() { unix.Close(int(d)) }

func (d fdDir) openFile(name string) (io.ReadCloser, fs.FileMode, int64, error) {
	fd, err := openat(int(d), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, 0, 0, errLink
		}
		// A socket, or a device without its driver: say which, as
		// Root.Open does (it looks before it opens).
		var st unix.Stat_t
		if errors.Is(err, unix.ENXIO) && fstatat(int(d), name, &st) == nil && uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
			return unopened{}, fileMode(uint32(st.Mode)), st.Size, nil
		}
		return nil, 0, 0, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, 0, 0, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	return fdFile(fd), fileMode(uint32(st.Mode)), st.Size, nil
}

// fdFile is a file open for reading as a descriptor, without os.File's
// cost (a file descriptor that a find opens for each file it reads).
type fdFile int

// Read is read(2), retried when a signal interrupts it, with io.EOF at the
// end of the file.
func (f fdFile) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fdFile) Close() error { return unix.Close(int(f)) }

// openat is unix.Openat, retried when a signal interrupts it, and with
// largeFile, so that a 32-bit server can open (and refuse by size) a file
// of more than 2 GiB rather than fail with EOVERFLOW.
func openat(dir int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flags|largeFile, mode)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// fstatat is lstat of name in directory dir, retried when interrupted.
func fstatat(dir int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dir, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// readDirent is unix.ReadDirent, retried when interrupted.
func readDirent(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.ReadDirent(fd, buf)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}
