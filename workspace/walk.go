package workspace

import (
	"errors"
	"io"

	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/loom-results/loom-results/errcode"
)

// MaxListing is the most entries a listing may hold (SPEC section 5).
const MaxListing = 100_000

// maxIgnoreBytes is how much of one ignore file is read: its rules are
// those of its first MiB.
const maxIgnoreBytes = 1 << 20

// Listed is what Walk found: the entries of a directory's listing.
type Listed struct {
	// Rel is the directory, cleaned, root-relative and slash-separated
	// ("." for the root).
	Rel string
	// Entries are sorted by their paths' bytes.
	Entries []ListEntry
}

// ListEntry is one regular file or symbolic link that a walk found.
type ListEntry struct {
	Path string // root-relative, slash-separated
	Link bool   // a symbolic link: listed, not followed
	// Size is a regular file's size when the walk was asked for sizes,
	// else -1 (and always -1 for a link).
	Size int64
}

// Text returns the listing's text: each entry's path and "\n".
func (l *Listed) Text() []byte {
	n := 0
	for _, e := range l.Entries {
		n += len(e.Path) + 1
	}
	out := make([]byte, 0, n)
	for _, e := range l.Entries {
		out = append(out, e.Path...)
		out = append(out, '\n')
	}
	return out
}

// IsDir checks path as Read does and reports whether it names a
// directory (symbolic links followed as os.Root follows them), with the
// path to report. Errors are those Open gives for the path.
func (r *Root) IsDir(path string) (rel string, dir bool, err *errcode.Error) {
	rel, err = r.resolve(path)
	if err != nil {
		return "", false, err
	}
	fi, serr := r.root.Stat(filepath.FromSlash(rel))
	if serr != nil {
		return rel, false, r.classify(rel, serr)
	}
	return rel, fi.IsDir(), nil
}

// Walk lists the directory at path (SPEC section 5): every regular file and
// symbolic link below it (links are listed, not followed), by root-relative
// path, sorted by bytes. It does not enter a directory named ".git" (and
// lists no entry of that name, as git does not), leaves out what the
// .gitignore files inside the root and the root's .git/info/exclude
// ignore, as git does, and leaves out names that are not valid UTF-8 and
// directories that cannot be read. The rules leave out only what lies
// below the named directory: not the directory itself, nor its contents
// because of a rule that matches it or a directory above it; the
// .gitignore files of the directories above it apply to what lies below.
//
// More than maxEntries entries fail with too_large. With sizes, each
// regular file's size is read as the walk finds it (a file it cannot
// stat is left out).
//
// The walk descends by opening each directory relative to its parent,
// one name at a time, never following a link and never going up: it
// cannot leave the directory it starts in, which it opens under os.Root's
// rules.
func (r *Root) Walk(path string, maxEntries int, sizes bool) (*Listed, *errcode.Error) {
	rel, err := r.resolve(path)
	if err != nil {
		return nil, err
	}
	d, oerr := r.root.Open(filepath.FromSlash(rel))
	if oerr != nil {
		return nil, r.classify(rel, oerr)
	}
	defer d.Close()
	fi, serr := d.Stat()
	if serr != nil {
		return nil, r.classify(rel, serr)
	}
	if !fi.IsDir() {
		return nil, notRegular(rel, fi.Mode())
	}
	w := walker{max: maxEntries, sizes: sizes}
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	rules := r.rulesAbove(rel)
	if !w.dir(int(d.Fd()), prefix, rules) {
		return nil, errcode.New(errcode.TooLarge, "directory %q has more than %d entries, the most a listing holds; list a directory below it",
			rel, maxEntries).With(errcode.Details{Limit: new(int64(maxEntries))})
	}
	slices.SortFunc(w.out, func(a, b ListEntry) int { return strings.Compare(a.Path, b.Path) })
	return &Listed{Rel: rel, Entries: w.out}, nil
}

// rulesAbove returns the rules in force in directory rel before its own
// .gitignore is read: the root's .git/info/exclude, then the .gitignore
// of the root and of each directory down to rel's parent.
func (r *Root) rulesAbove(rel string) ignoreRules {
	var rules ignoreRules
	if data := r.readIgnore(".git/info/exclude", true); data != nil {
		rules = rules.parseIgnore(data, "")
	}
	if rel == "." {
		return rules
	}
	base := ""
	for _, name := range strings.Split(rel, "/") {
		if data := r.readIgnore(base+".gitignore", false); data != nil {
			rules = rules.parseIgnore(data, base)
		}
		base += name + "/"
	}
	return rules
}

// readIgnore reads the first maxIgnoreBytes of the ignore file at rel, or
// returns nil when it is not a regular file that can be read. git follows
// no symbolic link to a .gitignore inside the tree (since 2.32), and
// follows one for .git/info/exclude, as follow says.
func (r *Root) readIgnore(rel string, follow bool) []byte {
	if !follow {
		fi, err := r.root.Lstat(filepath.FromSlash(rel))
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
	}
	f, _, err := r.Open(rel, 1<<62)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, rerr := io.ReadAll(io.LimitReader(readerFunc(f.readSome), maxIgnoreBytes))
	if rerr != nil {
		return nil
	}
	return data
}

// walker is one Walk in progress.
type walker struct {
	out   []ListEntry
	max   int
	sizes bool
	buf   []byte // reused by ReadDirent
}

// dirFlags open a directory of the walk: never through a link, never
// waiting.
const dirFlags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK

// dir walks the open directory fd, whose entries' paths start with prefix,
// under rules; it reports false when the entries passed w.max.
func (w *walker) dir(fd int, prefix string, rules ignoreRules) bool {
	names, types, ok := w.readDir(fd)
	if !ok {
		return true // a directory that cannot be read is left out
	}
	for i, name := range names {
		if name == ".gitignore" && types[i] == syscall.DT_REG {
			if data := readIgnoreAt(fd); data != nil {
				rules = slices.Clip(rules).parseIgnore(data, prefix)
			}
			break
		}
	}
	first := len(w.out)
	var subdirs []string // entered after this directory's files are listed
	for i, name := range names {
		if name == ".git" || !utf8.ValidString(name) {
			continue
		}
		typ := types[i]
		if typ == syscall.DT_UNKNOWN {
			typ = lstatType(fd, name)
		}
		path := prefix + name
		switch typ {
		case syscall.DT_DIR:
			if !rules.excluded(path, name, true) {
				subdirs = append(subdirs, name)
			}
		case syscall.DT_REG, syscall.DT_LNK:
			if rules.excluded(path, name, false) {
				continue
			}
			if len(w.out) == w.max {
				return false
			}
			w.out = append(w.out, ListEntry{Path: path, Link: typ == syscall.DT_LNK, Size: -1})
		}
	}
	if w.sizes {
		w.statFiles(fd, prefix, first)
	}
	for _, name := range subdirs {
		sub, err := openat(fd, name, dirFlags)
		if err != nil {
			continue
		}
		more := w.dir(sub, prefix+name+"/", rules)
		syscall.Close(sub)
		if !more {
			return false
		}
	}
	return true
}

// statFiles reads the sizes of the regular files of this directory (fd,
// prefix), w.out[first:], two goroutines at a time for a
// directory of many files (a stat is a system call, and a find's walk
// makes one for every file), and drops those no longer regular files.
func (w *walker) statFiles(fd int, prefix string, first int) {
	mine := w.out[first:]
	stat := func(es []ListEntry) {
		for i := range es {
			e := &es[i]
			if e.Link {
				continue
			}
			var st unix.Stat_t
			if err := fstatat(fd, e.Path[len(prefix):], &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
				e.Size = -2 // gone, or no longer a regular file: left out
				continue
			}
			e.Size = st.Size
		}
	}
	if half := len(mine) / 2; half >= 8 {
		done := make(chan struct{})
		go func() { stat(mine[half:]); close(done) }()
		stat(mine[:half])
		<-done
	} else {
		stat(mine)
	}
	kept := w.out[:first]
	for _, e := range w.out[first:] {
		if e.Size != -2 {
			kept = append(kept, e)
		}
	}
	w.out = kept
}

// readDir reads the names and types of a directory's entries (without "."
// and ".."), as the system's getdents gives them.
func (w *walker) readDir(fd int) (names []string, types []uint8, ok bool) {
	if w.buf == nil {
		w.buf = make([]byte, 32<<10)
	}
	for {
		n, err := readDirent(fd, w.buf)
		if err != nil {
			return nil, nil, false
		}
		if n <= 0 {
			return names, types, true
		}
		names, types = parseDirents(w.buf[:n], names, types)
	}
}

// readIgnoreAt reads the .gitignore of the open directory fd, never
// through a link (git opens it with O_NOFOLLOW), or returns nil.
func readIgnoreAt(dir int) []byte {
	fd, err := openat(dir, ".gitignore", syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), ".gitignore")
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
	if err != nil {
		return nil
	}
	return data
}

// lstatType is the type of a directory entry whose type getdents did not
// give, as lstat sees it.
func lstatType(dir int, name string) uint8 {
	var st unix.Stat_t
	if fstatat(dir, name, &st) != nil {
		return syscall.DT_UNKNOWN
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return syscall.DT_DIR
	case syscall.S_IFREG:
		return syscall.DT_REG
	case syscall.S_IFLNK:
		return syscall.DT_LNK
	}
	return syscall.DT_UNKNOWN
}

// openat is syscall.Openat, retried when a signal interrupts it.
func openat(dir int, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(dir, name, flags, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

// fstatat is lstat of name in directory dir, retried when interrupted.
func fstatat(dir int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dir, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// readDirent is syscall.ReadDirent, retried when interrupted.
func readDirent(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

// A Dir is a directory under the root, open for reading many files in it
// by name, each with one open relative to it (Root.Read walks the whole
// path for each file). It is safe for concurrent use.
type Dir struct {
	root *Root
	f    *os.File
	fd   int
	rel  string // "" for the root, else ending in "/"
}

// OpenDir opens the directory at rel (root-relative, as Walk reports
// paths) under os.Root's rules.
func (r *Root) OpenDir(rel string) (*Dir, *errcode.Error) {
	f, err := r.root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, r.classify(rel, err)
	}
	prefix := ""
	if rel != "." && rel != "" {
		prefix = rel + "/"
	}
	return &Dir{root: r, f: f, fd: int(f.Fd()), rel: prefix}, nil
}

// Close closes the directory.
func (d *Dir) Close() { d.f.Close() }

// ErrLink is the error ReadFile gives for a name that is a symbolic link:
// read it through Root.Open, which follows it as os.Root does.
var ErrLink = errcode.New(errcode.Unreadable, "a symbolic link")

// ReadFile reads the regular file name of d into buf's memory (grown as
// needed), under Read's rules: never more than maxBytes+1 bytes (too_large
// past maxBytes), never blocking on a FIFO, never a device, socket or
// directory (not_regular_file). It follows no symbolic link: a name that
// is one fails with ErrLink.
func (d *Dir) ReadFile(name string, buf []byte, maxBytes int64) ([]byte, *errcode.Error) {
	rel := d.rel + name
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, ErrLink
		}
		return nil, d.root.classify(rel, err)
	}
	defer syscall.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, d.root.classify(rel, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, notRegular(rel, fileMode(st.Mode))
	}
	if st.Size > maxBytes {
		return nil, errcode.New(errcode.TooLarge, "file %q is %d bytes, over the limit of %d bytes", rel, st.Size, maxBytes).
			With(errcode.Details{Size: new(st.Size), Limit: new(maxBytes)})
	}
	if want := st.Size + 1; int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), maxBytes+1)
		n, err := syscall.Read(fd, buf[len(buf):end])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, d.root.classify(rel, err)
		}
		asked := int(end) - len(buf)
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > maxBytes {
			return nil, tooLarge(rel, maxBytes)
		}
		// A read of a regular file that gives fewer bytes than asked has
		// reached its end; when that is the size fstat gave, the read
		// that would say so is saved.
		if n == 0 || n < asked && int64(len(buf)) == st.Size {
			return buf, nil
		}
	}
}
