package selectors

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
)

// jsonSmallContainer is the largest number of descendants for which a
// lookup walks a container's children instead of indexing them. Such a
// walk visits at most this many nodes.
const jsonSmallContainer = 64

// jsonChildren is the lazily built index of one large container.
type jsonChildren struct {
	nodes []NodeID          // the elements, or the members' values, in order
	names map[string]NodeID // objects: decoded name to value, jsonDuplicate when repeated
}

// jsonDuplicate marks a name held by more than one member.
const jsonDuplicate = ^NodeID(0)

// Lookup resolves pointer p in the document under the rules of SPEC section
// 4.3 and returns the selected value's span and type. Tokens are applied left
// to right; the first that fails is the answer:
//   - on an array, "-" and an index past the end are pointer_not_found, and a
//     token other than 0 or a decimal without leading zeros is
//     invalid_pointer (a decimal too large for any array is past the end);
//   - on an object, a missing member is pointer_not_found, and a name that
//     the object holds more than once (compared after decoding escapes) is
//     ambiguous_json;
//   - on any other value, every token is pointer_not_found.
//
// A warm lookup takes time in proportion to the pointer's depth: a
// container with more than jsonSmallContainer descendants gets an index of
// its children on the first lookup that passes through it.
func (ix *JSONIndex) Lookup(p Pointer) (JSONValue, *errcode.Error) {
	n, err := ix.LookupNode(p)
	if err != nil {
		return JSONValue{}, err
	}
	return ix.Value(n), nil
}

// LookupNode is Lookup returning the selected node.
func (ix *JSONIndex) LookupNode(p Pointer) (NodeID, *errcode.Error) {
	n := ix.Root()
	for k := range p.tokens {
		var err *errcode.Error
		switch ix.kind(n) {
		case jsonKindArray:
			n, err = ix.element(n, p, k)
		case jsonKindObject:
			n, err = ix.member(n, p, k)
		default:
			err = errcode.New(errcode.PointerNotFound, "token %q at %s: value is a %s, not an object or array",
				p.tokens[k], p.prefix(k), ix.Kind(n))
		}
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// element applies token k of p to array n.
func (ix *JSONIndex) element(n NodeID, p Pointer, k int) (NodeID, *errcode.Error) {
	tok := p.tokens[k]
	index, ok := jsonArrayIndex(tok)
	if !ok {
		return 0, errcode.New(errcode.InvalidPointer,
			"token %q at %s: an array index is 0 or a decimal without leading zeros (or \"-\")", tok, p.prefix(k))
	}
	if index >= 0 {
		if ix.nodes[n].meta>>jsonDescShift > jsonSmallContainer {
			if ch := ix.children(n); index < len(ch.nodes) {
				return ch.nodes[index], nil
			}
		} else {
			for i, v := range ix.Elements(n) {
				if i == index {
					return v, nil
				}
			}
		}
	}
	count := ix.Len(n)
	valid := "it is empty"
	if count > 0 {
		valid = fmt.Sprintf("it has %d elements (0-%d)", count, count-1)
	}
	if index < 0 {
		return 0, errcode.New(errcode.PointerNotFound,
			"token \"-\" at %s: \"-\" is the position after the last element of the array, which never exists; %s", p.prefix(k), valid)
	}
	return 0, errcode.New(errcode.PointerNotFound, "token %q at %s: array index out of range; %s", tok, p.prefix(k), valid)
}

// jsonArrayIndex parses an array token: -1 for "-", the index for 0 or a
// decimal without leading zeros (saturated at the largest int, which no
// array reaches), and ok false for anything else.
func jsonArrayIndex(tok string) (index int, ok bool) {
	if tok == "-" {
		return -1, true
	}
	if tok == "" || tok[0] == '0' && len(tok) > 1 {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i]-'0' >= 10 {
			return 0, false
		}
	}
	index, err := strconv.Atoi(tok)
	if err != nil { // only a range error is left
		index = int(^uint(0) >> 1)
	}
	return index, true
}

// member applies token k of p to object n.
func (ix *JSONIndex) member(n NodeID, p Pointer, k int) (NodeID, *errcode.Error) {
	tok := p.tokens[k]
	found, count := NodeID(0), 0
	if ix.nodes[n].meta>>jsonDescShift > jsonSmallContainer {
		if v, ok := ix.children(n).names[tok]; ok {
			found, count = v, 1
			if v == jsonDuplicate {
				count = 2
			}
		}
	} else {
		var buf [64]byte
		for c := ix.members(n); c.next(); {
			if ix.nameIs(&c, tok, buf[:0]) {
				found = c.value
				count++
			}
		}
	}
	switch {
	case count == 0:
		return 0, errcode.New(errcode.PointerNotFound, "token %q at %s: object has no member %q; %s",
			tok, p.prefix(k), tok, ix.someNames(n))
	case count > 1:
		var at []string
		for c := ix.members(n); c.next(); {
			if ix.nameIs(&c, tok, nil) {
				at = append(at, strconv.Itoa(c.nameStart))
			}
		}
		return 0, errcode.New(errcode.AmbiguousJSON,
			"token %q at %s: object has %d members named %q (at offsets %s); a pointer through duplicate names is ambiguous",
			tok, p.prefix(k), len(at), tok, strings.Join(at, ", "))
	}
	return found, nil
}

// nameIs reports whether the cursor's member name decodes to tok, using buf
// as scratch space.
func (ix *JSONIndex) nameIs(c *jsonMembers, tok string, buf []byte) bool {
	raw := ix.data[c.nameStart+1 : c.nameEnd-1]
	if c.flags&jsonStrEscaped == 0 {
		return string(raw) == tok
	}
	if len(raw) < len(tok) { // escapes only shrink a name
		return false
	}
	buf, _, _ = jsonDecodeString(buf, ix.data, c.nameStart, c.nameEnd, false)
	return string(buf) == tok
}

// someNames describes the members of object n for an error message: how
// many, and the first few names.
func (ix *JSONIndex) someNames(n NodeID) string {
	const show = 5
	count := ix.Len(n)
	if count == 0 {
		return "it is empty"
	}
	var names []string
	for m := range ix.Members(n) {
		if len(names) == show {
			break
		}
		name := m.Name
		if len(name) > 40 {
			cut := 40
			for cut > 0 && !utf8.RuneStart(name[cut]) {
				cut--
			}
			name = name[:cut] + "…"
		}
		names = append(names, strconv.Quote(name))
	}
	more := ""
	if count > show {
		more = fmt.Sprintf(", ... (%d more)", count-show)
	}
	return fmt.Sprintf("it has %d members: %s%s", count, strings.Join(names, ", "), more)
}

// elements returns the elements of array n, in order. It follows the
// descendant counts from one element to the next, a chain of dependent
// loads; an array of many small elements is read straight through the
// tape instead, which streams: every node that starts at or after the end
// of the element before it is the next element (spans nest). The chain
// costs a load an element, the straight read a load a descendant; the
// first elements tell which is cheaper.
func (ix *JSONIndex) elements(n NodeID) []NodeID {
	const probe, smallElement = 64, 32
	end := ix.after(n)
	var out []NodeID
	v := n + 1
	for ; v < end && len(out) < probe; v = ix.after(v) {
		out = append(out, v)
	}
	if v >= end {
		return out
	}
	avg := int(v-n-1) / len(out)
	if avg > smallElement {
		for ; v < end; v = ix.after(v) {
			out = append(out, v)
		}
		return out
	}
	out = slices.Grow(out, int(end-v)/max(avg, 1)+1)
	nodes := ix.nodes
	out = append(out, v)
	after := nodes[v].end
	for k := v + 1; k < end; k++ {
		if nodes[k].start >= after {
			out = append(out, k)
			after = nodes[k].end
		}
	}
	return out
}

// children returns the index of container n's children, building it on
// first use.
func (ix *JSONIndex) children(n NodeID) *jsonChildren {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ch := ix.kids[n]; ch != nil {
		return ch
	}
	ch := &jsonChildren{}
	if ix.kind(n) == jsonKindArray {
		ch.nodes = ix.elements(n)
	} else {
		// Decode every name into one buffer, then make one string of it, so
		// the map costs one allocation for all its names.
		var buf []byte
		var ends []int
		for c := ix.members(n); c.next(); {
			ch.nodes = append(ch.nodes, c.value)
			if c.flags&(jsonStrEscaped|jsonStrInvalidUTF8) == 0 {
				buf = append(buf, ix.data[c.nameStart+1:c.nameEnd-1]...)
			} else {
				buf, _, _ = jsonDecodeString(buf, ix.data, c.nameStart, c.nameEnd, false)
			}
			ends = append(ends, len(buf))
		}
		all := string(buf)
		ch.names = make(map[string]NodeID, len(ends))
		from := 0
		for i, to := range ends {
			name := all[from:to]
			from = to
			if _, dup := ch.names[name]; dup {
				ch.names[name] = jsonDuplicate
			} else {
				ch.names[name] = ch.nodes[i]
			}
		}
	}
	if ix.kids == nil {
		ix.kids = make(map[NodeID]*jsonChildren)
	}
	ix.kids[n] = ch
	return ch
}
