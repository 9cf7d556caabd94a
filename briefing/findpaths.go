package briefing

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// The bounds of a find over paths (SPEC 5.3): the files it reads, and
// their bytes, as its walk counts them before any is read.
const (
	MaxFindFiles = 10_000
	MaxFindBytes = 1 << 30
)

// FoundFiles is the answer of a find over paths (SPEC 5.3).
type FoundFiles struct {
	Files         []FoundFile     `json:"files"`
	Total         int             `json:"total"`
	Truncated     bool            `json:"truncated"`
	FilesSearched int             `json:"files_searched"`
	FilesSkipped  int             `json:"files_skipped"`
	Bytes         int64           `json:"bytes"`
	EscapedBytes  int64           `json:"escaped_bytes"`
	Budget        limits.Snapshot `json:"budget"`
	Text          string          `json:"-"`
}

// FoundFile is one file with matches: its result (nil when the store had
// no room for it, in legacy context), its matches shown and all it has.
type FoundFile struct {
	Result  *string           `json:"result"`
	Path    string            `json:"path"`
	SHA256  string            `json:"sha256"`
	Matches []selectors.Match `json:"matches"`
	Total   int               `json:"total"`
}

// findFile is one file a find over paths reads.
type findFile struct {
	rel   string
	named bool // named in paths itself: its failure is the call's
	// dir and name: a regular file a walk found, read by its name in its
	// directory; dir is "" for any other (a named file, a link), read by
	// its path.
	dir, name string
	seq       int // its place in the walk, among the files skipped too
}

// TextContent is the matches' text, the answer's text content.
func (f *FoundFiles) TextContent() string { return f.Text }

// findPaths searches the files that paths name, a directory standing for
// the files its listing holds (SPEC 5.3), and retains each file with a
// match as inspect would. Files are read in parallel and matched with the
// one combined matcher; those with matches are retained in the order of
// paths.
func (b *Briefing) findPaths(paths []string, q FindQuery) (*FoundFiles, *errcode.Error) {
	files, skipped, err := b.findFiles(paths)
	if err != nil {
		return nil, err
	}
	out := &FoundFiles{Files: []FoundFile{}}
	var hits []fileHits
	err = b.searchFiles(files, q.Matcher, func(f findFile, data []byte, h fileHits, ferr *errcode.Error) *errcode.Error {
		if ferr != nil {
			if f.named {
				return ferr
			}
			skipped = append(skipped, skippedFile{seq: f.seq, rel: f.rel, code: ferr.Code})
			return nil
		}
		out.FilesSearched++
		if h.total == 0 {
			return nil
		}
		t, err := results.Analyze(data)
		if err != nil {
			return err // not reached: the data is UTF-8
		}
		src := results.Source{Kind: results.KindFile, Path: &f.rel}
		got := b.store.Retain(t, true, src)
		if got.Result == nil && b.opts.Policy == Bounded {
			return storeFull(int64(len(data)), b.store)
		}
		h.file = FoundFile{Path: f.rel, SHA256: t.Hex(), Total: h.total}
		if got.Result != nil {
			h.file.Result = &got.Result.ID
		}
		h.text = t
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.FilesSkipped = len(skipped)
	text := b.showHits(hits, out, q.MaxMatches, skippedLine(skipped))
	size, escaped := int64(len(text)), limits.EscapedSize(text)
	if err := b.budget.ChargeSelected(findSized, size, escaped); err != nil {
		return nil, err
	}
	out.Text, out.Bytes, out.EscapedBytes, out.Budget = text, size, escaped, b.budget.Snapshot()
	return out, nil
}

// fileHits are the matching lines of one file: the first MaxMaxMatches
// of them, and how many there are.
type fileHits struct {
	lines []int
	total int
	file  FoundFile
	text  *results.Text
}

// showHits builds the text of the matches of every file together, and
// fills out's files and counts: for each file with a match shown, the
// line "<ID> <path>:" and then its matches, as find shows one result's;
// matches stop at maxMatches, or at the first that, with its file's
// header line when it is the file's first and the "… N more" line it
// would still need, would pass --max-lookup-bytes. tail, the line of the
// files skipped (or ""), ends the text and is counted as "… N more" is;
// with no match at all, the line "no match in N files" comes before it.
func (b *Briefing) showHits(hits []fileHits, out *FoundFiles, maxMatches int, tail string) string {
	for _, h := range hits {
		out.Total += h.total
	}
	limit := b.opts.Limits.MaxLookupBytes
	var text []byte
	shown, stopped := 0, false
	for _, h := range hits {
		f := h.file
		f.Matches = []selectors.Match{}
		for _, n := range h.lines {
			if stopped || shown == maxMatches {
				stopped = true
				break
			}
			m, line := selectors.Entry(h.text.Data, h.text.Lines, n)
			var head string
			if len(f.Matches) == 0 {
				head = fileHeader(f)
			}
			need := len(head) + len(line) + len(tail)
			if rest := out.Total - shown - 1; rest > 0 {
				need += len(selectors.MoreLine(rest))
			}
			if int64(len(text)+need) > limit {
				stopped = true
				break
			}
			text = append(append(text, head...), line...)
			f.Matches = append(f.Matches, m)
			shown++
		}
		out.Files = append(out.Files, f)
	}
	if rest := out.Total - shown; rest > 0 {
		out.Truncated = true
		if more := selectors.MoreLine(rest); int64(len(text)+len(more)+len(tail)) <= limit {
			text = append(text, more...)
		}
	}
	if out.Total == 0 {
		text = append(text, noMatch(plural(out.FilesSearched, "file"), limit-int64(len(tail)))...)
	}
	if int64(len(text)+len(tail)) <= limit {
		text = append(text, tail...)
	}
	return string(text)
}

// fileHeader is the line that leads a file's matches: "<ID> <path>:\n",
// or "(not retained: store_full) <path>:\n" (SPEC 5.3).
func fileHeader(f FoundFile) string {
	id := "(not retained: " + results.ReasonStoreFull + ")"
	if f.Result != nil {
		id = *f.Result
	}
	return id + " " + results.TextName(f.Path) + ":\n"
}

// findFiles resolves paths to the files a find reads, in order, each
// once: a file by itself, a directory by its listing's files (links
// followed as inspect follows them). A named path that inspect would
// refuse fails the call (SPEC section 4's place of unknown_result); a
// file a directory brought that inspect would refuse by its type or
// size is skipped, listed in skipped. More than MaxFindFiles files, or
// MaxFindBytes bytes, is too_large. Each file, and each file skipped, has
// its place in the walk (seq), so that the files skipped when read can be
// named in walk order with these.
func (b *Briefing) findFiles(paths []string) (files []findFile, skipped []skippedFile, err *errcode.Error) {
	root := b.opts.Root
	limit := b.resultCap()
	seen := map[string]int{} // rel -> index in files
	var total int64
	seq := 0
	add := func(f findFile, size int64) {
		f.seq = seq
		seq++
		if i, ok := seen[f.rel]; ok {
			if f.named {
				files[i].named, files[i].dir = true, ""
			}
			return
		}
		seen[f.rel] = len(files)
		files = append(files, f)
		total += size
	}
	for _, p := range paths {
		f, rel, err := root.Open(p, limit)
		if err == nil {
			add(findFile{rel: rel, named: true}, f.Size())
			f.Close()
			continue
		}
		if !b.isDir(p, err) {
			return nil, nil, err
		}
		l, err := root.Walk(p, workspace.MaxListing, true)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range l.Entries {
			size := e.Size
			if e.Link {
				// Followed as inspect follows it; one it would refuse
				// by what it leads to is skipped.
				f, _, err := root.Open(e.Path, limit)
				if err != nil {
					skipped = append(skipped, skippedFile{seq: seq, rel: e.Path, code: err.Code})
					seq++
					continue
				}
				size = f.Size()
				f.Close()
			}
			if size > limit {
				skipped = append(skipped, skippedFile{seq: seq, rel: e.Path, code: errcode.TooLarge})
				seq++
				continue
			}
			f := findFile{rel: e.Path}
			if !e.Link {
				f.dir, f.name = splitPath(e.Path)
			}
			add(f, size)
		}
		if len(files) > MaxFindFiles || total > MaxFindBytes {
			break
		}
	}
	if len(files) > MaxFindFiles || total > MaxFindBytes {
		return nil, nil, errcode.New(errcode.TooLarge,
			"the paths hold %s files of %d bytes, over the %d files and %d bytes that one find reads; name fewer or smaller directories",
			atLeast(len(files), MaxFindFiles), total, MaxFindFiles, int64(MaxFindBytes)).With(errcode.Details{Limit: new(int64(MaxFindFiles))})
	}
	return files, skipped, nil
}

// splitPath splits a root-relative path into its directory ("." for the
// root) and its last name.
func splitPath(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// atLeast is n, or "more than" the limit when the count stopped early.
func atLeast(n, limit int) string {
	if n > limit {
		return "more than " + strconv.Itoa(limit)
	}
	return strconv.Itoa(n)
}

// tuneSample is the least size of the file a find over paths tunes its
// matcher by.
const tuneSample = 4 << 10

// findWindow is how many files the readers of a find over paths may read
// ahead of the one being retained: it bounds the memory of files held
// for their matches.
const findWindow = 32

// searchFiles reads files in parallel, each checked to be UTF-8 and
// matched against m, and calls use with each one's outcome in the order
// of files, on the calling goroutine; use's error stops the search and is
// returned. A file's data is valid only during use unless it has hits.
func (b *Briefing) searchFiles(files []findFile, m selectors.Matcher, use func(findFile, []byte, fileHits, *errcode.Error) *errcode.Error) *errcode.Error {
	type outcome struct {
		data []byte
		hits fileHits
		err  *errcode.Error
		done chan struct{}
	}
	outs := make([]outcome, len(files))
	for i := range outs {
		outs[i].done = make(chan struct{})
	}
	workers := min(runtime.GOMAXPROCS(0), len(files), 8)
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	ahead := make(chan struct{}, findWindow) // tokens: files read but not yet used
	stop := make(chan struct{})
	var wg sync.WaitGroup
	limit := b.resultCap()
	dirs := newDirCache(b.opts.Root, files)
	defer dirs.closeAll()
	// The literal's searched byte is chosen once, from the first file of
	// some size, rather than from a sample of every file.
	var tuneOnce sync.Once
	var tuned atomic.Pointer[selectors.Matcher]
	matcher := func(data []byte) selectors.Matcher {
		if t := tuned.Load(); t != nil {
			return *t
		}
		if len(data) < tuneSample {
			return m
		}
		tuneOnce.Do(func() {
			t := m.Tune(data)
			tuned.Store(&t)
		})
		return *tuned.Load()
	}
	for range workers {
		wg.Go(func() {
			var buf []byte
			for {
				// The token comes before the file: the files read ahead
				// are then always the next ones to use, and the one the
				// caller waits for always has a reader.
				select {
				case ahead <- struct{}{}:
				case <-stop:
					return
				}
				i, ok := <-next
				if !ok {
					return
				}
				o := &outs[i]
				o.data, o.hits, o.err = b.searchFile(dirs, files[i], limit, buf, matcher)
				if o.err == nil && o.hits.total == 0 {
					buf = o.data[:0] // not kept: the next file reuses it
					o.data = nil
				} else {
					buf = nil
				}
				close(o.done)
			}
		})
	}
	var err *errcode.Error
	for i := range files {
		<-outs[i].done
		o := &outs[i]
		err = use(files[i], o.data, o.hits, o.err)
		o.data = nil
		<-ahead
		if err != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	return err
}

// searchFile reads one file into buf's memory (or more) and finds its
// matching lines: all counted, the first MaxMaxMatches kept.
func (b *Briefing) searchFile(dirs *dirCache, ff findFile, limit int64, buf []byte, matcher func([]byte) selectors.Matcher) ([]byte, fileHits, *errcode.Error) {
	data, err := dirs.read(ff, buf, limit)
	if err != nil {
		return buf, fileHits{}, err
	}
	rel := ff.rel
	if !utf8.Valid(data) {
		_, err := (&selectors.TextScan{}).Lines(data)
		return data, fileHits{}, fileNotUTF8(rel, *err.Offset)
	}
	var h fileHits
	err = matcher(data).Each(data, func(line int) {
		if len(h.lines) < MaxMaxMatches {
			h.lines = append(h.lines, line)
		}
		h.total++
	})
	return data, h, err
}

// dirCache holds open the directories of a find's files while files in
// them are left to read, so that each file is opened by its name in its
// directory (one system call) rather than by its whole path under the
// root's rules (one per component, twice). It is safe for concurrent use.
type dirCache struct {
	root *workspace.Root
	mu   sync.Mutex
	open map[string]*workspace.Dir
	errs map[string]*errcode.Error
	left map[string]int // files not yet read, by directory
}

func newDirCache(root *workspace.Root, files []findFile) *dirCache {
	c := &dirCache{root: root, open: map[string]*workspace.Dir{}, errs: map[string]*errcode.Error{}, left: map[string]int{}}
	for _, f := range files {
		if f.dir != "" {
			c.left[f.dir]++
		}
	}
	return c
}

// read reads file f into buf's memory: by name in its directory when a
// walk found it as a regular file, else by its path as inspect reads it
// (links followed as os.Root follows them).
func (c *dirCache) read(f findFile, buf []byte, limit int64) ([]byte, *errcode.Error) {
	if f.dir == "" {
		return c.readPath(f.rel, buf, limit)
	}
	c.mu.Lock()
	d, ok := c.open[f.dir]
	err := c.errs[f.dir]
	if !ok && err == nil {
		if d, err = c.root.OpenDir(f.dir); err == nil {
			c.open[f.dir] = d
		} else {
			c.errs[f.dir] = err
		}
	}
	c.mu.Unlock()
	var data []byte
	if err == nil {
		data, err = d.ReadFile(f.name, buf, limit)
		if err == workspace.ErrLink {
			// Replaced by a link since the walk: read as inspect would.
			data, err = c.readPath(f.rel, buf, limit)
		}
	}
	c.mu.Lock()
	if c.left[f.dir]--; c.left[f.dir] == 0 && d != nil {
		d.Close()
		delete(c.open, f.dir)
	}
	c.mu.Unlock()
	return data, err
}

func (c *dirCache) readPath(rel string, buf []byte, limit int64) ([]byte, *errcode.Error) {
	f, _, err := c.root.Open(rel, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadInto(buf)
}

// closeAll closes the directories left open (a search stopped early).
func (c *dirCache) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range c.open {
		d.Close()
		delete(c.open, k)
	}
}
