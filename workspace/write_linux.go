package workspace

import (
	"errors"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// largeFile is the flag every openat of the workspace adds: 32-bit Linux
// refuses to open a file over 2 GiB without it (EOVERFLOW).
const largeFile = unix.O_LARGEFILE

// createAnon creates an anonymous file in the directory (O_TMPFILE), for
// writing, with mode 0644 less the umask: it has no name until link gives
// it one, so a process killed before then leaves nothing behind. It fails
// with errNoAnon where the kernel or the file system has no O_TMPFILE
// (EOPNOTSUPP; EISDIR from kernels before 3.11, which read the flag as
// O_DIRECTORY), or where link could not name the file (no /proc).
func (d *dirHandle) createAnon() (*os.File, error) {
	if !procFD() {
		return nil, errNoAnon
	}
	fd, err := openat(d.fd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), "(anonymous)"), nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
		return nil, errNoAnon
	}
	return nil, pathError("open", "(anonymous)", err)
}

// link gives the open file f the name name in the directory: linkat of
// its /proc/self/fd entry, which unlike AT_EMPTY_PATH needs no
// privilege. It fails with fs.ErrExist when name exists.
func (d *dirHandle) link(f *os.File, name string) error {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	return pathError("link", name, unix.Linkat(unix.AT_FDCWD, proc, d.fd, name, unix.AT_SYMLINK_FOLLOW))
}

// procFD reports whether /proc/self/fd is there, which link needs.
var procFD = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})
