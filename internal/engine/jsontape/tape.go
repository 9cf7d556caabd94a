package jsontape

import (
	"math"
	"sync"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/hugepage"
)

// Type is the type of a JSON value, spelled as in a descriptor's "json"
// field (SPEC section 3) and get_json's "type".
type Type string

// The six JSON types. true and false are both Boolean.
const (
	Object  Type = "object"
	Array   Type = "array"
	String  Type = "string"
	Number  Type = "number"
	Boolean Type = "boolean"
	Null    Type = "null"
)

// MaxDepth is the deepest nesting of arrays and objects that a document may
// have (SPEC section 4.3); the outermost container is level 1.
const MaxDepth = 1000

// Validate reports whether data is exactly one strict RFC 8259 JSON value,
// optionally surrounded by JSON whitespace, under the rules of SPEC section
// 4.3, and returns its type. It is the scan of Build with nothing recorded,
// and does not allocate unless it fails.
//
// On failure the error is invalid_json and its "offset" is the 0-based
// offset of the first byte that cannot continue a valid document:
// len(data) when the document is truncated, and the first byte of the
// sequence for raw invalid UTF-8 inside a string (or len(data) when that
// sequence is a valid prefix cut off by the end of data). Escaped lone
// surrogates such as "\ud800" are valid here; only DecodeString rejects
// them.
func Validate(data []byte) (Type, *errcode.Error) {
	sc := newScanner(data, false, nil)
	if st, why := sc.run(); st != done {
		return "", syntaxError(data, sc.i, why, MaxDepth)
	}
	return sc.top, nil
}

// Options changes what Build accepts.
type Options struct {
	// AllowInvalidUTF8 accepts raw invalid UTF-8 inside strings (names
	// included) instead of failing with invalid_json; Index.InvalidUTF8
	// and Member.InvalidUTF8 report the strings that hold some.
	// Everything else is as strict as Validate. A server reading tool
	// arguments uses it to answer raw invalid bytes with its own error
	// code.
	AllowInvalidUTF8 bool
	// MaxDepth, when positive, replaces MaxDepth as the deepest nesting
	// accepted: a JSON-RPC message may nest deeper than a result (the
	// server accepts what encoding/json accepts, 10,000 levels), and the
	// tool that reads a value of it judges that value's depth (Sub.Check).
	MaxDepth int
}

// depth is the nesting limit of these options.
func (o Options) depth() int {
	if o.MaxDepth > 0 {
		return o.MaxDepth
	}
	return MaxDepth
}

// Build validates data exactly as Validate does (same errors, same
// offsets) and, in the same scan, records the tape of an Index. A document
// of at least splitMin bytes is scanned in two halves on two goroutines
// (see split.go). data is kept, not copied: it must not change afterwards.
//
// Offsets are kept as uint32: data larger than math.MaxUint32 bytes fails
// with too_large (details size and limit) before any scan.
func Build(data []byte, opts Options) (*Index, *errcode.Error) {
	if uint64(len(data)) > math.MaxUint32 {
		return nil, errcode.New(errcode.TooLarge,
			"JSON document of %d bytes is too large to index: at most %d bytes", len(data), uint64(math.MaxUint32)).
			With(errcode.Details{Size: new(int64(len(data))), Limit: new(int64(math.MaxUint32))})
	}
	if len(data) >= splitMin && parallel() {
		return buildSplit(data, opts, len(data)/2)
	}
	// The Index and its builder in one allocation, the builder's first
	// frames inline: a message or tool arguments, the documents built
	// most often, then cost that and their tape.
	p := &struct {
		ix     Index
		b      builder
		frames [8]frame
	}{}
	p.b.init(len(data), p.frames[:0])
	sc := newScanner(data, opts.AllowInvalidUTF8, &p.b)
	sc.maxDepth = opts.depth()
	if st, why := sc.run(); st != done {
		return nil, syntaxError(data, sc.i, why, sc.maxDepth)
	}
	p.ix.init(data, sc.top, p.b.finish())
	p.ix.deepest, p.ix.lenient = sc.hiDepth, opts.AllowInvalidUTF8
	return &p.ix, nil
}

// The tape records few values: a value is recorded when it has at least
// minOwn bytes of its own, bytes that lie in no recorded value inside it
// (so a container of large recorded values, with little between them, is
// not recorded itself). Every unrecorded value is then crossed by looking
// at fewer than minOwn bytes of its own, jumping over the recorded values
// inside it, and the own bytes of recorded values do not overlap: a
// document of N bytes records at most N/minOwn values, whatever its shape.
// Small scalars, most names' values and small records cost nothing.
//
// Arrays also get a checkpoint at every element whose index is a multiple
// of checkpointEvery, from firstCheckpoint on, so that an element is found
// by stepping over at most checkpointEvery-1 elements from one. An array
// with a checkpoint has more than firstCheckpoint elements, so more than
// minOwn bytes of its own in its commas: it is always recorded. Elements
// take at least 2 bytes, so a document has at most N/(2 checkpointEvery)
// checkpoints. With both, the tape costs at most 12 (N/64 + N/64) bytes,
// 0.375 N: 6 MiB for a 16 MiB array of one-digit numbers (the shape that
// made the tape of 12 bytes a value cost 96 MiB), 2.6 MiB for perfbench's
// 16 MiB of records. Denser checkpoints would make a lookup in a large
// array cheaper (each step reads the document at the element's end) but
// cost their memory on every such array, looked up or not.
const (
	minOwn          = 64
	checkpointEvery = 32
	firstCheckpoint = 64
)

// entry is one recorded value, or a checkpoint, on the tape: 12 bytes.
type entry struct {
	start uint32 // the value's first byte; a checkpoint's element's
	end   uint32 // just past the value; a checkpoint's element's index
	// desc counts the entries inside the value: on the final tape, in
	// document order, they follow it. A checkpoint has checkpointFlag.
	desc uint32
}

const checkpointFlag = 1 << 31

func (e entry) checkpoint() bool { return e.desc&checkpointFlag != 0 }

// builder is the sink of a scan that records the tape. The scanner calls
// it only for containers that are not empty, for scalars of at least
// minOwn bytes and for checkpoints: most values reach no sink at all.
//
// A container's fate is known only when it closes, so the builder of a
// large document appends values as they end (the tape in postorder) and
// preorder puts them in document order once the scan is done. A small
// document keeps every value but literals (see smallDocument), so its
// builder appends each container as it opens, in document order, and fills
// in its end and the entries inside it when it closes.
type builder struct {
	tape   postTape
	pre    []entry // the tape of a small document, in document order
	all    bool    // a small document: every container, in pre
	frames []frame // the open containers, outermost first

	// A phantom builder records the second half of a split (split.go):
	// values inside containers it did not see open contribute to phantom,
	// and those containers' ends and checkpoints are kept for the join.
	phantom       bool
	phantomAcc    uint32
	phantomEnds   []phantomEnd
	phantomChecks []phantomCheck
}

// frame is an open container: where it starts, the bytes of the
// outermost recorded values inside it so far, and the tape's length when
// it opened (a small document's: where its entry is).
type frame struct {
	start, acc, mark uint32
}

// smallDocument is the size below which every string, number and
// container that is not empty is recorded, whatever its own bytes: a
// message or tool arguments, which the server walks member by member, are
// then walked without scanning a value to step over it (and a container
// again to go in). Such a tape takes at most 12 bytes per 2 bytes of the
// document, 384 KiB.
const smallDocument = 64 << 10

// newBuilder returns the builder of a document of size bytes.
func newBuilder(size int) *builder {
	b := &builder{}
	b.init(size, nil)
	return b
}

// init sets up a builder of a document of size bytes, with frames for
// its first open containers.
func (b *builder) init(size int, frames []frame) {
	b.all, b.frames = size < smallDocument, frames
	if b.all {
		b.pre = make([]entry, 0, size/16+4)
	}
}

// finish returns the tape in document order.
func (b *builder) finish() []entry {
	if b.all {
		return b.pre
	}
	return preorder(&b.tape)
}

// open is a container that starts at start.
func (b *builder) open(start int) {
	if b.all {
		b.frames = append(b.frames, frame{start: uint32(start), mark: uint32(len(b.pre))})
		b.pre = append(b.pre, entry{start: uint32(start)})
		return
	}
	b.frames = append(b.frames, frame{start: uint32(start), mark: uint32(b.tape.len)})
}

// close is the end of the innermost open container, just before end.
func (b *builder) close(end int) {
	f := b.frames[len(b.frames)-1]
	b.frames = b.frames[:len(b.frames)-1]
	if b.all {
		b.pre[f.mark].end = uint32(end)
		b.pre[f.mark].desc = uint32(len(b.pre)) - f.mark - 1
		return
	}
	size := uint32(end) - f.start
	own := f.acc // what the container brings to its parent's own bytes
	if size-f.acc >= minOwn {
		b.tape.add(entry{start: f.start, end: uint32(end), desc: uint32(b.tape.len) - f.mark})
		own = size
	}
	b.contribute(own)
}

// scalar is a string or number of at least minOwn bytes.
func (b *builder) scalar(start, end int) {
	if b.all {
		b.pre = append(b.pre, entry{start: uint32(start), end: uint32(end)})
		return
	}
	b.tape.add(entry{start: uint32(start), end: uint32(end)})
	b.contribute(uint32(end - start))
}

// contribute adds n bytes of recorded values to the innermost container.
func (b *builder) contribute(n uint32) {
	if len(b.frames) > 0 {
		b.frames[len(b.frames)-1].acc += n
	} else if b.phantom {
		b.phantomAcc += n
	}
}

// checkpoint is element index of the innermost array, which starts at at.
func (b *builder) checkpoint(at int, index uint32) {
	if b.all {
		b.pre = append(b.pre, entry{start: uint32(at), end: index, desc: checkpointFlag})
		return
	}
	if b.phantom && len(b.frames) == 0 {
		b.phantomChecks = append(b.phantomChecks, phantomCheck{tape: b.tape.len, level: len(b.phantomEnds)})
	}
	b.tape.add(entry{start: uint32(at), end: index, desc: checkpointFlag})
}

// postTape is a tape in postorder, kept in chunks that are never copied as
// it grows: the first small, for the small documents of tool arguments,
// and each twice the last up to maxChunk entries, so that a build needs no
// more memory than the tape and the copy preorder makes of it.
type postTape struct {
	chunks  [][]entry
	len     int // the entries, dropped ones included
	dropped int // entries a join dropped (entry.desc == droppedEntry)
}

const (
	firstChunk = 16
	maxChunk   = 1 << 14
)

// droppedEntry marks an entry the join took away: a phantom that is not
// recorded after all.
const droppedEntry = 1 << 30

func (t *postTape) add(e entry) {
	n := len(t.chunks)
	if n == 0 || len(t.chunks[n-1]) == cap(t.chunks[n-1]) {
		size := firstChunk
		if n > 0 {
			size = min(2*cap(t.chunks[n-1]), maxChunk)
		}
		t.chunks = append(t.chunks, make([]entry, 0, size))
		n++
	}
	t.chunks[n-1] = append(t.chunks[n-1], e)
	t.len++
}

// at returns entry k, looking through the chunks: for the join's few uses.
func (t *postTape) at(k int) *entry {
	for _, c := range t.chunks {
		if k < len(c) {
			return &c[k]
		}
		k -= len(c)
	}
	panic("jsontape: no such tape entry")
}

// preorder returns the tape in document order, where each value's entry
// comes before the entries inside it, from the postorder tapes parts (the
// halves of a split, in order), where it comes after them. Value e of the
// postorder, with desc(e) entries inside it, goes to the number of entries
// that start before it: the postorder ones before its own (e - desc(e) of
// them) and its ancestors (which come after it in postorder, and are found
// by walking it backwards).
func preorder(parts ...*postTape) []entry {
	n := 0
	for _, t := range parts {
		n += t.len - t.dropped
	}
	if n == 0 {
		return nil
	}
	pre := make([]entry, n)
	hugepage.AdviseSlice(pre)
	var buf [32]int
	lows := buf[:0] // the first descendant of each ancestor, innermost last
	e := n
	for p := len(parts) - 1; p >= 0; p-- {
		chunks := parts[p].chunks
		for c := len(chunks) - 1; c >= 0; c-- {
			chunk := chunks[c]
			for j := len(chunk) - 1; j >= 0; j-- {
				x := chunk[j]
				if x.desc == droppedEntry {
					continue
				}
				e--
				for len(lows) > 0 && lows[len(lows)-1] > e {
					lows = lows[:len(lows)-1]
				}
				d := int(x.desc &^ checkpointFlag)
				pre[e-d+len(lows)] = x
				if d > 0 {
					lows = append(lows, e-d)
				}
			}
		}
	}
	return pre
}

// Index is a validated JSON document with its tape, for walking the
// document (Root, Kind, Span, Elements, Members) and finding values in it
// (Element, Member). It is immutable once built, apart from the indexes of
// large containers that Element and Member build on first use under a
// mutex, so one Index may be used from several goroutines. It keeps data,
// which must not change.
//
// Memory: 12 bytes per recorded value and per checkpoint, at most 0.375
// bytes per byte of the document and typically a tenth of that (see
// minOwn). Element and Member index a large container's children on first
// use: 4 bytes per checkpoint of an array, 16 to 32 bytes per member of an
// object.
type Index struct {
	data    []byte
	tape    []entry // in document order
	root    Node
	top     Type
	deepest int  // the deepest nesting of arrays and objects in data
	lenient bool // built with AllowInvalidUTF8

	mu   sync.Mutex
	kids map[int]any // by tape entry: *arrayIndex or *objectIndex
}

func newIndex(data []byte, top Type, tape []entry) *Index {
	ix := &Index{}
	ix.init(data, top, tape)
	return ix
}

// init sets up the index of data, whose top-level value is of type top.
func (ix *Index) init(data []byte, top Type, tape []entry) {
	start := skipWS(data, 0)
	end := len(data)
	for end > start && isSpace(data[end-1]) {
		end--
	}
	ix.data, ix.tape, ix.top = data, tape, top
	ix.root = Node{start: uint32(start), end: uint32(end)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// Type returns the type of the document's value.
func (ix *Index) Type() Type { return ix.top }

// Footprint is the memory the index holds beside the document: its tape
// (the indexes of large containers that lookups build later not counted).
func (ix *Index) Footprint() int { return 12 * cap(ix.tape) }
