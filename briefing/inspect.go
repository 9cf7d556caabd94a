package briefing

import (
	"bytes"
	"crypto/sha256"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// MaxPaths is how many paths one inspect may read (SPEC section 5).
const MaxPaths = 64

// Entry is one path's answer of inspect: a descriptor, or the path's error.
type Entry struct {
	Descriptor *results.Descriptor
	Path       string
	Err        *errcode.Error
}

// inspectPaths reads each path under the root and retains its bytes, one entry a
// path, in order. A path's failure is that entry's alone.
func (b *Briefing) inspectPaths(paths []string) []Entry {
	out := make([]Entry, len(paths))
	for i, p := range paths {
		d, err := b.inspect(p)
		out[i] = Entry{Descriptor: d, Path: p, Err: err}
	}
	return out
}

func (b *Briefing) inspect(path string) (*results.Descriptor, *errcode.Error) {
	f, rel, err := b.opts.Root.Open(path, b.resultCap())
	if err != nil {
		if b.isDir(path, err) {
			return b.inspectListing(path)
		}
		return nil, err
	}
	defer f.Close()
	src := results.Source{Kind: results.KindFile, Path: &rel}
	if r := b.store.Kept(src, f.Size()); r != nil {
		if d, ok := b.inspectKept(f, src, r); ok {
			return d, nil
		}
	}
	if !b.store.Fits(f.Size()) {
		if d, done, err := b.inspectUnkept(f, src); done {
			return d, notText(rel, err)
		}
	}
	t, err := b.readText(f)
	if err != nil {
		return nil, notText(rel, err)
	}
	return b.retain(t, true, src)
}

// holdFile retains the file at path as inspect would, for a lookup by
// path (SPEC section 4): it returns the descriptor, the result (nil when
// the store has no room for it, in legacy context) and the text to select
// from, which is read whole even when the store cannot keep it. A
// directory is not_regular_file: its listing is read by its ID.
func (b *Briefing) holdFile(path string) (results.Descriptor, *results.Result, *results.Text, *errcode.Error) {
	f, rel, err := b.opts.Root.Open(path, b.resultCap())
	if err != nil {
		if b.isDir(path, err) {
			err = errcode.New(errcode.NotRegularFile, "%q is a directory: inspect it for its listing and read that by its ID", rel)
		}
		return results.Descriptor{}, nil, nil, err
	}
	defer f.Close()
	src := results.Source{Kind: results.KindFile, Path: &rel}
	if r := b.store.Kept(src, f.Size()); r != nil {
		if d, ok := b.inspectKept(f, src, r); ok {
			return *d, r, r.Text, nil
		}
	}
	t, err := b.readText(f)
	if err != nil {
		return results.Descriptor{}, nil, nil, notText(rel, err)
	}
	got := b.store.Retain(t, true, src)
	if b.opts.Policy == Bounded && got.Result == nil {
		return results.Descriptor{}, nil, nil, storeFull(int64(len(t.Data)), b.store)
	}
	return results.Describe(t, true, src, got, b.view(), b.opts.Limits.PreviewBytes), got.Result, t, nil
}

// notText is err, except that a not_utf8 of file rel says that the file
// is not UTF-8 text and that only UTF-8 text is read (SPEC section 8),
// with the same offset.
func notText(rel string, err *errcode.Error) *errcode.Error {
	if err == nil || err.Code != errcode.NotUTF8 || err.Offset == nil {
		return err
	}
	return fileNotUTF8(rel, *err.Offset)
}

// fileNotUTF8 is the not_utf8 error of file rel, whose first invalid
// UTF-8 sequence starts at off.
func fileNotUTF8(rel string, off int64) *errcode.Error {
	return errcode.Offset(errcode.NotUTF8, off, "file %q is not UTF-8 text (invalid UTF-8 at byte %d): a binary file, or text in "+
		"another encoding; only UTF-8 text is read, so read another file", rel, off)
}

// isDir reports whether path, which Open refused with err, is a
// directory.
func (b *Briefing) isDir(path string, err *errcode.Error) bool {
	if err.Code != errcode.NotRegularFile {
		return false
	}
	_, dir, _ := b.opts.Root.IsDir(path)
	return dir
}

// readText reads a file whole and analyzes it. The digest runs on its own
// goroutine beside the reading, and the UTF-8 and line scan on the
// reading goroutine, each part as it arrives; the JSON build, when the
// text may be JSON, then beside the end of the digest.
func (b *Briefing) readText(f *workspace.File) (*results.Text, *errcode.Error) {
	var digest results.Digest
	var scan selectors.TextScan
	defer b.store.Hold(f.Size())()
	data, err := f.ReadAll(func(filled []byte) {
		digest.Watch(filled)
		scan.Feed(filled)
	})
	if err != nil {
		digest.Stop()
		return nil, err
	}
	return results.AnalyzeRead(data, &digest, &scan)
}

// inspectListing retains the listing of the directory at path (SPEC
// section 5): a result like a file's, reused when its text and source are
// unchanged.
func (b *Briefing) inspectListing(path string) (*results.Descriptor, *errcode.Error) {
	l, err := b.opts.Root.Walk(path, workspace.MaxListing, false)
	if err != nil {
		return nil, err
	}
	text := l.Text()
	if limit := b.resultCap(); int64(len(text)) > limit {
		return nil, errcode.New(errcode.TooLarge, "the listing of %q is %d bytes, over the limit of %d bytes (--max-result-bytes, "+
			"which the person who starts the server sets); list a directory below it",
			l.Rel, len(text), limit).With(errcode.Details{Size: new(int64(len(text))), Limit: new(limit)})
	}
	t, err := results.Analyze(text)
	if err != nil {
		return nil, err // a listing holds only UTF-8 names
	}
	return b.retain(t, true, results.Source{Kind: results.KindListing, Path: &l.Rel})
}

// inspectKept answers for a file read again whose size is that of the
// result r kept for the same path: its digest is computed through one
// window, and when it is r's, r is reused without the file ever being
// held whole (an agent reads files again after changes; a read of a
// 16 MiB file cost 16 MiB each time, only to be dropped). ok is false
// when the file differs, or cannot be read so: it is then read whole, as
// any other file.
func (b *Briefing) inspectKept(f *workspace.File, src results.Source, r *results.Result) (*results.Descriptor, bool) {
	h := sha256.New()
	size, err := f.Stream(make([]byte, unkeptWindow), func(chunk []byte) bool {
		h.Write(chunk)
		return true
	})
	if err != nil || size != int64(len(r.Text.Data)) || !bytes.Equal(h.Sum(nil), r.Text.Sum[:]) {
		return nil, false
	}
	got := results.Retained{Result: r, Reused: true}
	d := results.Describe(r.Text, true, src, got, b.view(), b.opts.Limits.PreviewBytes)
	return &d, true
}

// unkeptWindow is the read window of a file that the store cannot keep.
const unkeptWindow = 1 << 20

// inspectUnkept answers for a file that the store cannot keep (its size
// does not fit) by reading it through one window, never holding it whole:
// a full store costs no more memory than a window per inspect. done is
// false when the file must be read whole after all: it may be JSON (its
// descriptor's type needs the whole document), or it changed size while it
// was read and now fits.
func (b *Briefing) inspectUnkept(f *workspace.File, src results.Source) (d *results.Descriptor, done bool, err *errcode.Error) {
	scan := results.NewStreamScan(b.opts.Limits.PreviewBytes)
	size, err := f.Stream(make([]byte, unkeptWindow), func(chunk []byte) bool {
		scan.Write(chunk)
		return !scan.MaybeJSON()
	})
	if err != nil {
		return nil, true, err
	}
	if scan.MaybeJSON() {
		return nil, false, nil
	}
	sum, err := scan.Finish()
	if err != nil {
		return nil, true, err
	}
	if size != f.Size() && b.store.Fits(size) {
		return nil, false, nil
	}
	if r := b.store.Reusable(sum.Sum, true, src); r != nil {
		d := results.Describe(r.Text, true, src, results.Retained{Result: r, Reused: true}, b.view(), b.opts.Limits.PreviewBytes)
		return &d, true, nil
	}
	if b.opts.Policy == Bounded {
		return nil, true, storeFull(size, b.store)
	}
	desc := results.DescribeSummary(sum, true, src, b.view(), b.opts.Limits.PreviewBytes)
	return &desc, true, nil
}

// retain keeps t in the store and describes it under the context policy: in
// bounded context a full store is the error store_full (SPEC section 7).
func (b *Briefing) retain(t *results.Text, complete bool, src results.Source) (*results.Descriptor, *errcode.Error) {
	got := b.store.Retain(t, complete, src)
	if b.opts.Policy == Bounded && got.Result == nil {
		return nil, storeFull(int64(len(t.Data)), b.store)
	}
	d := results.Describe(t, complete, src, got, b.view(), b.opts.Limits.PreviewBytes)
	return &d, nil
}

// resultCap is the most bytes a result may have: --max-result-bytes, and
// never more than the indexes can address (selectors.MaxSize), so that a
// larger file is refused by its size before it is read.
func (b *Briefing) resultCap() int64 {
	return min(b.opts.Limits.MaxResultBytes, selectors.MaxSize)
}

// view is how descriptors are shown under the context policy: compact in
// bounded context (SPEC section 7).
func (b *Briefing) view() results.View {
	if b.opts.Policy == Bounded {
		return results.Compact
	}
	return results.Full
}

func storeFull(size int64, s *results.Store) *errcode.Error {
	cfg := s.Config()
	if s.FitsOwnCaps(size) {
		// The process-wide cap is the one in the way.
		q := s.Quota()
		return errcode.New(errcode.StoreFull,
			"a %d-byte result does not fit: the sessions of this server hold %d of the %d bytes they may keep together (--max-total-bytes); "+
				"the results this session holds stay readable by their IDs",
			size, q.Used(), q.Limit()).With(errcode.Details{Size: new(size)})
	}
	return errcode.New(errcode.StoreFull,
		"a %d-byte result does not fit: the store holds %d of %d results and %d of %d bytes (at most %d a result); "+
			"the results it holds stay readable by their IDs, and only the person who starts the server can raise "+
			"--max-results or --max-store-bytes",
		size, s.Len(), cfg.MaxResults, s.Bytes(), cfg.MaxStoreBytes, cfg.MaxResultBytes).With(errcode.Details{Size: new(size)})
}
