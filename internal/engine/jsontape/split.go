package jsontape

import (
	"bytes"
	"math"
	"runtime"

	"github.com/loom-results/loom-results/errcode"
)

// A large document is scanned in two halves at once, by the one scanner:
//
//   - The first half scans from the start and stops right after the first
//     ',' at or after the middle (stopAt), knowing exactly what is open
//     there; when the second half started at a later ',', it goes on to
//     that one.
//   - The second half starts at a ',' found from the middle by guessing
//     whether the middle lies inside a string (see buildSplit), without
//     knowing what is open there: a phantom scan, which takes the
//     containers it closes without having opened them from their closing
//     brackets, guesses the kind of the innermost from what follows the
//     ',' (a name is a string then ':'), and gives up (unsure) at anything
//     only the true context could judge, errors included.
//   - The join checks every assumption against what the first half knows:
//     the split is where it stopped, the phantoms are exactly its open
//     containers, of the same kinds, and the depth limit holds. Only then
//     are the two tapes joined. Otherwise the first half goes on alone
//     through the second, so the verdict, the offset of an error and the
//     recorded values never depend on the split: they are those of one
//     scan. Only checkpoints may differ: the second half counts an array's
//     elements from the one the split falls in, so near the split two
//     checkpoints may lie up to twice checkpointEvery elements apart.

// splitMin is the smallest document Build scans in two halves: below it
// the second goroutine and the join cost more than they save
// (BenchmarkBuildSplit).
const splitMin = 1 << 20

// parallel reports whether a second goroutine can run beside the first.
func parallel() bool { return runtime.GOMAXPROCS(0) > 1 }

// phantomEnd is the end of a container that the second half closed
// without having opened it: its placeholder on the second half's tape and
// the bytes of the recorded values the second half found directly in it.
type phantomEnd struct {
	tape int
	acc  uint32
}

// phantomCheck is a checkpoint the second half recorded directly in a
// container it did not open: its element index counts from the split.
type phantomCheck struct {
	tape, level int
}

// closePhantom is the end, just before end, of a container the scan did
// not see open.
func (b *builder) closePhantom(end int) {
	b.phantomEnds = append(b.phantomEnds, phantomEnd{tape: b.tape.len, acc: b.phantomAcc})
	b.phantomAcc = 0
	b.tape.add(entry{end: uint32(end)})
}

// buildSplit is Build in two halves, the second starting near mid.
func buildSplit(data []byte, opts Options, mid int) (*Index, *errcode.Error) {
	// Whatever its size, a split document has the tape of a large one (the
	// join works on postorder tapes).
	first := newScanner(data, opts.AllowInvalidUTF8, &builder{})
	first.stopAt, first.maxDepth = mid, opts.depth()
	var (
		second *scanner
		comma  int // the ',' the second half starts after
		st2    status
	)
	secondDone := make(chan struct{})
	go func() {
		defer close(secondDone)
		// Whether mid is inside a string would take a pass over all that
		// comes before it; guess instead. A wrong guess reads string
		// text as JSON and mostly stops within a few bytes, so the first
		// guess whose scan goes on for guessFar bytes is kept; the join
		// checks it either way.
		for _, guess := range [...]struct {
			inString bool
			within   int
		}{{false, guessFar}, {true, guessFar}, {false, len(data)}, {true, len(data)}} {
			if comma = splitAt(data, mid, guess.inString, mid+guess.within); comma < 0 {
				continue
			}
			s := skipWS(data, comma+1)
			second = &scanner{data: data, lenient: opts.AllowInvalidUTF8, stopAt: math.MaxInt, phantom: true, i: s,
				sink: &builder{phantom: true}, maxDepth: first.maxDepth}
			if st2, _ = second.run(); st2 == done || second.i-s >= guessFar {
				return
			}
		}
		second = nil
	}()
	st, why := first.run()
	<-secondDone
	if st == stopped && second != nil && comma > first.i {
		// The second half starts at a later ',' (escaped quotes can set
		// a wrong guess right again, one string on): the first half goes
		// on to it.
		first.stopAt = comma
		st, why = first.run()
	}
	if st == stopped {
		if second != nil {
			if join(&first, second, skipWS(data, comma+1), st2) {
				ix := newIndex(data, first.top, preorder(&first.sink.tape, &second.sink.tape))
				ix.deepest, ix.lenient = max(first.hiDepth, first.depth+second.hiDepth), opts.AllowInvalidUTF8
				return ix, nil
			}
		}
		// The halves do not meet: the first goes on alone.
		first.stopAt = math.MaxInt
		st, why = first.run()
	}
	if st != done {
		return nil, syntaxError(data, first.i, why, first.maxDepth)
	}
	ix := newIndex(data, first.top, preorder(&first.sink.tape))
	ix.deepest, ix.lenient = first.hiDepth, opts.AllowInvalidUTF8
	return ix, nil
}

// guessFar is how far a phantom scan must get for its guess to be kept.
const guessFar = 4 << 10

// splitAt returns the offset of the first ',' at or after mid that lies
// outside strings if mid lies inside a string (inString) or not, where
// the first half stops if the guess is right; or -1 when there is none
// before offset within (a wrong guess may find none for long).
func splitAt(data []byte, mid int, inString bool, within int) int {
	end := min(within, len(data))
	data = data[:end] // skipString stops at end too
	i := mid
	if inString {
		i = skipString(data, i)
	}
	for i < end {
		// The next ',' or '"', each found many bytes an instruction.
		comma := bytes.IndexByte(data[i:end], ',')
		quote := bytes.IndexByte(data[i:end], '"')
		switch {
		case comma >= 0 && (quote < 0 || comma < quote):
			return i + comma
		case quote < 0:
			return -1
		}
		i = skipString(data, i+quote+1)
	}
	return -1
}

// join checks that the second half, which started at s, continues the
// first where it stopped and, if so, completes the second half's tape:
// the two are then the postorder tape of the whole document.
func join(first, second *scanner, s int, secondSt status) bool {
	d0 := first.depth
	b1, b2 := first.sink, second.sink
	if secondSt != done || first.i != s || len(second.phantoms) != d0 || len(b1.frames) != d0 ||
		d0+second.hiDepth > first.maxDepth {
		return false
	}
	// Level d0 is the innermost open container; the stack holds the outer
	// ones' kinds and counts (level l at stack[l]).
	level := func(l int) (obj bool, count uint32) {
		if l == d0 {
			return first.inObj, first.count
		}
		return first.level(l)&1 != 0, first.level(l) >> 1
	}
	for k, p := range second.phantoms {
		if obj, _ := level(d0 - k); obj != p.object {
			return false
		}
	}
	// A checkpoint directly in a phantom array counts that array's
	// elements from the one the split is in: add the first half's count.
	for _, pc := range b2.phantomChecks {
		_, count := level(d0 - pc.level)
		b2.tape.at(pc.tape).end += count
	}
	// Each phantom, innermost first, is the first half's frame at its
	// level closed by the second: whether it is recorded depends on the
	// recorded bytes inside it, in both halves and in the phantom inside
	// it. Its placeholder becomes its entry, or is dropped.
	carry := uint32(0)
	for k, pe := range b2.phantomEnds {
		f := b1.frames[d0-1-k]
		x := b2.tape.at(pe.tape)
		end := x.end
		acc := f.acc + pe.acc + carry
		carry = acc
		if end-f.start-acc >= minOwn {
			// Its index on the whole tape, less the tape's length when it
			// opened: the entries inside it.
			index := b1.tape.len + pe.tape - b2.tape.dropped
			*x = entry{start: f.start, end: end, desc: uint32(index) - f.mark}
			carry = end - f.start
		} else {
			x.desc = droppedEntry
			b2.tape.dropped++
		}
	}
	return true
}
