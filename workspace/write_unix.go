//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory of the root and the *at system calls of a
// write on one name in it (Dest).
type dirHandle struct {
	f   *os.File
	fd  int
	dev uint64
	ino uint64
}

// fileKey is a file's identity for the process's lock: its directory's
// device and inode, and its name there.
type fileKey struct {
	dev, ino uint64
	name     string
}

// openDir opens dir (slash-separated, relative to the root) as os.Root
// opens a path: symbolic links followed only while they stay inside the
// root. A name that is not a directory fails with ENOTDIR.
func openDir(r *Root, dir string) (*dirHandle, error) {
	f, err := r.root.OpenFile(filepath.FromSlash(dir), os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	d := &dirHandle{f: f, fd: int(f.Fd())}
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "fstat", Path: dir, Err: err}
	}
	d.dev, d.ino = uint64(st.Dev), uint64(st.Ino)
	return d, nil
}

func (d *dirHandle) key(name string) fileKey { return fileKey{d.dev, d.ino, name} }

func (d *dirHandle) close() { d.f.Close() }

// lockAcrossProcesses takes an exclusive flock(2) on the directory, which
// the other processes of this server take for a write in it too, so that
// their checks and renames do not interleave (SPEC 9 asks this of one
// process; two stdio sessions on one project are two). It waits at most
// wait for a holder to let go. A file system that has no such locks (some
// network ones answer ENOLCK or EOPNOTSUPP) is written without. The lock
// is the open file description's: it ends with release or when the
// directory handle closes, also when the process dies.
func (d *dirHandle) lockAcrossProcesses(wait time.Duration) (release func(), err error) {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		err := unix.Flock(d.fd, unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return func() { _ = unix.Flock(d.fd, unix.LOCK_UN) }, nil
		case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
			return func() {}, nil
		case !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR):
			return nil, fmt.Errorf("locking its directory: %w", err)
		case time.Now().After(deadline):
			return nil, fmt.Errorf("another process has held its directory's write lock for %s", wait)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// sync makes the directory's entries durable.
func (d *dirHandle) sync() error { return d.f.Sync() }

func pathError(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// lstat is fstatat without following a final symbolic link.
func (d *dirHandle) lstat(name string) (statInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statInfo{}, pathError("lstat", name, err)
	}
	return statInfo{mode: fileMode(uint32(st.Mode)), size: st.Size}, nil
}

// fileMode is the fs.FileMode of a stat mode.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}

// access is access(2) with W_OK, for this process's (real) user.
func (d *dirHandle) access(name string) error {
	return pathError("access", name, unix.Faccessat(d.fd, name, unix.W_OK, 0))
}

// openRead opens name for reading, never through a symbolic link, and as
// Root.open does, without waiting on a FIFO or taking a terminal.
func (d *dirHandle) openRead(name string) (*os.File, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// createNamed creates the new file name, for writing, with mode 0644 less
// the umask; it fails with fs.ErrExist when name exists.
func (d *dirHandle) createNamed(name string) (*os.File, error) {
	fd, err := openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (d *dirHandle) rename(from, to string) error {
	return pathError("rename", to, unix.Renameat(d.fd, from, d.fd, to))
}

func (d *dirHandle) remove(name string) error {
	return pathError("remove", name, unix.Unlinkat(d.fd, name, 0))
}

// names lists the directory's entries, through a handle of its own (the
// held one keeps no read offset).
func (d *dirHandle) names() ([]string, error) {
	fd, err := openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathError("open", ".", err)
	}
	f := os.NewFile(uintptr(fd), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}
