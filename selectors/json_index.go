package selectors

import (
	"bytes"
	"iter"
	"math"
	"sort"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/hugepage"
)

// JSONIndex is a validated JSON document with a flat tape of its values, for
// pointer lookups (Lookup) and for walking the document (Root, Kind, Span,
// Elements, Members). It is immutable once built, apart from the child
// indexes that lookups build lazily under a mutex, so one JSONIndex may be
// used from several goroutines. It keeps data, which must not change.
//
// Memory: the tape costs 12 bytes per value (member names cost nothing; they
// are rescanned from data when needed). A lookup that passes through a
// container with more than jsonSmallContainer descendants builds, once, an
// index of its children: 4 bytes per element of an array, or for an object
// one map entry per member (about 40 bytes on 64-bit) plus its decoded name.
type JSONIndex struct {
	data  []byte
	nodes []jsonNode

	mu   sync.Mutex
	kids map[NodeID]*jsonChildren
}

// NodeID names one value of a JSONIndex. Values are numbered in document
// order (the order of their first bytes); the root is 0.
type NodeID uint32

// JSONValue is a value found by a lookup: the exact span data[Start:End] of
// its lexeme, without surrounding whitespace, and its type.
type JSONValue struct {
	Start, End int
	Type       JSONType
}

// JSONMember is an object member met by JSONIndex.Members.
type JSONMember struct {
	// Name is the decoded name. A lone surrogate escape decodes to its
	// 3-byte generalized UTF-8 form (as in WTF-8) and raw invalid UTF-8 (in
	// a lenient index) is kept as it is, so Name is valid UTF-8 exactly when
	// the name has neither.
	Name string
	// NameStart and NameEnd are the span of the name's lexeme, quotes
	// included.
	NameStart, NameEnd int
	// InvalidUTF8 reports raw invalid UTF-8 in the name's lexeme (possible
	// only in an index built with AllowInvalidUTF8).
	InvalidUTF8 bool
}

// IndexJSONOptions changes what IndexJSONWith accepts.
type IndexJSONOptions struct {
	// AllowInvalidUTF8 accepts raw invalid UTF-8 inside strings (names
	// included) instead of failing with invalid_json; JSONIndex.InvalidUTF8
	// reports the values that hold some. Everything else is as strict as
	// ValidateJSON. A server reading tool arguments uses it to answer raw
	// invalid bytes with its own error code.
	AllowInvalidUTF8 bool
}

// IndexJSON validates data exactly as ValidateJSON does (same errors, same
// offsets) and indexes it in the same pass.
//
// Offsets are kept as uint32: data larger than math.MaxUint32 bytes fails
// with too_large (details size and limit) before any scan.
func IndexJSON(data []byte) (*JSONIndex, *errcode.Error) {
	return IndexJSONWith(data, IndexJSONOptions{})
}

// IndexJSONWith is IndexJSON with options.
func IndexJSONWith(data []byte, opts IndexJSONOptions) (*JSONIndex, *errcode.Error) {
	if uint64(len(data)) > math.MaxUint32 {
		return nil, errcode.New(errcode.TooLarge,
			"JSON document of %d bytes is too large to index: at most %d bytes", len(data), uint64(math.MaxUint32)).
			With("size", int64(len(data))).With("limit", int64(math.MaxUint32))
	}
	nodes, off, why := jsonBuild(data, opts.AllowInvalidUTF8)
	if why != 0 {
		return nil, jsonSyntaxError(data, off, why)
	}
	return &JSONIndex{data: data, nodes: nodes}, nil
}

// jsonNode is one value on the tape: 12 bytes.
type jsonNode struct {
	start, end uint32 // the lexeme is data[start:end]
	// meta packs the kind (bits 0-2), the string flags (bits 3-4) and, for
	// containers, the number of descendants (bits 5-31), saturated at
	// jsonDescSaturated; a saturated count is recovered by binary search.
	meta uint32
}

// Node kinds; 0 is unused.
const (
	jsonKindObject = 1 + iota
	jsonKindArray
	jsonKindString
	jsonKindNumber
	jsonKindTrue
	jsonKindFalse
	jsonKindNull
)

const (
	jsonKindMask      = 7
	jsonFlagShift     = 3
	jsonDescShift     = 5
	jsonDescSaturated = 1<<(32-jsonDescShift) - 1
)

var jsonKindTypes = [...]JSONType{
	jsonKindObject: JSONObject,
	jsonKindArray:  JSONArray,
	jsonKindString: JSONString,
	jsonKindNumber: JSONNumber,
	jsonKindTrue:   JSONBoolean,
	jsonKindFalse:  JSONBoolean,
	jsonKindNull:   JSONNull,
}

// jsonBuild is jsonValidate (json_scan.go) building the tape as it goes;
// the two must accept and reject exactly the same inputs, at the same
// offsets, except that lenient accepts raw invalid UTF-8 in strings.
func jsonBuild(data []byte, lenient bool) (nodes []jsonNode, off int, why jsonReason) {
	var (
		n       = len(data)
		i       = jsonSkipWS(data, 0)
		stack   = make([]uint32, 0, 32) // the open containers' nodes
		c       byte
		inObj   bool
		nameWhy jsonReason
		start   int
		kind    uint32
		flags   uint8
		k       uint32
	)
	nodes = makeTape(data)

value:
	if i >= n {
		return nil, n, jsonErrValue
	}
	c, start = data[i], i
	switch {
	case c == '"':
		if i, flags, why = jsonScanString(data, i, lenient); why != 0 {
			return nil, i, why
		}
		kind = jsonKindString | uint32(flags)<<jsonFlagShift
	case c == '-' || c-'0' < 10:
		if i, why = jsonScanNumber(data, i); why != 0 {
			return nil, i, why
		}
		kind = jsonKindNumber
	case c == '{' || c == '[':
		if len(stack) == MaxJSONDepth {
			return nil, i, jsonErrDepth
		}
		inObj = c == '{'
		kind = jsonKindArray
		if inObj {
			kind = jsonKindObject
		}
		stack = append(stack, uint32(len(nodes)))
		nodes = append(nodes, jsonNode{start: uint32(i), meta: kind})
		if i = jsonSkipWS(data, i+1); i < n {
			if inObj && data[i] == '}' || !inObj && data[i] == ']' {
				i++
				stack = stack[:len(stack)-1]
				nodes[len(nodes)-1].end = uint32(i)
				goto next
			}
		}
		if inObj {
			nameWhy = jsonErrNameOrEnd
			goto name
		}
		if i >= n {
			return nil, n, jsonErrValueOrEnd
		}
		goto value
	case c == 't':
		if i, why = jsonScanLiteral(data, i, "true"); why != 0 {
			return nil, i, why
		}
		kind = jsonKindTrue
	case c == 'f':
		if i, why = jsonScanLiteral(data, i, "false"); why != 0 {
			return nil, i, why
		}
		kind = jsonKindFalse
	case c == 'n':
		if i, why = jsonScanLiteral(data, i, "null"); why != 0 {
			return nil, i, why
		}
		kind = jsonKindNull
	default:
		return nil, i, jsonErrValue
	}
	nodes = append(nodes, jsonNode{start: uint32(start), end: uint32(i), meta: kind})

next:
	if i < n && data[i] <= ' ' {
		i = jsonSkipWS(data, i)
	}
	if len(stack) == 0 {
		if i != n {
			return nil, i, jsonErrAfterTop
		}
		return jsonClip(nodes), 0, 0
	}
	k = stack[len(stack)-1]
	inObj = nodes[k].meta&jsonKindMask == jsonKindObject
	if i >= n {
		if inObj {
			return nil, n, jsonErrAfterMember
		}
		return nil, n, jsonErrAfterElement
	}
	c = data[i]
	if c == ',' {
		if i++; i < n && data[i] <= ' ' {
			i = jsonSkipWS(data, i)
		}
		if inObj {
			nameWhy = jsonErrNameAfterComma
			goto name
		}
		if i < n && data[i] == ']' {
			return nil, i, jsonErrTrailingComma
		}
		goto value
	}
	if inObj && c == '}' || !inObj && c == ']' {
		i++
		stack = stack[:len(stack)-1]
		nodes[k].end = uint32(i)
		nodes[k].meta |= uint32(min(len(nodes)-int(k)-1, jsonDescSaturated)) << jsonDescShift
		goto next
	}
	if inObj {
		return nil, i, jsonErrAfterMember
	}
	return nil, i, jsonErrAfterElement

name:
	if i >= n {
		return nil, n, nameWhy
	}
	if data[i] != '"' {
		if data[i] == '}' && nameWhy == jsonErrNameAfterComma {
			return nil, i, jsonErrTrailingComma
		}
		return nil, i, nameWhy
	}
	if i, _, why = jsonScanString(data, i, lenient); why != 0 {
		return nil, i, why
	}
	if i < n && data[i] <= ' ' {
		i = jsonSkipWS(data, i)
	}
	if i >= n || data[i] != ':' {
		return nil, i, jsonErrColon
	}
	if i++; i < n && data[i] <= ' ' {
		i = jsonSkipWS(data, i)
	}
	goto value
}

// jsonValueBound bounds the number of values in data from above, so that
// the tape is allocated once: every value but the first follows a ',' or
// opens a container after a '[' (an object's values follow ':', counted by
// the ',' between members and the '{' before the first). Commas and
// brackets inside strings make it an overestimate. It counts 32 KiB at a
// time, so that the three counts read each block from the core's cache,
// not three times from memory: a few vectorised passes, far less than
// growing the tape.
func jsonValueBound(data []byte) int {
	if len(data) < 4096 {
		return len(data)/8 + 16
	}
	const block = 32 << 10
	bound := 1
	for len(data) > 0 {
		b := data[:min(block, len(data))]
		data = data[len(b):]
		bound += bytes.Count(b, []byte{','}) + bytes.Count(b, []byte{'['}) + bytes.Count(b, []byte{'{'})
	}
	return bound
}

// makeTape allocates the tape for data's values, advised for huge pages:
// a 16 MiB document's tape is about 20 MB, and its page faults in a fresh
// process cost as much as a third of the build.
func makeTape(data []byte) []jsonNode {
	nodes := make([]jsonNode, 0, jsonValueBound(data))
	hugepage.AdviseSlice(nodes)
	return nodes
}

// jsonClip gives back the tape's spare capacity when it is more than a
// quarter of it.
func jsonClip(nodes []jsonNode) []jsonNode {
	if cap(nodes)-len(nodes) <= len(nodes)/4 {
		return nodes
	}
	return append(make([]jsonNode, 0, len(nodes)), nodes...)
}

// Root returns the document's top-level value.
func (ix *JSONIndex) Root() NodeID { return 0 }

// Kind returns the type of value n.
func (ix *JSONIndex) Kind(n NodeID) JSONType { return jsonKindTypes[ix.kind(n)] }

func (ix *JSONIndex) kind(n NodeID) uint32 { return ix.nodes[n].meta & jsonKindMask }

// Span returns the span data[start:end] of value n's lexeme, without
// surrounding whitespace.
func (ix *JSONIndex) Span(n NodeID) (start, end int) {
	return int(ix.nodes[n].start), int(ix.nodes[n].end)
}

// Value returns value n as a lookup would.
func (ix *JSONIndex) Value(n NodeID) JSONValue {
	start, end := ix.Span(n)
	return JSONValue{Start: start, End: end, Type: ix.Kind(n)}
}

// InvalidUTF8 reports whether string n holds raw invalid UTF-8, which only
// an index built with AllowInvalidUTF8 accepts. Escaped lone surrogates do
// not count; StringText finds both.
func (ix *JSONIndex) InvalidUTF8(n NodeID) bool {
	return ix.kind(n) == jsonKindString && ix.nodes[n].meta>>jsonFlagShift&jsonStrInvalidUTF8 != 0
}

// StringText returns the decoded text of string n (and "", -1 for any other
// value). It never fails: a lone surrogate escape decodes to its 3-byte
// generalized UTF-8 form (as in WTF-8) and raw invalid UTF-8 is kept as it
// is. invalidAt is the offset, in text, of the first byte that is not valid
// UTF-8 (so a lone surrogate counts as its 3-byte form), or -1 when text is
// valid UTF-8. DecodeJSONString is the strict form for "as": "string".
func (ix *JSONIndex) StringText(n NodeID) (text string, invalidAt int) {
	if ix.kind(n) != jsonKindString {
		return "", -1
	}
	nd := ix.nodes[n]
	if nd.meta>>jsonFlagShift&(jsonStrEscaped|jsonStrInvalidUTF8) == 0 {
		return string(ix.data[nd.start+1 : nd.end-1]), -1
	}
	buf, _, _ := jsonDecodeString(make([]byte, 0, nd.end-nd.start), ix.data, int(nd.start), int(nd.end), false)
	return string(buf), FirstInvalidUTF8(buf)
}

// FirstInvalidUTF8 returns the offset of the first byte of b that does not
// start a valid UTF-8 sequence, or -1 when b is valid UTF-8.
func FirstInvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// Len returns the number of elements of array n or members of object n,
// and 0 for any other value. It takes time in proportion to that number
// unless a lookup has already indexed n's children.
func (ix *JSONIndex) Len(n NodeID) int {
	if k := ix.kind(n); k != jsonKindArray && k != jsonKindObject {
		return 0
	}
	ix.mu.Lock()
	ch := ix.kids[n]
	ix.mu.Unlock()
	if ch != nil {
		return len(ch.nodes)
	}
	count := 0
	for v, end := n+1, ix.after(n); v < end; v = ix.after(v) {
		count++
	}
	return count
}

// Elements yields the index and node of each element of array n, in order
// (nothing when n is not an array).
func (ix *JSONIndex) Elements(n NodeID) iter.Seq2[int, NodeID] {
	return func(yield func(int, NodeID) bool) {
		if ix.kind(n) != jsonKindArray {
			return
		}
		i := 0
		for v, end := n+1, ix.after(n); v < end; v = ix.after(v) {
			if !yield(i, v) {
				return
			}
			i++
		}
	}
}

// Members yields each member of object n, in document order, with its
// value's node (nothing when n is not an object). Duplicate names are all
// yielded; names are decoded as JSONMember.Name says.
func (ix *JSONIndex) Members(n NodeID) iter.Seq2[JSONMember, NodeID] {
	return func(yield func(JSONMember, NodeID) bool) {
		if ix.kind(n) != jsonKindObject {
			return
		}
		var buf []byte
		for c := ix.members(n); c.next(); {
			var name string
			if c.flags&(jsonStrEscaped|jsonStrInvalidUTF8) == 0 {
				name = string(ix.data[c.nameStart+1 : c.nameEnd-1])
			} else {
				buf, _, _ = jsonDecodeString(buf[:0], ix.data, c.nameStart, c.nameEnd, false)
				name = string(buf)
			}
			m := JSONMember{Name: name, NameStart: c.nameStart, NameEnd: c.nameEnd, InvalidUTF8: c.flags&jsonStrInvalidUTF8 != 0}
			if !yield(m, c.value) {
				return
			}
		}
	}
}

// after returns the node that follows n's subtree: n's next sibling, or the
// end of its parent's children.
func (ix *JSONIndex) after(n NodeID) NodeID {
	d := ix.nodes[n].meta >> jsonDescShift
	if d < jsonDescSaturated {
		return n + 1 + NodeID(d)
	}
	// Nodes are in document order, so the subtree ends at the first node
	// that starts at or after n's end.
	rest, end := ix.nodes[n+1:], ix.nodes[n].end
	return n + 1 + NodeID(sort.Search(len(rest), func(j int) bool { return rest[j].start >= end }))
}

// jsonMembers walks the members of an object, rescanning each name from the
// data between the previous value (or the '{') and the next value node.
type jsonMembers struct {
	ix                 *JSONIndex
	pos                int    // where the next member's text begins
	value, end         NodeID // the next value node, and the end of the children
	nameStart, nameEnd int
	flags              uint8
	started            bool
}

func (ix *JSONIndex) members(n NodeID) jsonMembers {
	return jsonMembers{ix: ix, pos: int(ix.nodes[n].start) + 1, value: n + 1, end: ix.after(n)}
}

// next moves to the next member; its name and value are then in the
// cursor's fields.
func (c *jsonMembers) next() bool {
	if c.started {
		c.pos = int(c.ix.nodes[c.value].end)
		c.value = c.ix.after(c.value)
	}
	c.started = true
	if c.value >= c.end {
		return false
	}
	data := c.ix.data
	i := jsonSkipWS(data, c.pos)
	if data[i] == ',' {
		i = jsonSkipWS(data, i+1)
	}
	c.nameStart = i
	c.nameEnd, c.flags, _ = jsonScanString(data, i, true)
	return true
}

// jsonNodeSize is the tape's cost per value, in bytes.
const jsonNodeSize = unsafe.Sizeof(jsonNode{})
