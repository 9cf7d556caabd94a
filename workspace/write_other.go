//go:build !unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// largeFile is 0: only some unix systems need a flag to open large files.
const largeFile = 0

// dirHandle is an open directory of the root, as an os.Root of its own:
// every step of a write names one file in it (Dest).
type dirHandle struct {
	root *os.Root
	abs  string
}

// fileKey is a file's identity for the process's lock: here, its absolute
// path.
type fileKey string

func openDir(r *Root, dir string) (*dirHandle, error) {
	fi, err := r.root.Stat(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: errNotDir}
	}
	sub, err := r.root.OpenRoot(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: sub, abs: filepath.Join(r.dir, filepath.FromSlash(dir))}, nil
}

var errNotDir = errors.New("not a directory")

func (d *dirHandle) key(name string) fileKey { return fileKey(filepath.Join(d.abs, name)) }

func (d *dirHandle) close() { d.root.Close() }

// lockAcrossProcesses does nothing here: only the process's own per-file
// lock serializes writes.
func (d *dirHandle) lockAcrossProcesses(time.Duration) (func(), error) { return func() {}, nil }

// sync does nothing: directories cannot be synced here.
func (d *dirHandle) sync() error { return nil }

func (d *dirHandle) lstat(name string) (statInfo, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return statInfo{}, err
	}
	return statInfo{mode: fi.Mode(), size: fi.Size()}, nil
}

// access has no access(2) to ask here: the permission bits decide.
func (d *dirHandle) access(name string) error { return nil }

func (d *dirHandle) openRead(name string) (*os.File, error) { return d.root.Open(name) }

func (d *dirHandle) createNamed(name string) (*os.File, error) {
	return d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func (d *dirHandle) createAnon() (*os.File, error) { return nil, errNoAnon }

func (d *dirHandle) link(f *os.File, name string) error {
	return errors.New("anonymous files are not supported here")
}

func (d *dirHandle) rename(from, to string) error { return d.root.Rename(from, to) }

func (d *dirHandle) remove(name string) error { return d.root.Remove(name) }

func (d *dirHandle) names() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
