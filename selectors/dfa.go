package selectors

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA answers, for one line at a time, whether any match of a compiled
// RE2 program lies in the line: the program as Go's regexp compiles it
// (so the same syntax, Unicode classes and simple case folding), run as a
// lazy DFA whose states are the sets of program threads, built the first
// time they are met and cached. A cached step costs one table lookup a
// byte, so a search costs the bytes it reads, not bytes times the
// program's size as an NFA does; both the cache and the work of building
// states are bounded (maxStates, and the work budget that Find charges).
//
// Each line is searched as regexp.Match searches the line alone: the
// match may start anywhere in it, ^ and \A hold at its start, $ and \z at
// its end, and \b looks at the runes on both sides (none beyond the line).
type lineDFA struct {
	prog   *syntax.Prog
	states []*dstate // by index; 0 is the start of a line
	// ascii holds every state's transitions on ASCII runes, 128 a state,
	// in one table, so that a cached step is one load: 0 unknown, 1 a
	// match (stepMatch), else the next state's index plus 2.
	ascii  []int32
	byKey  map[string]int32 // state key -> index
	work   int64            // instructions visited building states, left in the budget
	stack  []uint32         // reused by closure
	seen   sparseSet        // reused by closure
	next   []uint32         // reused by step
	keyBuf []byte           // reused by key
}

// dstate is one DFA state: the program threads pending before the next
// rune (instructions not yet run), and what is known of the rune before.
type dstate struct {
	pcs      []uint32
	flags    uint8
	other    map[rune]int32 // next state by non-ASCII rune, as lineDFA.ascii holds them (a rune absent is unknown)
	endMatch int8           // at the end of the line: 0 unknown, 1 no match, 2 a match
}

// State flags: what the previous rune was.
const (
	atStart  uint8 = 1 << iota // no rune yet: the start of the line
	prevWord                   // the previous rune is an ASCII word character
)

// maxStates bounds the cache: a DFA that needs more states starts over
// with an empty cache (the work budget then bounds how often).
const maxStates = 4096

// stepMatch marks a transition through a match.
const stepMatch int32 = -1

func newLineDFA(prog *syntax.Prog, work int64) *lineDFA {
	d := &lineDFA{prog: prog, work: work, seen: newSparseSet(len(prog.Inst))}
	d.reset()
	return d
}

// reset empties the cache but for the start state.
func (d *lineDFA) reset() {
	d.states = d.states[:0]
	d.ascii = d.ascii[:0]
	d.byKey = make(map[string]int32)
	d.intern([]uint32{uint32(d.prog.Start)}, atStart)
}

// intern returns the index of the state with these threads and flags,
// adding it when it is new.
func (d *lineDFA) intern(pcs []uint32, flags uint8) int32 {
	d.keyBuf = append(d.keyBuf[:0], flags)
	for _, pc := range pcs {
		d.keyBuf = append(d.keyBuf, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if i, ok := d.byKey[string(d.keyBuf)]; ok {
		return i
	}
	i := int32(len(d.states))
	d.states = append(d.states, &dstate{pcs: slices.Clone(pcs), flags: flags})
	d.ascii = append(d.ascii, make([]int32, 128)...)
	d.byKey[string(d.keyBuf)] = i
	return i
}

// matchLine reports whether line holds a match; ok is false when the work
// budget ran out first.
func (d *lineDFA) matchLine(line []byte) (matched, ok bool) {
	s := int32(0)
	for i := 0; i < len(line); {
		c := line[i]
		var t int32
		if c < utf8.RuneSelf {
			// The cached steps on ASCII, as tight as a loop can be.
			v := d.ascii[int(s)<<7|int(c)]
			for v > 1 {
				s = v - 2
				if i++; i == len(line) {
					goto end
				}
				if c = line[i]; c >= utf8.RuneSelf {
					break
				}
				v = d.ascii[int(s)<<7|int(c)]
			}
			if c >= utf8.RuneSelf {
				continue
			}
			if v == 1 {
				return true, true
			}
			if t, ok = d.step(s, rune(c)); !ok {
				return false, false
			}
			i++
		} else {
			r, size := utf8.DecodeRune(line[i:])
			if v, known := d.states[s].other[r]; known {
				t = v - 2
			} else if t, ok = d.step(s, r); !ok {
				return false, false
			}
			i += size
		}
		if t == stepMatch {
			return true, true
		}
		s = t
	}
end:
	st := d.states[s]
	if st.endMatch == 0 {
		m, _, ok := d.closure(st, -1)
		if !ok {
			return false, false
		}
		st.endMatch = 1
		if m {
			st.endMatch = 2
		}
	}
	return st.endMatch == 2, true
}

// step computes and caches the transition of state s on rune r: a match
// when the threads reach one before r, else the state after r.
func (d *lineDFA) step(s int32, r rune) (int32, bool) {
	st := d.states[s]
	matched, run, ok := d.closure(st, r)
	if !ok {
		return 0, false
	}
	t := stepMatch
	if !matched {
		next := d.next[:0]
		for _, pc := range run {
			in := &d.prog.Inst[pc]
			if consumes(in, r) {
				next = append(next, in.Out)
			}
		}
		// Unanchored: a match may start at any rune.
		next = append(next, uint32(d.prog.Start))
		slices.Sort(next)
		next = slices.Compact(next)
		d.next = next
		flags := uint8(0)
		if syntax.IsWordChar(r) {
			flags = prevWord
		}
		if len(d.states) >= maxStates {
			// Start over; st stays valid for this step (it is not
			// reused), and the new state is the first after the start.
			d.reset()
			return d.intern(next, flags), true
		}
		t = d.intern(next, flags)
	}
	if r < utf8.RuneSelf {
		d.ascii[int(s)<<7|int(r)] = t + 2
	} else {
		if st.other == nil {
			st.other = make(map[rune]int32)
		}
		st.other[r] = t + 2
	}
	return t, true
}

// consumes reports whether the rune instruction in matches r.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}

// closure follows st's threads through the instructions that consume no
// rune, given the next rune (-1 at the end of the line), and returns
// whether one reaches a match and, if none does, the rune instructions
// they wait at. It charges every instruction it visits to the budget.
func (d *lineDFA) closure(st *dstate, next rune) (matched bool, run []uint32, ok bool) {
	var have syntax.EmptyOp
	if st.flags&atStart != 0 {
		have |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if next < 0 {
		have |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	if (st.flags&prevWord != 0) != (next >= 0 && syntax.IsWordChar(next)) {
		have |= syntax.EmptyWordBoundary
	} else {
		have |= syntax.EmptyNoWordBoundary
	}
	d.seen.clear()
	stack := append(d.stack[:0], st.pcs...)
	run = d.next[:0]
	visited := int64(0)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.seen.has(pc) {
			continue
		}
		d.seen.add(pc)
		visited++
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			d.stack = stack
			d.work -= visited
			return true, nil, d.work >= 0
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^have == 0 {
				stack = append(stack, in.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			run = append(run, pc)
		}
	}
	d.stack = stack
	d.work -= visited
	// The consuming threads are copied before step reuses d.next.
	out := append([]uint32(nil), run...)
	return false, out, d.work >= 0
}

// sparseSet is a set of instruction numbers with O(1) clear (Briggs and
// Torczon), as Go's regexp keeps its thread queues.
type sparseSet struct {
	sparse []uint32
	dense  []uint32
}

func newSparseSet(n int) sparseSet {
	return sparseSet{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
}

func (s *sparseSet) has(x uint32) bool {
	i := s.sparse[x]
	return int(i) < len(s.dense) && s.dense[i] == x
}

func (s *sparseSet) add(x uint32) {
	s.sparse[x] = uint32(len(s.dense))
	s.dense = append(s.dense, x)
}

func (s *sparseSet) clear() { s.dense = s.dense[:0] }
