package selectors

import (
	"encoding/binary"
	"math/bits"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/hugepage"
)

// IndexValidJSON indexes a document that ValidateJSON has already accepted,
// without validating it again: the index is the one IndexJSON would build
// (the same tape, so every lookup answers the same), in 40-50% less time on
// large documents (BenchmarkJSONIndexValid), since it skips every check
// that only validation needs (UTF-8, escapes, the grammar of numbers, the
// spelling of literals, the depth limit).
//
// Precondition: ValidateJSON(data) succeeded, as results.Analyze records in
// Text.JSON. On any other data IndexValidJSON still never panics and always
// ends, but what it returns is unspecified: IndexJSON's invalid_json error
// when the structure falls apart where this scan looks, or else an index
// that does not describe data (its nodes lie within data, but lookups on it
// may give wrong answers or even panic).
//
// Data of 2 GiB or more is left to IndexJSON, which refuses more than
// math.MaxUint32 bytes with too_large.
func IndexValidJSON(data []byte) (*JSONIndex, *errcode.Error) {
	if len(data) >= 2*jsonPhantom {
		// Node indexes could reach jsonPhantom: leave it to IndexJSON
		// (which refuses data over 4 GiB with the same too_large).
		return IndexJSON(data)
	}
	nodes, ok := jsonBuildValid(data)
	if !ok {
		// Not valid after all: the validating scan names the first
		// offending byte.
		return IndexJSON(data)
	}
	return &JSONIndex{data: data, nodes: nodes}, nil
}

// jsonBuildValid is jsonBuild(data, false) for data that jsonValidate
// accepts: on such data both return the same tape. It has jsonBuild's
// shape (states value, next and name) but checks only what it needs to
// stay in bounds and to find the structure, and reports false when that
// structure is broken (a value that cannot start, a missing ',' or ':', a
// cut-off string or container, nesting deeper than MaxJSONDepth, bytes
// after the top-level value).
//
// The open containers' stack holds each one's node index shifted left by
// one, with bit 0 set for objects, so that ',' learns what follows without
// loading the container's node from the tape (an index is below 2^31: each
// value before it takes at least 2 bytes of at most 2^32-1). Strings are
// scanned inline, not by calls, so that the loop's state stays in
// registers.
func jsonBuildValid(data []byte) (nodes []jsonNode, ok bool) {
	p := jsonPart{i: jsonSkipSpace(data, 0), stopAt: -1}
	if nodes, ok = p.build(data, makeTape(data)); !ok {
		return nil, false
	}
	return jsonClip(nodes), true
}

// A jsonPart is one part of a tape build: the whole document, or one of the
// two halves of IndexValidJSONSplit.
type jsonPart struct {
	// i is where the build starts: the document's first value, or right
	// after a ',' inside the containers of stack[:depth].
	i     int
	stack [MaxJSONDepth]uint32
	depth int
	// stopAt, when not negative, is where the first half stops: right
	// after the ',' that ends there; stack[:depth] is then what is open.
	stopAt int
	// closes records, for the second half, each container it closes that
	// the first half opened (its stack entries are phantomBase and up,
	// outermost first): where it ended and how many nodes the second half
	// had by then.
	closes []jsonClose
}

// jsonClose is the end of a container opened in the first half, at depth
// level-1.
type jsonClose struct {
	level int
	end   int
	nodes int
}

// jsonPhantom marks a stack entry (shifted left by one) of a container the
// first half opened: node indexes never reach it (see jsonBuildValid).
const jsonPhantom = 1 << 30

// build appends the tape of data from p.i to nodes and reports whether the
// structure held; a first half (p.stopAt >= 0) leaves p.i and its stack
// where it stopped.
func (p *jsonPart) build(data []byte, nodes []jsonNode) (_ []jsonNode, ok bool) {
	var (
		stack = &p.stack
		depth = p.depth
		n     = len(data)
		i     = p.i
		start int
		kind  uint32
		top   uint32 // the innermost open container's stack entry
	)
	if depth > 0 {
		// Right after a ',' in the innermost container.
		if stack[depth-1]&1 != 0 {
			goto name
		}
	}

value:
	if i >= n {
		return nil, false
	}
	start = i
	switch c := data[i]; c {
	case '"':
		// Find the closing quote 8 bytes at a time: the string ends at
		// the first quote, unless a backslash comes before it, whose
		// escaped byte is skipped. That is all it takes to find the end
		// of a valid string: the hex digits of a \u escape are neither.
		kind = jsonKindString
		for i++; ; {
			if i+8 > n {
				var esc bool
				if i, esc = jsonStringTail(data, i); esc {
					kind |= jsonStrEscaped << jsonFlagShift
				}
				if i > n {
					return nil, false
				}
				break
			}
			qm, bm := jsonQuotesBackslashes(jsonLoad8(data, i))
			if bm != 0 && (qm == 0 || bm&-bm < qm&-qm) {
				kind |= jsonStrEscaped << jsonFlagShift
				i += bits.TrailingZeros64(bm)>>3 + 2
				continue
			}
			if qm != 0 {
				i += bits.TrailingZeros64(qm)>>3 + 1
				break
			}
			i += 8
		}
	case '{', '[':
		if depth == len(stack) {
			return nil, false
		}
		kind, top = jsonKindArray, uint32(len(nodes))<<1
		if c == '{' {
			kind, top = jsonKindObject, top|1
		}
		stack[depth] = top
		depth++
		nodes = append(nodes, jsonNode{start: uint32(i), meta: kind})
		if i++; i < n && data[i] <= ' ' {
			i = jsonSkipSpace(data, i)
		}
		if i >= n {
			return nil, false
		}
		// In a valid document the first byte after the opening bracket
		// is either the matching closing one or what starts a member or
		// element; '}' and ']' differ only in bit 5.
		if data[i]|0x20 == '}' {
			i++
			depth--
			nodes[len(nodes)-1].end = uint32(i)
			goto next
		}
		if top&1 != 0 {
			goto name
		}
		goto value
	case 't', 'n':
		i += 4
		kind = jsonKindTrue
		if c == 'n' {
			kind = jsonKindNull
		}
	case 'f':
		i += 5
		kind = jsonKindFalse
	default:
		if c != '-' && c-'0' >= 10 {
			return nil, false
		}
		i = jsonSkipNumber(data, i+1)
		kind = jsonKindNumber
	}
	if i > n {
		return nil, false
	}
	nodes = append(nodes, jsonNode{start: uint32(start), end: uint32(i), meta: kind})

next:
	if i < n && data[i] <= ' ' {
		i = jsonSkipSpace(data, i)
	}
	if depth == 0 {
		if i != n {
			return nil, false
		}
		return nodes, true
	}
	if i >= n {
		return nil, false
	}
	top = stack[depth-1]
	switch data[i] {
	case ',':
		if i++; i < n && data[i] <= ' ' {
			i = jsonSkipSpace(data, i)
		}
		if i == p.stopAt {
			p.i, p.depth = i, depth
			return nodes, true
		}
		if top&1 != 0 {
			goto name
		}
		goto value
	case '}', ']':
		i++
		depth--
		k := top >> 1
		if k >= jsonPhantom {
			p.closes = append(p.closes, jsonClose{int(k - jsonPhantom), i, len(nodes)})
			goto next
		}
		nodes[k].end = uint32(i)
		nodes[k].meta |= uint32(min(len(nodes)-int(k)-1, jsonDescSaturated)) << jsonDescShift
		goto next
	}
	return nil, false

name:
	// Names are short and, in arrays of records, their lengths repeat from
	// one record to the next: a byte loop, whose exit branch then predicts
	// well, is faster for them than the 8-byte steps of string values.
	if i >= n || data[i] != '"' {
		return nil, false
	}
	for i++; i < n && data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	// Past the closing quote; past the end of data when there is none,
	// and then the check for ':' fails.
	if i++; i < n && data[i] <= ' ' {
		i = jsonSkipSpace(data, i)
	}
	if i >= n || data[i] != ':' {
		return nil, false
	}
	if i++; i < n && data[i] <= ' ' {
		i = jsonSkipSpace(data, i)
	}
	goto value
}

// jsonSkipSpace returns the offset of the first byte at or after i that
// is above ' ', looking at 8 bytes at a time. In a valid document the bytes
// up to ' ' outside strings are exactly its whitespace, so it ends where
// jsonSkipWS would, and indentation takes one step per 8 bytes instead of
// one per byte.
func jsonSkipSpace(data []byte, i int) int {
	for i+8 <= len(data) {
		// Per byte b, the high bit of (b&0x7f) + 0x5f is exact (no carry
		// leaves a byte): b&0x7f >= 0x21.
		w := jsonLoad8(data, i)
		above := (w &^ swarHighs) + swarOnes*(0x80-0x21)
		if m := (above | w) & swarHighs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(data) && data[i] <= ' ' {
		i++
	}
	return i
}

// jsonLoad8 returns the 8 bytes at data[i:i+8] as a little-endian word.
func jsonLoad8(data []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(data[i : i+8])
}

// jsonQuotesBackslashes returns, for the 8 bytes of w (little endian), the
// high bit of each byte that is '"' (in qm) or '\\' (in bm). Only the
// lowest bit of each mask is exact (borrows may flag bytes above it), which
// is all the callers use.
func jsonQuotesBackslashes(w uint64) (qm, bm uint64) {
	q := w ^ (swarOnes * '"')
	b := w ^ (swarOnes * '\\')
	return (q - swarOnes) &^ q & swarHighs, (b - swarOnes) &^ b & swarHighs
}

// jsonStringTail finishes a string scan within the last 8 bytes of data,
// from i (inside the string): it returns the offset just past the closing
// quote, or len(data)+1 when there is none, and whether it met a
// backslash.
func jsonStringTail(data []byte, i int) (end int, escaped bool) {
	for i < len(data) {
		switch data[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i += 2
		default:
			i++
		}
	}
	return len(data) + 1, escaped
}

// jsonSkipNumber returns the offset of the first byte at or after i that
// cannot continue a valid number (whitespace, ',', ']', '}', or the end of
// data), looking at 8 bytes at a time. In a valid document that is where
// jsonScanNumber ends the number: the byte after a number is one of those.
func jsonSkipNumber(data []byte, i int) int {
	for i+8 <= len(data) {
		if m := jsonNumberEnds(jsonLoad8(data, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(data) && jsonNumberByte[data[i]] {
		i++
	}
	return i
}

// jsonNumberEnds returns, for the 8 bytes of w (little endian), the high
// bit of each byte that is whitespace, ',', ']', '}' or not ASCII: none of
// them continues a number. Per byte b, with l = b&0x7f, the high bit of
// each sum is exact (no carry leaves a byte): l >= 0x2b, (l|0x20) > 0x65
// (']' and '}', but no byte of a number) and l != ','.
func jsonNumberEnds(w uint64) uint64 {
	l := w &^ swarHighs
	ge2B := l + swarOnes*(0x80-0x2b)
	gt65 := (l | swarOnes*0x20) + swarOnes*(0x7f-0x65)
	ne2C := (l ^ swarOnes*',') + swarOnes*0x7f
	return (^ge2B | gt65 | ^ne2C | w) & swarHighs
}

// jsonNumberByte marks the bytes that may continue a number: digits, '.',
// 'e', 'E', '+' and '-'.
var jsonNumberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789.eE+-") {
		t[c] = true
	}
	return t
}()

// IndexValidJSONSplit is IndexValidJSON that builds the two halves of the
// document on two goroutines, the second starting at split (recorded by
// ValidateJSONSplit on this data), and joins them: the same tape, in about
// two thirds of the time on two cores. Without a split it is
// IndexValidJSON.
func IndexValidJSONSplit(data []byte, split JSONSplit) (*JSONIndex, *errcode.Error) {
	levels := len(split.Objects)
	if split.Offset <= 0 || split.Offset >= len(data) || levels == 0 || levels > MaxJSONDepth || len(data) >= 2*jsonPhantom {
		return IndexValidJSON(data)
	}
	nodes, ok := jsonBuildValidSplit(data, split)
	if !ok {
		return IndexJSON(data) // not valid after all, or not this data's split
	}
	return &JSONIndex{data: data, nodes: jsonClip(nodes)}, nil
}

// jsonBuildValidSplit builds the tape in two halves, split at split, and
// reports false when the halves do not meet there as the split says.
func jsonBuildValidSplit(data []byte, split JSONSplit) ([]jsonNode, bool) {
	levels := len(split.Objects)
	boundA, boundB := jsonValueBound(data[:split.Offset]), jsonValueBound(data[split.Offset:])
	tape := make([]jsonNode, boundA+boundB)
	hugepage.AdviseSlice(tape)

	second := &jsonPart{i: split.Offset, depth: levels, stopAt: -1}
	for d, obj := range split.Objects {
		second.stack[d] = uint32(jsonPhantom+d) << 1
		if obj {
			second.stack[d] |= 1
		}
	}
	var nodesB []jsonNode
	okB := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		nodesB, okB = second.build(data, tape[boundA:boundA:boundA+boundB])
	}()
	first := &jsonPart{i: jsonSkipSpace(data, 0), stopAt: split.Offset}
	nodesA, okA := first.build(data, tape[:0:boundA])
	<-done

	// The first half must stop at the split inside containers of the kinds
	// the second half assumed, and the second must close each of them.
	ok := okA && okB && first.i == split.Offset && first.depth == levels && len(second.closes) == levels
	for d := 0; ok && d < levels; d++ {
		ok = first.stack[d]&1 != 0 == split.Objects[d]
	}
	if !ok {
		return nil, false
	}
	// Each half appended to its part of the tape; a bound below 4 KiB is
	// only a guess, so a half may have outgrown its part and moved.
	lenA := len(nodesA)
	var nodes []jsonNode
	if lenA+len(nodesB) <= len(tape) && (lenA == 0 || &nodesA[0] == &tape[0]) {
		nodes = tape[:lenA+len(nodesB)]
		copy(nodes[lenA:], nodesB)
	} else {
		nodes = append(append(make([]jsonNode, 0, lenA+len(nodesB)), nodesA...), nodesB...)
	}
	for _, c := range second.closes {
		k := int(first.stack[c.level] >> 1)
		nodes[k].end = uint32(c.end)
		nodes[k].meta |= uint32(min(lenA-k-1+c.nodes, jsonDescSaturated)) << jsonDescShift
	}
	return nodes, true
}
