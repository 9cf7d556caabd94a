package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

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
	d, oerr := r.openNoWait(rel)
	if oerr != nil {
		return nil, r.classify(rel, oerr)
	}
	fi, serr := d.Stat()
	if serr != nil {
		d.Close()
		return nil, r.classify(rel, serr)
	}
	if !fi.IsDir() {
		d.Close()
		return nil, notRegular(rel, fi.Mode())
	}
	top, oerr := r.openWalkDir(d, rel)
	if oerr != nil {
		return nil, r.classify(rel, oerr)
	}
	defer top.close()
	w := walker{max: maxEntries, sizes: sizes}
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	rules := r.rulesAbove(rel)
	if !w.dir(top, prefix, rules) {
		return nil, errcode.New(errcode.TooLarge, "directory %q has more than %d entries, the most a listing holds; list a directory below it",
			rel, maxEntries).With(errcode.Details{Limit: new(int64(maxEntries))})
	}
	slices.SortFunc(w.out, func(a, b ListEntry) int { return strings.Compare(a.Path, b.Path) })
	return &Listed{Rel: rel, Entries: w.out}, nil
}

// openNoWait opens rel for reading under os.Root's rules as Root.open
// does: what was a directory may be a FIFO by now, and opening one
// without O_NONBLOCK waits for a writer, for ever when none comes.
func (r *Root) openNoWait(rel string) (*os.File, error) {
	return r.root.OpenFile(filepath.FromSlash(rel), readFlags, 0)
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

// entryType is the type of a directory entry, as the walk needs it. Its
// values are those of struct dirent's d_type (DT_*), the same on every
// Unix system (dirent_linux.go and dirent_bsd.go store d_type as they read
// it); walk_root.go maps fs.FileMode to them.
type entryType uint8

const (
	typeUnknown entryType = 0  // DT_UNKNOWN: not given; the walk lstats the name
	typeDir     entryType = 4  // DT_DIR: entered unless a rule leaves it out
	typeReg     entryType = 8  // DT_REG: listed
	typeLink    entryType = 10 // DT_LNK: listed, never followed
	// typeOther is a FIFO, device, socket or anything else: neither listed
	// nor entered.
	typeOther entryType = 0xff
)

// A walkDir is a directory open for a walk: the system's part of it, how a
// directory is opened, read and stat-ed. walk_unix.go does it with the *at
// system calls of Unix systems, walk_root.go with os.Root's methods (the
// only way where there are none, Windows). Neither holds a rule of the
// listing: what is listed, entered, ignored and in what order is decided
// here, once.
type walkDir interface {
	// read returns the names and types of the directory's entries, "."
	// and ".." left out; ok is false when it cannot be read. buf is
	// scratch space that the walk keeps from one directory to the next.
	read(buf *[]byte) (names []string, types []entryType, ok bool)
	// lstat gives the type of the entry name, not following a symbolic
	// link, and its size; typeUnknown when it cannot be stat-ed.
	lstat(name string) (entryType, int64)
	// sub opens the subdirectory name, never through a symbolic link.
	sub(name string) (walkDir, bool)
	// openFile opens name for reading, never through a symbolic link
	// (errLink when name is one), without waiting on a FIFO or taking a
	// terminal, and gives the mode and size of what it opened (its fstat).
	openFile(name string) (f io.ReadCloser, mode fs.FileMode, size int64, err error)
	close()
}

// errLink is openFile's error for a name that is a symbolic link (or was
// replaced by one while it was opened).
var errLink = errors.New("a symbolic link")

// openWalkDir returns the directory f, just opened as rel under os.Root's
// rules, as the first directory of a walk: closing it closes f, and so
// does failing. Tests choose the way through walkOpen; else it is the
// system's.
func (r *Root) openWalkDir(f *os.File, rel string) (walkDir, error) {
	if r.walkOpen != nil {
		return r.walkOpen(r, f, rel)
	}
	return openNativeDir(r, f, rel)
}

// walker is one Walk in progress.
type walker struct {
	out   []ListEntry
	max   int
	sizes bool
	buf   []byte // walkDir.read's scratch space
}

// dir walks the open directory d, whose entries' paths start with prefix,
// under rules; it reports false when the entries passed w.max.
func (w *walker) dir(d walkDir, prefix string, rules ignoreRules) bool {
	names, types, ok := d.read(&w.buf)
	if !ok {
		return true // a directory that cannot be read is left out
	}
	for i, name := range names {
		// An entry of unknown type may be the .gitignore: readIgnore
		// checks what it opens.
		if name == ".gitignore" && (types[i] == typeReg || types[i] == typeUnknown) {
			if data := readIgnoreIn(d); data != nil {
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
		if typ == typeUnknown {
			typ, _ = d.lstat(name)
		}
		path := prefix + name
		switch typ {
		case typeDir:
			if !rules.excluded(path, name, true) {
				subdirs = append(subdirs, name)
			}
		case typeReg, typeLink:
			if rules.excluded(path, name, false) {
				continue
			}
			if len(w.out) == w.max {
				return false
			}
			w.out = append(w.out, ListEntry{Path: path, Link: typ == typeLink, Size: -1})
		}
	}
	if w.sizes {
		w.statFiles(d, prefix, first)
	}
	for _, name := range subdirs {
		sub, ok := d.sub(name)
		if !ok {
			continue
		}
		more := w.dir(sub, prefix+name+"/", rules)
		sub.close()
		if !more {
			return false
		}
	}
	return true
}

// statFiles reads the sizes of the regular files of this directory (d,
// prefix), w.out[first:], two goroutines at a time for a
// directory of many files (a stat is a system call, and a find's walk
// makes one for every file), and drops those no longer regular files.
func (w *walker) statFiles(d walkDir, prefix string, first int) {
	mine := w.out[first:]
	stat := func(es []ListEntry) {
		for i := range es {
			e := &es[i]
			if e.Link {
				continue
			}
			typ, size := d.lstat(e.Path[len(prefix):])
			if typ != typeReg {
				e.Size = -2 // gone, or no longer a regular file: left out
				continue
			}
			e.Size = size
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

// readIgnoreIn reads the first maxIgnoreBytes of the .gitignore of d, never
// through a link (git opens it with O_NOFOLLOW), or returns nil when it is
// not a regular file that can be read.
func readIgnoreIn(d walkDir) []byte {
	f, mode, _, err := d.openFile(".gitignore")
	if err != nil {
		return nil
	}
	defer f.Close()
	if !mode.IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
	if err != nil {
		return nil
	}
	return data
}

// A Dir is a directory under the root, open for reading many files in it
// by name, each with one open relative to it (Root.Read walks the whole
// path for each file). It is safe for concurrent use.
type Dir struct {
	root *Root
	d    walkDir
	rel  string // "" for the root, else ending in "/"
}

// OpenDir opens the directory at rel (root-relative, as Walk reports
// paths) under os.Root's rules.
func (r *Root) OpenDir(rel string) (*Dir, *errcode.Error) {
	f, err := r.openNoWait(rel)
	if err != nil {
		return nil, r.classify(rel, err)
	}
	d, err := r.openWalkDir(f, rel)
	if err != nil {
		return nil, r.classify(rel, err)
	}
	prefix := ""
	if rel != "." && rel != "" {
		prefix = rel + "/"
	}
	return &Dir{root: r, d: d, rel: prefix}, nil
}

// Close closes the directory.
func (d *Dir) Close() { d.d.close() }

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
	f, mode, size, err := d.d.openFile(name)
	if err != nil {
		if err == errLink {
			return nil, ErrLink
		}
		return nil, d.root.classify(rel, err)
	}
	defer f.Close()
	if !mode.IsRegular() {
		return nil, notRegular(rel, mode)
	}
	if size > maxBytes {
		return nil, errcode.New(errcode.TooLarge, "file %q is %d bytes, over the limit of %d bytes%s", rel, size, maxBytes, ResultLimitHint).
			With(errcode.Details{Size: new(size), Limit: new(maxBytes)})
	}
	if want := size + 1; int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), maxBytes+1)
		n, err := f.Read(buf[len(buf):end])
		if err != nil && err != io.EOF {
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
		if n == 0 || n < asked && int64(len(buf)) == size {
			return buf, nil
		}
	}
}
