package briefing

import (
	"loom-results/errcode"
	"loom-results/results"
)

// MaxPaths is how many paths one inspect may read (SPEC section 5).
const MaxPaths = 64

// Entry is one path's answer of inspect: a descriptor, or the path's error.
type Entry struct {
	Descriptor *results.Descriptor
	Path       string
	Err        *errcode.Error
}

// CheckPaths validates the number of inspect's paths (an argument check).
func CheckPaths(paths []string) *errcode.Error {
	if len(paths) < 1 || len(paths) > MaxPaths {
		return errcode.New(errcode.InvalidArgument, "paths has %d entries; give 1 to %d", len(paths), MaxPaths)
	}
	return nil
}

// Inspect reads each path under the root and retains its bytes, one entry a
// path, in order. A path's failure is that entry's alone.
func (b *Briefing) Inspect(paths []string) []Entry {
	out := make([]Entry, len(paths))
	for i, p := range paths {
		d, err := b.inspect(p)
		out[i] = Entry{Descriptor: d, Path: p, Err: err}
	}
	return out
}

func (b *Briefing) inspect(path string) (*results.Descriptor, *errcode.Error) {
	data, rel, err := b.opts.Root.Read(path, b.opts.Limits.MaxResultBytes)
	if err != nil {
		return nil, err
	}
	t, err := results.Analyze(data)
	if err != nil {
		return nil, err
	}
	d, err := b.retain(t, true, results.Source{Kind: results.KindFile, Path: &rel})
	return d, err
}

// retain keeps t in the store and describes it under the context policy: in
// bounded context a full store is the error store_full (SPEC section 7).
func (b *Briefing) retain(t *results.Text, complete bool, src results.Source) (*results.Descriptor, *errcode.Error) {
	got := b.store.Retain(t, complete, src)
	view := results.Full
	if b.opts.Context == Bounded {
		if got.Result == nil {
			return nil, storeFull(int64(len(t.Data)), b.store)
		}
		view = results.Compact
	}
	d := results.Describe(t, complete, src, got, view, b.opts.Limits.PreviewBytes)
	return &d, nil
}

func storeFull(size int64, s *results.Store) *errcode.Error {
	cfg := s.Config()
	return errcode.New(errcode.StoreFull,
		"a %d-byte result does not fit: the store holds %d of %d results and %d of %d bytes (at most %d a result)",
		size, s.Len(), cfg.MaxResults, s.Bytes(), cfg.MaxStoreBytes, cfg.MaxResultBytes).With("size", size)
}
