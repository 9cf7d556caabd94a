package results

import (
	"crypto/sha256"
	"strconv"
	"sync"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

// Quota is the process-wide cap on the bytes of all briefings together
// (--max-total-bytes). It is safe for concurrent use.
type Quota struct {
	mu    sync.Mutex
	limit int64
	used  int64
	held  int64 // bytes being read that may become results (Hold)
	// follow, when set, is told the bytes used and held after every
	// change, under mu (so in the order of the changes): FollowMemory.
	follow func(used int64)
}

// NewQuota returns a quota of limit bytes.
func NewQuota(limit int64) *Quota { return &Quota{limit: limit} }

func (q *Quota) reserve(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n > q.limit-q.used {
		return false
	}
	q.used += n
	q.followLocked()
	return true
}

// followLocked tells follow the bytes used and held; q.mu is held.
func (q *Quota) followLocked() {
	if q.follow != nil {
		q.follow(q.used + q.held)
	}
}

// Hold counts n bytes that a call is reading into memory, before they may
// become a result (an inspect's file), in what FollowMemory follows, but
// not against the cap: the memory limit makes room for a read in flight,
// so that the collector does not run again and again while the bytes
// arrive (a fresh server's 16 MiB inspect of JSON took 6-10 ms more under
// a limit that did not count them). The returned function gives them back;
// it must be called once.
func (q *Quota) Hold(n int64) (release func()) {
	q.mu.Lock()
	q.held += n
	q.followLocked()
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		q.held -= n
		q.followLocked()
		q.mu.Unlock()
	}
}

func (q *Quota) available(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return n <= q.limit-q.used
}

func (q *Quota) release(n int64) {
	q.mu.Lock()
	q.used -= n
	q.followLocked()
	q.mu.Unlock()
}

// Limit returns the quota's cap.
func (q *Quota) Limit() int64 { return q.limit }

// Used returns the bytes reserved by all stores.
func (q *Quota) Used() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.used
}

// Store holds the results of one briefing. It is not safe for concurrent
// use: a briefing executes one call at a time.
type Store struct {
	cfg     limits.Config
	quota   *Quota
	results []*Result
	byKey   map[string]*Result
	bytes   int64
}

// NewStore returns an empty store under cfg's caps, sharing quota with the
// other briefings of the process (nil for none).
func NewStore(cfg limits.Config, quota *Quota) *Store {
	if quota == nil {
		quota = NewQuota(cfg.MaxTotalBytes)
	}
	return &Store{cfg: cfg, quota: quota, byKey: make(map[string]*Result)}
}

// Config returns the caps the store enforces.
func (s *Store) Config() limits.Config { return s.cfg }

// Close gives the store's bytes back to the process-wide quota. The store
// must not be used afterwards.
func (s *Store) Close() {
	s.quota.release(s.bytes)
	s.bytes = 0
	s.results, s.byKey = nil, nil
}

// Retained is the outcome of Retain.
type Retained struct {
	Result *Result // nil when the store is full
	Reused bool    // an equal result was already retained
}

// Retain keeps t as a result, or returns the retained result with the same
// digest, completeness and source (SPEC section 3: reused, no capacity used).
// When t does not fit (the result, store, count or process caps), Result is
// nil and the caller answers as its context policy says (SPEC section 7).
func (s *Store) Retain(t *Text, complete bool, src Source) Retained {
	got, _ := s.RetainAll([]Item{{t, complete, src}}, false)
	return got[0]
}

// Item is one text for RetainAll.
type Item struct {
	Text     *Text
	Complete bool
	Source   Source
}

// RetainAll retains items in order, as Retain does each; an item equal to
// an earlier one of the same call is reused. With atomic, it retains all of
// them or, when they do not all fit, none, and reports false.
func (s *Store) RetainAll(items []Item, atomic bool) ([]Retained, bool) {
	keys := make([]string, len(items))
	var count, bytes int64
	oversize := false
	fresh := make(map[string]bool, len(items))
	for i, it := range items {
		keys[i] = reuseKey(it.Text, it.Complete, it.Source)
		if s.byKey[keys[i]] == nil && !fresh[keys[i]] {
			fresh[keys[i]] = true
			count++
			bytes += int64(len(it.Text.Data))
			oversize = oversize || int64(len(it.Text.Data)) > s.cfg.MaxResultBytes
		}
	}
	// Atomic: reserve everything first, so that no other briefing takes the
	// process-wide quota between the check and the adds.
	reserved := atomic && !oversize && s.fits(count, bytes) && s.quota.reserve(bytes)
	if atomic && !reserved {
		return nil, false
	}
	out := make([]Retained, len(items))
	for i, it := range items {
		if r, ok := s.byKey[keys[i]]; ok {
			out[i] = Retained{Result: r, Reused: true}
			continue
		}
		n := int64(len(it.Text.Data))
		if !reserved && (n > s.cfg.MaxResultBytes || !s.fits(1, n) || !s.quota.reserve(n)) {
			continue
		}
		s.bytes += n
		r := &Result{ID: "r" + strconv.Itoa(len(s.results)+1), Text: it.Text, Complete: it.Complete, Source: it.Source}
		s.results = append(s.results, r)
		s.byKey[keys[i]] = r
		out[i] = Retained{Result: r}
	}
	return out, true
}

// fits checks the store's count and byte caps for count new results of
// bytes in all.
func (s *Store) fits(count, bytes int64) bool {
	return int64(len(s.results))+count <= s.cfg.MaxResults && bytes <= s.cfg.MaxStoreBytes-s.bytes
}

func reuseKey(t *Text, complete bool, src Source) string {
	return keyOf(t.Sum, complete, src)
}

func keyOf(sum [sha256.Size]byte, complete bool, src Source) string {
	b := make([]byte, 0, sha256.Size+64)
	b = append(b, sum[:]...)
	b = strconv.AppendBool(b, complete)
	return string(src.appendKey(b))
}

// Hold counts n bytes being read into what may become a result in the
// memory the process follows (Quota.Hold); the function gives them back.
func (s *Store) Hold(n int64) (release func()) { return s.quota.Hold(n) }

// Fits reports whether a new result of size bytes would be retained now:
// under the result, store, count and process caps. A text that would be
// reused fits whatever its size (Reusable).
func (s *Store) Fits(size int64) bool {
	return s.FitsOwnCaps(size) && s.quota.available(size)
}

// FitsOwnCaps reports whether a new result of size bytes is within this
// store's caps (the result, count and store caps), the process-wide quota
// aside.
func (s *Store) FitsOwnCaps(size int64) bool {
	return size <= s.cfg.MaxResultBytes && s.fits(1, size)
}

// Quota returns the process-wide quota the store shares.
func (s *Store) Quota() *Quota { return s.quota }

// Reusable returns the retained result with this digest, completeness and
// source, or nil: what Retain would reuse.
func (s *Store) Reusable(sum [sha256.Size]byte, complete bool, src Source) *Result {
	return s.byKey[keyOf(sum, complete, src)]
}

// Kept returns the newest retained result with this source, complete, of
// size bytes, or nil: a file inspected again that is likely unchanged, so
// that its digest can be checked before it is read whole.
func (s *Store) Kept(src Source, size int64) *Result {
	var key []byte
	for i := len(s.results) - 1; i >= 0; i-- {
		r := s.results[i]
		if !r.Complete || int64(len(r.Text.Data)) != size {
			continue
		}
		if key == nil {
			key = src.appendKey(nil)
		}
		if string(r.Source.appendKey(nil)) == string(key) {
			return r
		}
	}
	return nil
}

// Get returns the result with the given ID, or unknown_result.
func (s *Store) Get(id string) (*Result, *errcode.Error) {
	// IDs are "r" and the 1-based position, so no map is needed.
	if i, ok := idNumber(id); ok && i <= len(s.results) {
		return s.results[i-1], nil
	}
	return nil, errcode.New(errcode.UnknownResult, "no result %q in this session%s", id, s.known())
}

// idNumber returns n for an ID "rN" with N a decimal without sign or
// leading zeros.
func idNumber(id string) (int, bool) {
	if len(id) < 2 || len(id) > 11 || id[0] != 'r' || id[1] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range []byte(id[1:]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func (s *Store) known() string {
	switch len(s.results) {
	case 0:
		return "; it holds none yet: inspect a file (or find over paths) to retain one"
	case 1:
		return "; it holds r1"
	}
	return "; it holds r1-r" + strconv.Itoa(len(s.results))
}

// Len returns the number of retained results.
func (s *Store) Len() int { return len(s.results) }

// Results returns the retained results, oldest first. The slice must not be
// changed.
func (s *Store) Results() []*Result { return s.results }

// Bytes returns the bytes the store holds.
func (s *Store) Bytes() int64 { return s.bytes }
