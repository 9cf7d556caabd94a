package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"github.com/loom-results/loom-results/errcode"
)

// Target is a file that Write may replace or create: its root-relative
// path, and what is there now.
type Target struct {
	Rel    string      // cleaned, slash-separated, relative to the root
	Exists bool        // a regular file is there
	Mode   fs.FileMode // its permission bits, when it exists
	Size   int64       // its size, when it exists
}

// Target checks path as a target of write_file (SPEC section 9): the path
// rules of Read, then, when something is there, a regular file that is not
// itself a symbolic link (not_regular_file) and whose permission bits grant
// write permission to someone (unwritable). A parent that exists but is not
// a directory is unwritable; missing parents are fine (Write creates them).
// Symbolic links in the parents are followed as os.Root follows them.
func (r *Root) Target(path string) (Target, *errcode.Error) {
	rel, err := r.resolve(path)
	if err != nil {
		return Target{}, err
	}
	if rel == "." {
		return Target{}, errcode.New(errcode.NotRegularFile, "%q is the root directory, not a regular file", path)
	}
	fi, lerr := r.root.Lstat(filepath.FromSlash(rel))
	switch {
	case lerr == nil:
	case errors.Is(lerr, fs.ErrNotExist):
		return Target{Rel: rel}, nil
	case errors.Is(lerr, syscall.ENOTDIR):
		return Target{}, errcode.New(errcode.Unwritable, "cannot write %q: a parent is not a directory", rel)
	default:
		if c := r.classify(rel, lerr); c.Code == errcode.PathOutsideRoot {
			return Target{}, c
		}
		return Target{}, errcode.New(errcode.Unwritable, "cannot write %q: %s", rel, reason(lerr))
	}
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return Target{}, r.symlinkTarget(rel)
	case !m.IsRegular():
		return Target{}, notRegular(rel, m)
	case m.Perm()&0o222 == 0:
		return Target{}, errcode.New(errcode.Unwritable,
			"file %q is read-only (mode %04o): no one may write it, so write_file does not", rel, m.Perm())
	}
	return Target{Rel: rel, Exists: true, Mode: fi.Mode().Perm(), Size: fi.Size()}, nil
}

// symlinkTarget is the error for a target that is a symbolic link. A write
// would replace the link, not the file it points to, so it is refused
// wherever the link points; when it leads to a regular file under the root,
// the message names that file.
func (r *Root) symlinkTarget(rel string) *errcode.Error {
	link := filepath.FromSlash(rel)
	if dest, err := r.root.Readlink(link); err == nil && !filepath.IsAbs(dest) {
		cand := filepath.Join(filepath.Dir(link), dest)
		a, aerr := r.root.Stat(link)
		b, berr := r.root.Stat(cand)
		if aerr == nil && berr == nil && filepath.IsLocal(cand) && a.Mode().IsRegular() && os.SameFile(a, b) {
			return errcode.New(errcode.NotRegularFile,
				"%q is a symbolic link to %q; write_file does not write through links: write %q itself, with its result as base",
				rel, filepath.ToSlash(cand), filepath.ToSlash(cand))
		}
	}
	return errcode.New(errcode.NotRegularFile, "%q is a symbolic link; write_file does not write through links", rel)
}

// Write replaces the file of t with data, atomically: a temporary file in
// the same directory is written in full, synced and renamed over the
// target, so the target holds either its old bytes or data, never a part.
// An existing file keeps its permission bits (not its owner, extended
// attributes or other hard links: the rename replaces the directory entry,
// so a hard link to the old file keeps the old bytes); a new file gets 0644
// less the umask. Missing parent directories are created under the root
// (and may remain after a later failure). Any failure leaves the target as
// it was and no temporary file behind: unwritable, with the system's
// reason (path_outside_root when a parent leads out of the root).
func (r *Root) Write(t Target, data []byte) *errcode.Error {
	dir := path.Dir(t.Rel)
	fail := func(err error) *errcode.Error {
		if c := r.classify(t.Rel, err); c.Code == errcode.PathOutsideRoot {
			return c
		}
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EEXIST) {
			return errcode.New(errcode.Unwritable, "cannot write %q: a parent is not a directory", t.Rel)
		}
		return errcode.New(errcode.Unwritable, "cannot write %q: %s", t.Rel, reason(err))
	}
	if dir != "." {
		if err := r.root.MkdirAll(filepath.FromSlash(dir), 0o777); err != nil {
			return fail(err)
		}
	}
	tmp, f, err := r.createTemp(dir)
	if err != nil {
		return fail(err)
	}
	err = writeSynced(f, data, t)
	if err == nil {
		err = injected("rename")
	}
	if err == nil {
		err = r.root.Rename(filepath.FromSlash(tmp), filepath.FromSlash(t.Rel))
	}
	if err != nil {
		r.root.Remove(filepath.FromSlash(tmp))
		return fail(err)
	}
	// Make the rename itself durable. The new bytes are in place whatever
	// this says, so a failure to sync the directory is not the call's.
	if d, err := r.root.Open(filepath.FromSlash(dir)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// createTemp creates a new, empty file in dir with a name no other file
// has: ".loom-" and 16 random hex digits, short enough for any directory
// whatever the target's own name.
func (r *Root) createTemp(dir string) (string, *os.File, error) {
	for {
		var b [8]byte
		rand.Read(b[:])
		name := path.Join(dir, ".loom-"+hex.EncodeToString(b[:])+".tmp")
		f, err := r.root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
}

// writeSynced writes data to the new file f, gives it the target's
// permission bits when the target exists, syncs and closes it.
func writeSynced(f *os.File, data []byte, t Target) error {
	err := injected("write")
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && t.Exists {
		// Chmod, not the open's mode: the umask would clear bits the old
		// file had.
		err = f.Chmod(t.Mode)
	}
	if err == nil {
		err = injected("sync")
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// failWrite, when set (by tests), makes a stage of Write fail with the
// error it returns: "write", "sync" or "rename". Failures the system gives
// only under conditions a test cannot make as root (a full disk, a
// directory it may not write) take these paths.
var failWrite func(stage string) error

func injected(stage string) error {
	if failWrite == nil {
		return nil
	}
	return failWrite(stage)
}
