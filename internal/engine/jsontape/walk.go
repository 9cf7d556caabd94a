package jsontape

import (
	"iter"
	"sort"
)

// Node is one value of an Index: its span and where the walks inside it
// start on the tape. The zero Node is no value; only an Index hands out
// Nodes.
type Node struct {
	start, end uint32 // the lexeme is data[start:end]
	// at is the tape entry of the value when it is recorded, else the
	// first entry that starts after it.
	at uint32
}

// Value is a value found in a document: the exact span data[Start:End] of
// its lexeme, without surrounding whitespace, and its type.
type Value struct {
	Start, End int
	Type       Type
}

// Member is an object member met by Index.Members.
type Member struct {
	// Name is the decoded name. A lone surrogate escape decodes to its
	// 3-byte generalized UTF-8 form (as in WTF-8) and raw invalid UTF-8 (in
	// an index built with AllowInvalidUTF8) is kept as it is, so Name is
	// valid UTF-8 exactly when the name has neither.
	Name string
	// NameStart and NameEnd are the span of the name's lexeme, quotes
	// included.
	NameStart, NameEnd int
	// InvalidUTF8 reports raw invalid UTF-8 in the name's lexeme (possible
	// only in an index built with AllowInvalidUTF8).
	InvalidUTF8 bool
}

// Root returns the document's top-level value.
func (ix *Index) Root() Node { return ix.root }

// Kind returns the type of value n, which its first byte tells.
func (ix *Index) Kind(n Node) Type { return typeOfFirst(ix.data[n.start]) }

// Span returns the span data[start:end] of value n's lexeme, without
// surrounding whitespace.
func (ix *Index) Span(n Node) (start, end int) { return int(n.start), int(n.end) }

// Value returns value n's span and type.
func (ix *Index) Value(n Node) Value {
	return Value{Start: int(n.start), End: int(n.end), Type: ix.Kind(n)}
}

// recorded reports whether n has its own tape entry.
func (ix *Index) recorded(n Node) bool {
	return int(n.at) < len(ix.tape) && ix.tape[n.at].start == n.start && !ix.tape[n.at].checkpoint()
}

// inside returns the first tape entry that starts after n's first byte:
// where a walk of n's children starts.
func (ix *Index) inside(n Node) int {
	if ix.recorded(n) {
		return int(n.at) + 1
	}
	return int(n.at)
}

// node returns the value that starts at data[p], given k, the first tape
// entry that starts at or after p, and the first entry after the value.
func (ix *Index) node(p, k int) (Node, int) {
	tape := ix.tape
	if k < len(tape) && tape[k].start == uint32(p) && tape[k].checkpoint() {
		k++ // the enclosing array's checkpoint of this element
	}
	if k < len(tape) && tape[k].start == uint32(p) {
		e := tape[k]
		return Node{start: uint32(p), end: e.end, at: uint32(k)}, k + 1 + int(e.desc)
	}
	end, after := ix.skip(p, k)
	return Node{start: uint32(p), end: uint32(end), at: uint32(k)}, after
}

// skip returns the end of the unrecorded value at data[p] and the first
// tape entry after it, jumping over the recorded values inside it (it has
// fewer than minOwn bytes of its own to look at, and no checkpoint).
func (ix *Index) skip(p, k int) (end, after int) {
	data, tape := ix.data, ix.tape
	depth := 0
	i := p
	for {
		switch c := data[i]; {
		case c == '"':
			if k < len(tape) && tape[k].start == uint32(i) {
				i, k = int(tape[k].end), k+1+int(tape[k].desc)
			} else {
				i = skipString(data, i+1)
			}
		case c == '{' || c == '[':
			if k < len(tape) && tape[k].start == uint32(i) {
				i, k = int(tape[k].end), k+1+int(tape[k].desc)
			} else {
				depth++
				i++
				continue
			}
		case c == '}' || c == ']':
			depth--
			i++
		case c == ',' || c == ':':
			i++
			continue
		case isSpace(c):
			i = skipSpace(data, i)
			continue
		case c == 't' || c == 'n':
			i += 4
		case c == 'f':
			i += 5
		default:
			if k < len(tape) && tape[k].start == uint32(i) {
				i, k = int(tape[k].end), k+1+int(tape[k].desc)
			} else {
				i = skipNumber(data, i+1)
			}
		}
		if depth == 0 {
			return i, k
		}
	}
}

// A cursor walks the children of a container in order: members (name
// and value) or elements. Each step scans the child's few bytes of its own
// and jumps over the recorded values inside it with the tape.
type cursor struct {
	i, k int // where the next child starts, and the first entry at or after i
	obj  bool
	done bool
	// The member name of the child last returned, in an object.
	nameStart, nameEnd int
	nameFlags          uint8
}

// children returns a cursor at the first child of container n.
func (ix *Index) children(n Node) cursor {
	return ix.cursorAt(n, int(n.start)+1, ix.inside(n))
}

// cursorAt returns a cursor of container n at offset i (inside n, before
// a child or its closing bracket), with k the first entry at or after i.
func (ix *Index) cursorAt(n Node, i, k int) cursor {
	c := cursor{i: skipSpace(ix.data, i), k: k, obj: ix.data[n.start] == '{'}
	c.done = ix.data[c.i] == '}' || ix.data[c.i] == ']'
	return c
}

// next returns the next child, and false after the last.
func (ix *Index) next(c *cursor) (Node, bool) {
	if c.done {
		return Node{}, false
	}
	data := ix.data
	i := c.i
	if c.obj {
		c.nameStart = i
		c.nameEnd, c.nameFlags = stringFlags(data, i)
		i = skipSpace(data, skipSpace(data, c.nameEnd)+1) // past ':'
	}
	v, after := ix.node(i, c.k)
	i = skipSpace(data, int(v.end))
	if data[i] == ',' {
		c.i, c.k = skipSpace(data, i+1), after
	} else {
		c.done = true
	}
	return v, true
}

// Elements yields the index and node of each element of array n, in order
// (nothing when n is not an array).
func (ix *Index) Elements(n Node) iter.Seq2[int, Node] {
	return func(yield func(int, Node) bool) {
		if ix.data[n.start] != '[' {
			return
		}
		c := ix.children(n)
		for i := 0; ; i++ {
			v, ok := ix.next(&c)
			if !ok || !yield(i, v) {
				return
			}
		}
	}
}

// Members yields each member of object n, in document order, with its
// value's node (nothing when n is not an object). Duplicate names are all
// yielded; names are decoded as Member.Name says.
func (ix *Index) Members(n Node) iter.Seq2[Member, Node] {
	return func(yield func(Member, Node) bool) {
		if ix.data[n.start] != '{' {
			return
		}
		var buf []byte
		for c := ix.children(n); ; {
			v, ok := ix.next(&c)
			if !ok {
				return
			}
			m := Member{NameStart: c.nameStart, NameEnd: c.nameEnd}
			if flags := c.nameFlags; flags == 0 {
				m.Name = string(ix.data[c.nameStart+1 : c.nameEnd-1])
			} else {
				buf, _, _ = decodeString(buf[:0], ix.data, c.nameStart, c.nameEnd, false)
				m.Name, m.InvalidUTF8 = string(buf), flags&strInvalidUTF8 != 0
			}
			if !yield(m, v) {
				return
			}
		}
	}
}

// Len returns the number of elements of array n or members of object n,
// and 0 for any other value.
func (ix *Index) Len(n Node) int {
	switch ix.data[n.start] {
	case '[', '{':
	default:
		return 0
	}
	c, count := ix.children(n), 0
	if ix.data[n.start] == '[' {
		if a := ix.arrayIndex(n); a != nil && len(a.checks) > 0 {
			k := a.checks[len(a.checks)-1]
			c, count = ix.cursorAt(n, int(ix.tape[k].start), int(k)), int(ix.tape[k].end)
		}
	} else if o := ix.objectIndex(n); o != nil {
		return o.members
	}
	for _, ok := ix.next(&c); ok; _, ok = ix.next(&c) {
		count++
	}
	return count
}

// Element returns element i of array n, and false when n is not an array
// or has no element i. From the nearest checkpoint it scans at most
// checkpointEvery-1 elements, each in fewer than minOwn bytes of its own.
func (ix *Index) Element(n Node, i int) (Node, bool) {
	if ix.data[n.start] != '[' || i < 0 {
		return Node{}, false
	}
	c, index := ix.children(n), 0
	if i >= firstCheckpoint {
		if a := ix.arrayIndex(n); a != nil && len(a.checks) > 0 {
			// The last checkpoint at or before i: where it would be if
			// they were all checkpointEvery apart, then a step or two,
			// since near a split they are not (see split.go).
			j := min(max((i-firstCheckpoint)/checkpointEvery, 0), len(a.checks)-1)
			for j > 0 && int(ix.tape[a.checks[j]].end) > i {
				j--
			}
			for j+1 < len(a.checks) && int(ix.tape[a.checks[j+1]].end) <= i {
				j++
			}
			if k := a.checks[j]; int(ix.tape[k].end) <= i {
				c, index = ix.cursorAt(n, int(ix.tape[k].start), int(k)), int(ix.tape[k].end)
			}
		}
	}
	for ; ; index++ {
		v, ok := ix.next(&c)
		if !ok || index == i {
			return v, ok
		}
	}
}

// Member returns the value of the member of object n named name (compared
// decoded) and how many members have that name: 0 (then no value), 1, or 2
// for two or more. A non-object has no members.
func (ix *Index) Member(n Node, name string) (Node, int) {
	if ix.data[n.start] != '{' {
		return Node{}, 0
	}
	if o := ix.objectIndex(n); o != nil {
		return ix.lookupName(o, name)
	}
	var (
		found Node
		count int
		buf   [64]byte
	)
	for c := ix.children(n); count < 2; {
		v, ok := ix.next(&c)
		if !ok {
			break
		}
		if ix.nameIs(c.nameStart, c.nameEnd, name, buf[:0]) {
			found = v
			count++
		}
	}
	return found, count
}

// nameIs reports whether the name lexeme data[start:end] decodes to name,
// using buf as scratch space.
func (ix *Index) nameIs(start, end int, name string, buf []byte) bool {
	raw := ix.data[start+1 : end-1]
	if !hasBackslash(raw) {
		return string(raw) == name
	}
	if len(raw) < len(name) { // escapes only shrink a name
		return false
	}
	buf, _, _ = decodeString(buf, ix.data, start, end, false)
	return string(buf) == name
}

// StringText returns the decoded text of string n (and "", -1 for any
// other value). It never fails: a lone surrogate escape decodes to its
// 3-byte generalized UTF-8 form (as in WTF-8) and raw invalid UTF-8 is kept
// as it is. invalidAt is the offset, in text, of the first byte that is not
// valid UTF-8 (so a lone surrogate counts as its 3-byte form), or -1 when
// text is valid UTF-8. DecodeString is the strict form for "as": "string".
func (ix *Index) StringText(n Node) (text string, invalidAt int) {
	if ix.data[n.start] != '"' {
		return "", -1
	}
	start, end := int(n.start), int(n.end)
	if _, flags := stringFlags(ix.data, start); flags == 0 {
		return string(ix.data[start+1 : end-1]), -1
	}
	buf, invalidAt := decodeLenient(make([]byte, 0, end-start), ix.data, start, end)
	return string(buf), invalidAt
}

// InvalidUTF8 reports whether string n holds raw invalid UTF-8, which only
// an index built with AllowInvalidUTF8 accepts. Escaped lone surrogates do
// not count; StringText finds both.
func (ix *Index) InvalidUTF8(n Node) bool {
	if ix.data[n.start] != '"' {
		return false
	}
	_, flags := stringFlags(ix.data, int(n.start))
	return flags&strInvalidUTF8 != 0
}

// at returns the first tape entry that starts at or after p.
func (ix *Index) at(p int) int {
	return sort.Search(len(ix.tape), func(k int) bool { return ix.tape[k].start >= uint32(p) })
}
