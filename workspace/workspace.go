// Package workspace reads regular files confined to the --root tree.
//
// It implements the path rules of SPEC section 5 (inspect): paths are
// relative to the root or absolute and lexically under it, symbolic links are
// followed only as Go's os.Root follows them (relative targets that stay
// inside the root), only regular files are read, never more than the size
// limit plus one byte, and no read waits for data longer than StallTimeout.
// UTF-8 validation is left to the caller, which does it in the same pass as
// hashing.
package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
)

// Root is the tree that Read may read: an open os.Root and the absolute,
// cleaned path it was opened with. It is safe for concurrent use.
type Root struct {
	root  *os.Root
	dir   string
	stall time.Duration // StallTimeout; tests shorten it
	// walkOpen opens the first directory of a walk or a Dir: nil for the
	// system's own way (openNativeDir); tests set it to walk with os.Root
	// (openRootDir) where the system has a faster way.
	walkOpen func(r *Root, f *os.File, rel string) (walkDir, error)
}

// StallTimeout is how long a read may wait for data. Reads of a regular
// file on a disk never wait for an event, but some regular files of the
// kernel do: /proc/kmsg waits for the next kernel message, for ever when
// none comes. Such files can be polled, so each read of one is given this
// deadline, and a read that brings nothing before it fails with
// unreadable. A file that keeps delivering data is read to its end (or to
// the size cap), however slowly. Files that cannot be polled (disk files)
// take no deadline: their reads do not wait for events.
const StallTimeout = 2 * time.Second

// escapeErr is the error os.Root returns for a name that leaves the root.
// The os package does not export it, so Open captures it once by asking an
// os.Root for "..", which always escapes; comparing by identity keeps the
// classification independent of the error's text.
var (
	escapeOnce sync.Once
	escapeErr  error
)

// Open opens dir as the root; "" means the working directory. The root's
// path is made absolute and cleaned lexically (symbolic links in it are not
// resolved), since SPEC section 5 defines "lexically under" against that
// path. It fails if dir does not exist or is not a directory.
func Open(dir string) (*Root, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root %q: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	escapeOnce.Do(func() {
		_, err := root.Lstat("..")
		var pe *fs.PathError
		if errors.As(err, &pe) {
			escapeErr = pe.Err
		}
	})
	return &Root{root: root, dir: abs, stall: StallTimeout}, nil
}

// Close closes the root; Read fails with unreadable afterwards.
func (r *Root) Close() error { return r.root.Close() }

// Dir returns the absolute, cleaned path of the root.
func (r *Root) Dir() string { return r.dir }

// Read returns the exact bytes of the regular file at path and the path to
// report: cleaned, slash-separated and relative to the root (for a symbolic
// link, the link's path, not its target). rel is "" when the path itself is
// invalid or lexically outside the root, and set for every other error
// (a symbolic link that escapes reports the link's path).
//
// A file larger than maxBytes fails with too_large, and at most maxBytes+1
// bytes are read in total, whatever the file claims or does while it is
// read. A negative maxBytes counts as 0. Read never blocks on a FIFO and
// never opens a device or socket that it can see before opening.
func (r *Root) Read(path string, maxBytes int64) (data []byte, rel string, err *errcode.Error) {
	f, rel, err := r.Open(path, maxBytes)
	if err != nil {
		return nil, rel, err
	}
	defer f.Close()
	data, err = f.ReadAll(nil)
	return data, rel, err
}

// A File is a regular file under the root, opened by Open and read by
// ReadAll or Stream under Read's rules.
type File struct {
	root *Root
	f    *os.File
	rel  string
	size int64 // the fstat size: a hint
	max  int64
	read bool // ReadAll or Stream has read some of it
	// polled: the file is in the runtime poller, so a read of it may wait
	// for data, and each read gets StallTimeout as its deadline.
	polled bool
}

// Open opens the regular file at path for reading, under Read's rules: the
// path checks, the file type checks, and too_large when its stat size is
// over maxBytes. rel is as Read's.
func (r *Root) Open(path string, maxBytes int64) (f *File, rel string, err *errcode.Error) {
	rel, err = r.resolve(path)
	if err != nil {
		return nil, "", err
	}
	maxBytes = max(maxBytes, 0)

	// Stat before opening so that devices, sockets and FIFOs are refused
	// without being opened at all: opening some devices has side effects,
	// and opening a socket fails with ENXIO rather than saying what it is.
	fi, serr := r.root.Stat(filepath.FromSlash(rel))
	if serr != nil {
		return nil, rel, r.classify(rel, serr)
	}
	if !fi.Mode().IsRegular() {
		return nil, rel, notRegular(rel, fi.Mode())
	}

	f, err = r.open(rel, maxBytes)
	return f, rel, err
}

// newFile wraps an open file. SetReadDeadline fails (os.ErrNoDeadline)
// exactly for files the runtime does not poll, whose reads never wait.
func newFile(r *Root, f *os.File, rel string, size, maxBytes int64) *File {
	polled := f.SetReadDeadline(time.Time{}) == nil
	return &File{root: r, f: f, rel: rel, size: size, max: maxBytes, polled: polled}
}

// readSome reads from the file's current offset, under StallTimeout when
// the file is polled.
func (f *File) readSome(p []byte) (int, error) {
	if f.polled {
		if err := f.f.SetReadDeadline(time.Now().Add(f.root.stall)); err != nil {
			return 0, err
		}
	}
	return f.f.Read(p)
}

// readerFunc is an io.Reader made of a read function.
type readerFunc func([]byte) (int, error)

func (r readerFunc) Read(p []byte) (int, error) { return r(p) }

// ResultLimitHint ends a too_large message of a file: what the model can
// do next is ask for a larger limit, which only the person who starts the
// server can give (SPEC section 8). Every caller that opens a file for a
// result passes --max-result-bytes as the limit.
const ResultLimitHint = " (--max-result-bytes, which the person who starts the server sets: ask them to raise it, or read a smaller file)"

func tooLarge(rel string, maxBytes int64) *errcode.Error {
	return errcode.New(errcode.TooLarge, "file %q has more than the limit of %d bytes%s", rel, maxBytes, ResultLimitHint).With(errcode.Details{Limit: new(maxBytes)})
}

// Size is the file's size when it was opened. It is only a hint: files in
// /proc report 0, and a file may grow or shrink while it is read.
func (f *File) Size() int64 { return f.size }

// Close closes the file.
func (f *File) Close() { f.f.Close() }

// ReadAll returns the file's exact bytes, from its start, as Read does.
// With watch set, it reads at most 1 MiB at a time and calls watch with the
// bytes read so far after each read that added some, so that a digest can
// be computed while the file is still being read. The bytes watch is given
// never change; the buffer holding them may be replaced if the file grows
// while it is read.
func (f *File) ReadAll(watch func(filled []byte)) ([]byte, *errcode.Error) {
	if err := f.rewind(); err != nil {
		return nil, err
	}
	data, over, rerr := readBounded(readerFunc(f.readSome), f.size, f.max, watch)
	if rerr != nil {
		return nil, f.root.classify(f.rel, rerr)
	}
	if over {
		return nil, tooLarge(f.rel, f.max)
	}
	return data, nil
}

// ReadInto is ReadAll into buf's memory, grown when the file needs more:
// a caller that reads many files and keeps few reuses one buffer. The
// returned bytes share buf's memory when it was large enough.
func (f *File) ReadInto(buf []byte) ([]byte, *errcode.Error) {
	if err := f.rewind(); err != nil {
		return nil, err
	}
	if want := f.size + 1; int64(cap(buf)) < want && want <= f.max+1 {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), f.max+1)
		n, rerr := f.readSome(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > f.max {
			return nil, tooLarge(f.rel, f.max)
		}
		if rerr == io.EOF {
			return buf, nil
		}
		if rerr != nil {
			return nil, f.root.classify(f.rel, rerr)
		}
	}
}

// Stream reads the file from its start through window, calling fn with
// each chunk read (valid only during the call), and returns the size read.
// It reads at most maxBytes+1 bytes and fails with too_large past maxBytes,
// as ReadAll does; fn returning false stops it early (size is then what was
// read so far).
func (f *File) Stream(window []byte, fn func(chunk []byte) bool) (int64, *errcode.Error) {
	if err := f.rewind(); err != nil {
		return 0, err
	}
	var size int64
	for {
		w := window[:min(int64(len(window)), f.max+1-size)]
		n, rerr := f.readSome(w)
		size += int64(n)
		if size > f.max {
			return size, tooLarge(f.rel, f.max)
		}
		if n > 0 && !fn(w[:n]) {
			return size, nil
		}
		if rerr == io.EOF {
			return size, nil
		}
		if rerr != nil {
			return size, f.root.classify(f.rel, rerr)
		}
	}
}

func (f *File) rewind() *errcode.Error {
	if f.read {
		if _, err := f.f.Seek(0, io.SeekStart); err != nil {
			return f.root.classify(f.rel, err)
		}
	}
	f.read = true
	return nil
}

// readFlags open a file for reading as open says, with largeFile: the
// standard library's Root does not add it on 32-bit Linux.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | largeFile

// open opens rel for reading (opened checks it). The file may have been
// replaced since Read's Stat: O_NONBLOCK makes opening a FIFO return at
// once instead of waiting for a writer, O_NOCTTY keeps a terminal from
// becoming the process's controlling terminal, and opened then refuses
// whatever was opened if it is not a regular file. Neither flag changes
// how a regular file is read.
func (r *Root) open(rel string, maxBytes int64) (*File, *errcode.Error) {
	f, err := r.root.OpenFile(filepath.FromSlash(rel), readFlags, 0)
	if err != nil {
		return nil, r.classify(rel, err)
	}
	return r.opened(f, rel, maxBytes)
}

// opened checks a file just opened for reading as rel: by its fstat, a
// regular file (not_regular_file) of at most maxBytes (too_large). It
// closes the file when it fails.
func (r *Root) opened(f *os.File, rel string, maxBytes int64) (*File, *errcode.Error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, r.classify(rel, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(rel, fi.Mode())
	}
	maxBytes = max(maxBytes, 0)
	if fi.Size() > maxBytes {
		f.Close()
		return nil, errcode.New(errcode.TooLarge, "file %q is %d bytes, over the limit of %d bytes%s", rel, fi.Size(), maxBytes, ResultLimitHint).
			With(errcode.Details{Size: new(fi.Size()), Limit: new(maxBytes)})
	}
	return newFile(r, f, rel, fi.Size(), maxBytes), nil
}

// Rel checks path lexically as Read does and returns it cleaned,
// slash-separated and relative to the root, without looking at the file.
func (r *Root) Rel(path string) (string, *errcode.Error) { return r.resolve(path) }

// resolve checks path lexically and returns it cleaned, slash-separated and
// relative to the root ("." for the root itself).
//
// The cleaned path is what is opened, so ".." is resolved lexically before
// any symbolic link is looked at: "link/../a" is "a" whatever link points
// to, which keeps the reported path and the file read the same.
func (r *Root) resolve(path string) (string, *errcode.Error) {
	return r.resolveFor(path, errcode.Unreadable, "read")
}

// resolveFor is resolve for an action: a path too long for the system
// fails with code, saying it cannot verb it (SPEC sections 5 and 9: a
// read's is unreadable, a write's unwritable).
func (r *Root) resolveFor(path string, code errcode.Code, verb string) (string, *errcode.Error) {
	switch {
	case path == "":
		return "", errcode.New(errcode.InvalidArgument, "path is empty")
	case !utf8.ValidString(path):
		return "", errcode.New(errcode.InvalidArgument, "path %s is not valid utf-8", quoteName(path))
	case strings.IndexByte(path, 0) >= 0:
		// No file name can hold a NUL byte: the system call would cut the
		// name there (Go refuses it with EINVAL instead), so it is the
		// argument that is wrong, not the file that is missing.
		return "", errcode.New(errcode.InvalidArgument, "path %s contains a nul byte", quoteName(path))
	}
	clean := filepath.Clean(path)
	if filepath.IsAbs(clean) {
		rel, err := filepath.Rel(r.dir, clean)
		if err != nil || !filepath.IsLocal(rel) {
			return "", errcode.New(errcode.PathOutsideRoot, "path %s is outside the root %q; name a path under it", quoteName(path), r.dir)
		}
		clean = rel
	} else if !filepath.IsLocal(clean) {
		return "", errcode.New(errcode.PathOutsideRoot, "path %s leaves the root %q; name a path under it", quoteName(path), r.dir)
	}
	if len(clean) >= maxPath {
		// The system refuses such a name (ENAMETOOLONG), but os.Root
		// would first split it into its components and walk them: an
		// 8 MiB path of a/a/... took hundreds of megabytes before it
		// failed. Refused here, before any system call.
		return "", errcode.New(code, "cannot %s %s: file name too long (the system takes paths of at most %d bytes)",
			verb, quoteName(clean), maxPath-1)
	}
	return filepath.ToSlash(clean), nil
}

// maxPath is the system's PATH_MAX: a path passed to it has fewer bytes
// (the count includes the final NUL). Linux's; macOS's is smaller, and
// refuses longer paths itself.
const maxPath = 4096

// quoteName quotes a path for a message, cut to its first 200 bytes (on a
// character boundary) with its size when it has more than 256: a message
// names the path, it need not repeat a megabyte of it.
func quoteName(p string) string {
	if len(p) <= 256 {
		return strconv.Quote(p)
	}
	n := 200
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return strconv.Quote(p[:n]) + fmt.Sprintf("... (%d bytes)", len(p))
}

// classify turns an error from os.Root or from reading into a SPEC code.
func (r *Root) classify(rel string, err error) *errcode.Error {
	switch {
	case escapeErr != nil && errors.Is(err, escapeErr):
		return errcode.New(errcode.PathOutsideRoot,
			"path %q resolves outside the root %q: symbolic links must be relative and stay inside it", rel, r.dir)
	case errors.Is(err, fs.ErrNotExist):
		return errcode.New(errcode.NotFound, "file %q not found; inspect a directory (\".\" is the root) to list its files", rel)
	case errors.Is(err, syscall.ENOTDIR):
		// "a.go/b" where a.go is a file: nothing can exist there.
		return errcode.New(errcode.NotFound, "file %q not found: a parent is not a directory", rel)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errcode.New(errcode.Unreadable,
			"cannot read %q: it gave no data for %s (a file that waits for events, like /proc/kmsg)", rel, r.stall)
	case errors.Is(err, syscall.ENXIO):
		// Opening for reading fails with ENXIO only on a socket or a
		// device without its driver; it is reached only when the file
		// changed after Stat.
		return errcode.New(errcode.NotRegularFile, "%q is not a regular file", rel)
	}
	return errcode.New(errcode.Unreadable, "cannot read %q: %s", rel, reason(err))
}

// reason is the system's own text for err, without the operation and path
// that os adds (those name the root-relative path in os.Root's terms).
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

func notRegular(rel string, m fs.FileMode) *errcode.Error {
	var what string
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	default:
		what = "of type " + m.Type().String()
	}
	return errcode.New(errcode.NotRegularFile, "%q is %s, not a regular file", rel, what)
}
