package jsontape

import "hash/maphash"

// The indexes of large containers, built by the first Element or Member
// that needs one and kept with the Index: a walk from a container's start
// would cost its whole content on every lookup.

// arrayIndex is the tape entries of one array's checkpoints, in order.
type arrayIndex struct {
	checks []uint32
}

// arrayIndex returns the checkpoints of array n, or nil when it has none
// (an unrecorded array has none). It reads them from the tape, jumping
// over the recorded elements between them.
func (ix *Index) arrayIndex(n Node) *arrayIndex {
	if !ix.recorded(n) || ix.tape[n.at].desc == 0 {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if a, ok := ix.kids[int(n.at)].(*arrayIndex); ok {
		return a
	}
	// Count them, then list them: the list is all that a lookup through
	// the array keeps, 4 bytes a checkpoint.
	a := &arrayIndex{}
	end := int(n.at) + 1 + int(ix.tape[n.at].desc)
	for pass := range 2 {
		count := 0
		for k := int(n.at) + 1; k < end; {
			e := ix.tape[k]
			if e.checkpoint() {
				// Only this array's own: an array inside it with
				// checkpoints is recorded, and jumped over.
				if pass == 1 {
					a.checks[count] = uint32(k)
				}
				count++
				k++
				continue
			}
			k += 1 + int(e.desc)
		}
		if pass == 0 {
			a.checks = make([]uint32, count)
		}
	}
	ix.remember(int(n.at), a)
	return a
}

// objectIndexMin is the smallest object, in bytes, that Member indexes:
// below it a scan of the members costs less than hashing the name.
const objectIndexMin = 1024

// objectIndex is a hash table of the decoded names of one object: open
// addressing over 4/3 as many slots as members (a hash picks its first slot
// by multiplying, so any size will do), each the name's hash and the
// offset of its lexeme (0 for an empty slot: no name starts a document),
// 8 bytes: about 11 bytes a member, for an object whose members take at
// least 6. Each name is in it once, marked when several members have it.
type objectIndex struct {
	seed    maphash.Seed
	slots   []nameSlot
	members int
}

type nameSlot struct {
	hash uint32 // the low 31 bits of the name's hash; dupFlag when repeated
	name uint32
}

const dupFlag = 1 << 31

// objectIndex returns the name index of object n, or nil when n is small
// (see objectIndexMin).
func (ix *Index) objectIndex(n Node) *objectIndex {
	if n.end-n.start < objectIndexMin || !ix.recorded(n) {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if o, ok := ix.kids[int(n.at)].(*objectIndex); ok {
		return o
	}
	o := &objectIndex{seed: maphash.MakeSeed()}
	type member struct {
		hash, name uint32
	}
	var all []member
	var buf []byte
	for c := ix.children(n); ; {
		if _, ok := ix.next(&c); !ok {
			break
		}
		buf, _, _ = decodeString(buf[:0], ix.data, c.nameStart, c.nameEnd, false)
		all = append(all, member{uint32(maphash.Bytes(o.seed, buf)) &^ dupFlag, uint32(c.nameStart)})
	}
	o.members = len(all)
	o.slots = make([]nameSlot, len(all)*4/3+1)
	var other []byte
	for _, m := range all {
		buf = ix.nameText(buf[:0], m.name)
		for s := o.first(m.hash); ; s = o.after(s) {
			slot := &o.slots[s]
			if slot.name == 0 {
				*slot = nameSlot(m)
				break
			}
			if slot.hash&^dupFlag == m.hash {
				if other = ix.nameText(other[:0], slot.name); string(other) == string(buf) {
					slot.hash |= dupFlag
					break
				}
			}
		}
	}
	ix.remember(int(n.at), o)
	return o
}

// lookupName finds name in o: the value of the member and how many have
// that name (0, 1 or 2 for more).
func (ix *Index) lookupName(o *objectIndex, name string) (Node, int) {
	h := uint32(maphash.String(o.seed, name)) &^ dupFlag
	var buf [64]byte
	for s := o.first(h); o.slots[s].name != 0; s = o.after(s) {
		slot := o.slots[s]
		nameStart := int(slot.name)
		nameEnd := skipString(ix.data, nameStart+1)
		if slot.hash&^dupFlag != h || !ix.nameIs(nameStart, nameEnd, name, buf[:0]) {
			continue
		}
		// The value follows the name, ':' and any whitespace.
		p := skipSpace(ix.data, skipSpace(ix.data, nameEnd)+1)
		v, _ := ix.node(p, ix.at(p))
		if slot.hash&dupFlag != 0 {
			return v, 2
		}
		return v, 1
	}
	return Node{}, 0
}

// first returns the first slot to probe for hash h: h scaled to the
// table's size.
func (o *objectIndex) first(h uint32) int {
	return int(uint64(h) * uint64(len(o.slots)) >> 31)
}

// after returns the slot after s, wrapping around.
func (o *objectIndex) after(s int) int {
	if s++; s == len(o.slots) {
		return 0
	}
	return s
}

// nameText appends the decoded name whose lexeme starts at data[start].
func (ix *Index) nameText(dst []byte, start uint32) []byte {
	end := skipString(ix.data, int(start)+1)
	dst, _, _ = decodeString(dst, ix.data, int(start), end, false)
	return dst
}

// remember keeps the index of tape entry k; ix.mu is held.
func (ix *Index) remember(k int, v any) {
	if ix.kids == nil {
		ix.kids = make(map[int]any)
	}
	ix.kids[k] = v
}
