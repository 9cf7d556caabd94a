// Package linediff computes a shortest edit script between the lines of two
// texts and writes it as a unified diff, as write_file answers it (SPEC
// section 9).
//
// A line is what SPEC section 4.2 says: a run of bytes ending with "\n"
// (the "\n" included), or the final run of a text that does not end with
// one; two lines are equal when their bytes are, so "a" and "a\n" differ.
//
// The script is Myers' (An O(ND) Difference Algorithm and Its Variations,
// 1986) with the linear-space refinement of its section 4b: time
// O((N+M)·D) and memory O(N+M) for N and M lines that differ in D. Before
// it runs, the common prefix and suffix are trimmed byte by byte, so an
// edit of a large file costs a comparison of its bytes plus the script of
// the region that changed, and lines that occur on one side only are set
// aside (no common subsequence can hold them, so the script stays
// shortest), so a text replaced by another costs O(N+M).
package linediff

import (
	"bytes"
	"hash/maphash"
)

// Diff returns the unified diff from old to new with context lines of
// context around each change, as GNU diff -U<context> writes it without its
// two file-name lines, except that every hunk header gives both counts
// ("@@ -3,1 +3,2 @@"). It is empty when the texts are equal.
func Diff(old, new []byte, context int) []byte {
	s := script(old, new)
	return s.unified(context)
}

// lines is one text cut into lines: starts[i] is where line i begins, and
// starts has one more entry, the text's end. Offsets are 32-bit, as the
// store's are (no result passes 4 GiB).
type lines struct {
	text   []byte
	starts []uint32
}

func (l *lines) n() int            { return len(l.starts) - 1 }
func (l *lines) line(i int) []byte { return l.text[l.starts[i]:l.starts[i+1]] }

// split cuts text into lines.
func split(text []byte) lines {
	l := lines{text: text, starts: make([]uint32, 0, bytes.Count(text, []byte{'\n'})+2)}
	for p := 0; p < len(text); {
		l.starts = append(l.starts, uint32(p))
		i := bytes.IndexByte(text[p:], '\n')
		if i < 0 {
			p = len(text)
		} else {
			p += i + 1
		}
	}
	l.starts = append(l.starts, uint32(len(text)))
	return l
}

// lineAt returns the number of the line that starts at p, a line start.
func (l *lines) lineAt(p int) int {
	lo, hi := 0, l.n()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(l.starts[mid]) < p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// edits is the script: which lines of a are deleted and which of b are
// inserted; the others pair up in order as the unchanged lines.
type edits struct {
	a, b     lines
	del, ins []bool
}

// script computes a shortest script from old's lines to new's: the common
// prefix and suffix of whole lines are found by comparing bytes, and only
// the lines between them are diffed.
func script(old, new []byte) *edits {
	p := commonPrefix(old, new)
	// Back off to a line start: a line of the prefix must end with '\n' in
	// both texts ("x" is not the line "x\n").
	p = bytes.LastIndexByte(old[:p], '\n') + 1
	qa, qb := suffixStarts(old, new, p)
	e := &edits{a: split(old), b: split(new)}
	e.del = make([]bool, e.a.n())
	e.ins = make([]bool, e.b.n())
	e.compute(e.a.lineAt(p), e.a.lineAt(qa), e.b.lineAt(p), e.b.lineAt(qb))
	return e
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && string(a[i:i+8]) == string(b[i:i+8]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// suffixStarts returns where the common suffix of whole lines begins in a
// and in b, neither before from: a position just after a '\n' (or from)
// in both texts, with the same bytes after it.
func suffixStarts(a, b []byte, from int) (int, int) {
	n := min(len(a), len(b)) - from
	s := 0
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	// The suffix must start a line in both texts: at from, or after a
	// '\n'. Inside the common suffix a '\n' is one in both; at its very
	// start the bytes before may differ.
	qa, qb := len(a)-s, len(b)-s
	for qa < len(a) && !(qa == from || a[qa-1] == '\n') || qb < len(b) && !(qb == from || b[qb-1] == '\n') {
		qa++
		qb++
	}
	return qa, qb
}

// compute marks a shortest script from a's lines [alo, ahi) to b's
// [blo, bhi) in del and ins.
func (e *edits) compute(alo, ahi, blo, bhi int) {
	del, ins := e.del[alo:ahi], e.ins[blo:bhi]
	if len(del) == 0 || len(ins) == 0 {
		fill(del, true)
		fill(ins, true)
		return
	}
	ida, idb := intern(&e.a, alo, ahi, &e.b, blo, bhi)
	// Lines with no equal on the other side are changed in every script;
	// set them aside and diff the rest (mapA and mapB lead back).
	n := len(ida) + len(idb)
	inA, inB := make([]int32, n), make([]int32, n)
	for _, id := range ida {
		inA[id]++
	}
	for _, id := range idb {
		inB[id]++
	}
	keptA, mapA := keep(ida, inB, del)
	keptB, mapB := keep(idb, inA, ins)
	m := myers{a: keptA, b: keptB, delA: make([]bool, len(keptA)), insB: make([]bool, len(keptB))}
	m.compare(0, len(keptA), 0, len(keptB))
	for i, d := range m.delA {
		del[mapA[i]] = d
	}
	for i, d := range m.insB {
		ins[mapB[i]] = d
	}
}

// keep returns the IDs that occur on the other side (other counts them)
// and where each stood, marking the others changed.
func keep(ids, other []int32, changed []bool) (kept []int32, at []int32) {
	for i, id := range ids {
		if other[id] == 0 {
			changed[i] = true
			continue
		}
		kept, at = append(kept, id), append(at, int32(i))
	}
	return kept, at
}

func fill(b []bool, v bool) {
	for i := range b {
		b[i] = v
	}
}

// intern numbers the distinct lines of a[alo:ahi] and b[blo:bhi]: equal
// lines get equal IDs, below the number of lines. It hashes each line once
// into an open-addressed table that holds IDs, not copies of the lines.
func intern(a *lines, alo, ahi int, b *lines, blo, bhi int) ([]int32, []int32) {
	size := 1
	for size < 2*(ahi-alo+bhi-blo) {
		size <<= 1
	}
	type slot struct {
		hash uint32
		id   int32 // ID+1; 0 is empty
	}
	table := make([]slot, size)
	var reps [][]byte // a line of each ID
	seed := maphash.MakeSeed()
	ids := func(l *lines, lo, hi int) []int32 {
		out := make([]int32, hi-lo)
		for i := range out {
			line := l.line(lo + i)
			h := maphash.Bytes(seed, line)
			for j := int(h) & (size - 1); ; j = (j + 1) & (size - 1) {
				s := &table[j]
				if s.id == 0 {
					reps = append(reps, line)
					*s = slot{uint32(h >> 32), int32(len(reps))}
				} else if s.hash != uint32(h>>32) || !bytes.Equal(reps[s.id-1], line) {
					continue
				}
				out[i] = s.id - 1
				break
			}
		}
		return out
	}
	return ids(a, alo, ahi), ids(b, blo, bhi)
}

// myers marks a shortest script between a and b in delA and insB.
type myers struct {
	a, b       []int32
	delA, insB []bool
	vf, vb     []int // reused by every middle snake
}

// compare marks the script between a[alo:ahi] and b[blo:bhi].
func (m *myers) compare(alo, ahi, blo, bhi int) {
	for alo < ahi && blo < bhi && m.a[alo] == m.b[blo] {
		alo, blo = alo+1, blo+1
	}
	for alo < ahi && blo < bhi && m.a[ahi-1] == m.b[bhi-1] {
		ahi, bhi = ahi-1, bhi-1
	}
	switch {
	case alo == ahi:
		fill(m.insB[blo:bhi], true)
	case blo == bhi:
		fill(m.delA[alo:ahi], true)
	default:
		x, y, ok := m.middle(alo, ahi, blo, bhi)
		if !ok {
			fill(m.delA[alo:ahi], true)
			fill(m.insB[blo:bhi], true)
			return
		}
		m.compare(alo, x, blo, y)
		m.compare(x, ahi, y, bhi)
	}
}

// middle returns a point (x, y) on a shortest path from (alo, blo) to
// (ahi, bhi), found where the forward and backward searches of Myers'
// section 4b meet; the two halves are then compared on their own. The
// region has no common first or last element, so its shortest script has
// at least two edits and the point lies strictly between its corners.
func (m *myers) middle(alo, ahi, blo, bhi int) (x0, y0 int, ok bool) {
	a, b := m.a[alo:ahi], m.b[blo:bhi]
	n, mm := len(a), len(b)
	maxD := (n + mm + 1) / 2
	off := maxD + 1
	vlen := 2*maxD + 3
	if cap(m.vf) < vlen {
		m.vf, m.vb = make([]int, vlen), make([]int, vlen)
	}
	vf, vb := m.vf[:vlen], m.vb[:vlen]
	for i := range vf {
		vf[i], vb[i] = -1, -1
	}
	vf[off+1], vb[off+1] = 0, 0
	delta := n - mm
	odd := delta%2 != 0
	// k1start..k1end narrow the diagonals once a path runs off the grid.
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for d := 0; d <= maxD; d++ {
		for k := -d + k1start; k <= d-k1end; k += 2 {
			i := off + k
			var x int
			if k == -d || k != d && vf[i-1] < vf[i+1] {
				x = vf[i+1]
			} else {
				x = vf[i-1] + 1
			}
			y := x - k
			for x < n && y < mm && a[x] == b[y] {
				x, y = x+1, y+1
			}
			vf[i] = x
			switch {
			case x > n:
				k1end += 2
			case y > mm:
				k1start += 2
			case odd:
				j := off + delta - k
				if j >= 0 && j < vlen && vb[j] != -1 && x >= n-vb[j] {
					return alo + x, blo + y, true
				}
			}
		}
		for k := -d + k2start; k <= d-k2end; k += 2 {
			i := off + k
			var x int
			if k == -d || k != d && vb[i-1] < vb[i+1] {
				x = vb[i+1]
			} else {
				x = vb[i-1] + 1
			}
			y := x - k
			for x < n && y < mm && a[n-x-1] == b[mm-y-1] {
				x, y = x+1, y+1
			}
			vb[i] = x
			switch {
			case x > n:
				k2end += 2
			case y > mm:
				k2start += 2
			case !odd:
				j := off + delta - k
				if j >= 0 && j < vlen && vf[j] != -1 {
					fx := vf[j]
					fy := off + fx - j
					if fx >= n-x {
						return alo + fx, blo + fy, true
					}
				}
			}
		}
	}
	// Not reached: the searches meet by d = maxD. The caller then replaces
	// the whole region, which is correct if not shortest.
	return 0, 0, false
}
