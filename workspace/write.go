package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/writehook"
)

// Target is a file that a write may replace or create: its root-relative
// path, and what is there now.
type Target struct {
	Rel    string      // cleaned, slash-separated, relative to the root
	Exists bool        // a regular file is there
	Mode   fs.FileMode // its permission bits, when it exists
	Size   int64       // its size, when it exists
}

// Target checks path as a target of write_file (SPEC section 9): the path
// rules of Read (but a path too long for the system is unwritable), then,
// when something is there, a regular file that is not itself a symbolic
// link (not_regular_file), whose permission bits grant write permission
// to someone, and that this process's user may write as access(2) with
// W_OK says (both unwritable). A parent that exists but is not a
// directory is unwritable; missing parents are fine (a write creates
// them). Symbolic links in the parents are followed as os.Root follows
// them.
func (r *Root) Target(path string) (Target, *errcode.Error) {
	d, err := r.dest(path, false)
	if err != nil {
		return Target{}, err
	}
	defer d.close()
	return d.Target()
}

// A Dest is the file of one write, held for it by Lock: its parent
// directory is open, and every later step (the checks, reading the file,
// creating, linking, renaming and removing the temporary file) is made
// relative to that one handle, by a single name. A path component swapped
// for a symbolic link between two steps can neither redirect a step out
// of the root nor strand a temporary file: the directory a write started
// in is the one it finishes or cleans up in.
//
// Lock also takes the process's lock of the file, known by its identity
// (its directory's device and inode, and its name): writes of one process
// to one file, from any briefing and by any path that names it, run one
// at a time, from their conflict check to their rename.
type Dest struct {
	r      *Root
	rel    string     // the cleaned root-relative path
	name   string     // its last element
	dir    *dirHandle // the open parent; nil when it does not exist
	unlock func()
}

// Lock opens the directory of path for a write to the file there and
// takes the file's lock; Unlock releases both. Missing parent directories
// are created when mkdirs is set (they may remain after a later
// failure); otherwise the Dest of a file whose directory is missing holds
// nothing and says the file does not exist. path follows Target's rules
// for the path alone: the file itself is checked by Dest.Target.
func (r *Root) Lock(path string, mkdirs bool) (*Dest, *errcode.Error) {
	d, err := r.dest(path, mkdirs)
	if err != nil {
		return nil, err
	}
	if d.dir != nil {
		unlock := lockFile(d.dir.key(d.name))
		// Other processes of this server (two stdio sessions on one
		// project) serialize through an advisory lock on the directory:
		// the per-file lock above is one process's alone.
		release, lerr := d.dir.lockAcrossProcesses(dirLockWait)
		if lerr != nil {
			unlock()
			d.close()
			return nil, errcode.New(errcode.Unwritable, "cannot write %q: %v", d.rel, lerr)
		}
		d.unlock = func() { release(); unlock() }
	}
	return d, nil
}

// dirLockWait bounds how long a write waits for another process's write
// in the same directory to end.
const dirLockWait = 5 * time.Second

// Unlock releases the file's lock and closes its directory.
func (d *Dest) Unlock() {
	if d.unlock != nil {
		d.unlock()
		d.unlock = nil
	}
	d.close()
}

// Rel is the file's cleaned, slash-separated root-relative path.
func (d *Dest) Rel() string { return d.rel }

func (d *Dest) close() {
	if d.dir != nil {
		d.dir.close()
		d.dir = nil
	}
}

// dest resolves path and opens its parent directory, creating missing
// ones when mkdirs is set.
func (r *Root) dest(p string, mkdirs bool) (*Dest, *errcode.Error) {
	rel, err := r.resolveFor(p, errcode.Unwritable, "write")
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, errcode.New(errcode.NotRegularFile, "%q is the root directory, not a regular file", p)
	}
	d := &Dest{r: r, rel: rel, name: path.Base(rel)}
	dir := filepath.FromSlash(path.Dir(rel))
	h, oerr := openDir(r, dir)
	if errors.Is(oerr, fs.ErrNotExist) && mkdirs {
		if oerr = r.root.MkdirAll(dir, 0o777); oerr == nil {
			h, oerr = openDir(r, dir)
		}
	}
	switch {
	case oerr == nil:
		d.dir = h
	case errors.Is(oerr, fs.ErrNotExist) && !mkdirs:
		// Nothing is there: the file does not exist.
	default:
		return nil, d.fail(oerr)
	}
	return d, nil
}

// fail turns a system error of a write step into its SPEC code:
// path_outside_root when a parent leads out of the root, unwritable with
// the system's reason otherwise.
func (d *Dest) fail(err error) *errcode.Error {
	if c := d.r.classify(d.rel, err); c.Code == errcode.PathOutsideRoot {
		return c
	}
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EEXIST) {
		return errcode.New(errcode.Unwritable, "cannot write %q: a parent is not a directory", d.rel)
	}
	return errcode.New(errcode.Unwritable, "cannot write %q: %s", d.rel, reason(err))
}

// Target checks the file as Root.Target does, in the held directory.
func (d *Dest) Target() (Target, *errcode.Error) {
	if d.dir == nil {
		return Target{Rel: d.rel}, nil
	}
	st, err := d.dir.lstat(d.name)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		return Target{Rel: d.rel}, nil
	default:
		return Target{}, d.fail(err)
	}
	switch m := st.mode; {
	case m&fs.ModeSymlink != 0:
		return Target{}, d.r.symlinkTarget(d.rel)
	case !m.IsRegular():
		return Target{}, notRegular(d.rel, m)
	case m.Perm()&0o222 == 0:
		return Target{}, errcode.New(errcode.Unwritable,
			"file %q is read-only (mode %04o): no one may write it, so write_file does not", d.rel, m.Perm())
	}
	if err := d.dir.access(d.name); err != nil {
		return Target{}, errcode.New(errcode.Unwritable,
			"file %q may not be written by this server's user (uid %d): %s; write_file replaces only files that user could write itself",
			d.rel, os.Getuid(), reason(err))
	}
	return Target{Rel: d.rel, Exists: true, Mode: st.mode.Perm(), Size: st.size}, nil
}

// Read returns the file's exact bytes as Root.Read would (at most maxBytes,
// too_large past them), read in the held directory and never through a
// symbolic link.
func (d *Dest) Read(maxBytes int64) ([]byte, *errcode.Error) {
	if d.dir == nil {
		return nil, errcode.New(errcode.NotFound, "file %q not found", d.rel)
	}
	of, err := d.dir.openRead(d.name)
	if err != nil {
		return nil, d.r.classify(d.rel, err)
	}
	f, cerr := d.r.opened(of, d.rel, maxBytes)
	if cerr != nil {
		return nil, cerr
	}
	defer f.Close()
	return f.ReadAll(nil)
}

// Write replaces the file with data, atomically, and returns nil once the
// file holds data: a temporary file in the held directory is written in
// full and synced, check runs (the conflict check, right before the
// rename), and the temporary file is renamed over the target, so the
// target holds either its old bytes or data, never a part. check's error
// is returned as it is, and nothing is written.
//
// Where the file system allows, the temporary file is anonymous (Linux
// O_TMPFILE) until an instant before the rename: a new file is linked in
// place at once, where a file created meanwhile makes the link fail and
// check run again; an existing one is linked under a temporary name and
// renamed over it. Elsewhere it is named from its creation. The name
// (tempName) says which process made it; before its first write into a
// directory, a process removes the temporary files there whose makers are
// gone (cleanStale).
//
// An existing file keeps its permission bits (not its owner, extended
// attributes or other hard links: the rename replaces the directory
// entry, so a hard link to the old file keeps the old bytes); a new file
// gets 0644 less the umask. Any failure leaves the target as it was and
// no temporary file behind: unwritable, with the system's reason.
func (d *Dest) Write(data []byte, check func() *errcode.Error) *errcode.Error {
	if d.dir == nil {
		return errcode.New(errcode.Unwritable, "cannot write %q: its directory does not exist", d.rel)
	}
	t, cerr := d.Target()
	if cerr != nil {
		return cerr
	}
	d.cleanStale()
	tmp, err := d.dir.createTemp(!writehook.Named())
	if err != nil {
		return d.fail(err)
	}
	defer tmp.discard()
	if err := tmp.fill(data, t); err != nil {
		return d.fail(err)
	}
	if err := writehook.At(writehook.Check); err != nil {
		return d.fail(err)
	}
	if cerr := check(); cerr != nil {
		return cerr
	}
	if cerr := d.install(tmp, t.Exists, check); cerr != nil {
		return cerr
	}
	// The target holds data. Make the rename itself durable; a failure to
	// sync the directory is not the call's.
	writehook.At(writehook.Done)
	d.dir.sync()
	return nil
}

// install gives the written temporary file the target's name. An
// anonymous file of a new target is linked there directly (a link never
// replaces a file: one that appeared since the check makes it fail, and
// check decides); otherwise the file gets a temporary name, unless it has
// one, and is renamed over the target.
func (d *Dest) install(tmp *tempFile, exists bool, check func() *errcode.Error) *errcode.Error {
	if tmp.anon() && !exists {
		if err := writehook.At(writehook.Link); err != nil {
			return d.fail(err)
		}
		err := d.dir.link(tmp.f, d.name)
		if err == nil {
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return d.fail(err)
		}
		if cerr := check(); cerr != nil {
			return cerr
		}
	}
	if tmp.anon() {
		if err := writehook.At(writehook.Link); err != nil {
			return d.fail(err)
		}
		if err := tmp.nameIt(); err != nil {
			return d.fail(err)
		}
	}
	err := writehook.At(writehook.Rename)
	if err == nil {
		err = d.dir.rename(tmp.name, d.name)
	}
	if err != nil {
		return d.fail(err)
	}
	tmp.name = "" // it is the target now: nothing to remove
	return nil
}

// tempFile is a write's temporary file in its directory: anonymous until
// nameIt, or named from its creation.
type tempFile struct {
	dir  *dirHandle
	f    *os.File
	name string // its name in dir; "" while it has none
}

func (t *tempFile) anon() bool { return t.name == "" }

// createTemp creates an empty temporary file in d: anonymous when anon is
// set and the file system allows, named otherwise.
func (d *dirHandle) createTemp(anon bool) (*tempFile, error) {
	if anon {
		f, err := d.createAnon()
		if err == nil {
			return &tempFile{dir: d, f: f}, nil
		}
		if !errors.Is(err, errNoAnon) {
			return nil, err
		}
	}
	for {
		name := tempName()
		f, err := d.createNamed(name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &tempFile{dir: d, f: f, name: name}, nil
	}
}

// nameIt links the anonymous file under a temporary name.
func (t *tempFile) nameIt() error {
	for {
		name := tempName()
		err := t.dir.link(t.f, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			t.name = name
		}
		return err
	}
}

// tempName is ".loom-<pid>-<start>-<8 hex>.tmp": the PID of the process
// that made it, when that process started (maker.go's stamp, per system),
// and 8 random hex digits, so that no other file has it. A later process
// knows by the name whether its maker is gone (cleanStale). It is short
// enough for any directory whatever the target's own name.
func tempName() string {
	var b [4]byte
	rand.Read(b[:])
	return tempPrefix + selfStamp() + "-" + hex.EncodeToString(b[:]) + tempSuffix
}

const (
	tempPrefix = ".loom-"
	tempSuffix = ".tmp"
)

// selfStamp is this process's "<pid>-<start>".
var selfStamp = sync.OnceValue(func() string {
	pid := os.Getpid()
	return strconv.Itoa(pid) + "-" + strconv.FormatUint(processStart(pid), 10)
})

// parseTempName returns the maker of a temporary file named by tempName:
// its PID and start; ok is false for any other name (another program's
// file, or a name of a version that did not say its maker).
func parseTempName(name string) (pid int, start uint64, ok bool) {
	mid, ok1 := strings.CutPrefix(name, tempPrefix)
	mid, ok2 := strings.CutSuffix(mid, tempSuffix)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	parts := strings.Split(mid, "-")
	if len(parts) != 3 || len(parts[2]) != 8 {
		return 0, 0, false
	}
	if _, err := hex.DecodeString(parts[2]); err != nil {
		return 0, 0, false
	}
	p, err := strconv.Atoi(parts[0])
	if err != nil || p <= 0 || strconv.Itoa(p) != parts[0] {
		return 0, 0, false
	}
	st, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil || strconv.FormatUint(st, 10) != parts[1] {
		return 0, 0, false
	}
	return p, st, true
}

// The directories this process has cleaned of stale temporary files, by
// identity: each once, before its first write there.
var cleaned = struct {
	sync.Mutex
	m map[fileKey]bool
}{m: map[fileKey]bool{}}

// cleanStale removes, the first time this process writes into the held
// directory, the temporary files there that a process which is gone made
// (a SIGKILL or a power loss between the link and the rename, or during a
// named fallback's write). A file whose maker is alive (the same PID with
// the same start) is never removed, nor one whose maker cannot be told
// (a name that does not say it, a process that cannot be looked at).
func (d *Dest) cleanStale() {
	k := d.dir.key("")
	cleaned.Lock()
	done := cleaned.m[k]
	cleaned.m[k] = true
	cleaned.Unlock()
	if done {
		return
	}
	names, err := d.dir.names()
	if err != nil {
		return
	}
	for _, name := range names {
		pid, start, ok := parseTempName(name)
		if !ok || makerAlive(pid, start) {
			continue
		}
		d.dir.remove(name)
	}
}

// fill writes data to the temporary file, gives it the target's
// permission bits when the target exists, and syncs it.
func (t *tempFile) fill(data []byte, target Target) error {
	err := writehook.At(writehook.Write)
	if err == nil {
		_, err = t.f.Write(data)
	}
	if err == nil && target.Exists {
		// Chmod, not the open's mode: the umask would clear bits the old
		// file had.
		err = t.f.Chmod(target.Mode)
	}
	if err == nil {
		err = writehook.At(writehook.Sync)
	}
	if err == nil {
		err = t.f.Sync()
	}
	return err
}

// discard closes the temporary file and removes its name, if it still
// has one: relative to the same directory handle, so that a swap of the
// directory's path cannot keep the removal from finding it.
func (t *tempFile) discard() {
	t.f.Close()
	if t.name != "" {
		t.dir.remove(t.name)
	}
}

// errNoAnon is createAnon's error where the file system (or the system)
// has no anonymous files.
var errNoAnon = errors.New("no anonymous temporary files here")

// statInfo is what a write needs of a file's lstat.
type statInfo struct {
	mode fs.FileMode
	size int64
}

// The process's file locks, by the file's identity: an entry lives while
// a write holds or waits for it.
var fileLocks = struct {
	sync.Mutex
	m map[fileKey]*fileLock
}{m: map[fileKey]*fileLock{}}

type fileLock struct {
	sync.Mutex
	refs int // writes holding or waiting for it
}

// lockFile takes the process's lock of the file k and returns its
// release.
func lockFile(k fileKey) (unlock func()) {
	fileLocks.Lock()
	l := fileLocks.m[k]
	if l == nil {
		l = &fileLock{}
		fileLocks.m[k] = l
	}
	l.refs++
	fileLocks.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		fileLocks.Lock()
		if l.refs--; l.refs == 0 {
			delete(fileLocks.m, k)
		}
		fileLocks.Unlock()
	}
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
