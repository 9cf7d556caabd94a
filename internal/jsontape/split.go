package jsontape

import (
	"bytes"
	"math"
	"math/bits"
	"runtime"

	"github.com/loom-results/loom-results/errcode"
)

// A large document is scanned in two halves at once, by the one scanner:
//
//   - The first half scans from the start and stops right after the first
//     ',' at or after the middle (stopAt), knowing exactly what is open
//     there.
//   - The second half starts at the same ',' (found from the middle by
//     counting the quotes before it, see splitAt) without knowing what is
//     open: a phantom scan, which takes the containers it closes without
//     having opened them from their closing brackets, guesses the kind of
//     the innermost from what follows the ',' (a name is a string then
//     ':'), and gives up (unsure) at anything only the true context could
//     judge, errors included.
//   - The join checks every assumption against what the first half knows:
//     the split is where it stopped, the phantoms are exactly its open
//     containers, of the same kinds, and the depth limit holds. Only then
//     are the two tapes joined. Otherwise the first half goes on alone
//     through the second, so the verdict, the offset of an error and the
//     tape never depend on the split: they are those of one scan.

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
	b.phantomEnds = append(b.phantomEnds, phantomEnd{tape: len(b.tape), acc: b.phantomAcc})
	b.phantomAcc = 0
	b.tape = append(b.tape, entry{end: uint32(end)})
}

// buildSplit is Build in two halves, the second starting near mid.
func buildSplit(data []byte, opts Options, mid int) (*Index, *errcode.Error) {
	first := newScanner(data, opts.AllowInvalidUTF8, newBuilder(mid))
	first.stopAt = mid
	second := &scanner{data: data, lenient: opts.AllowInvalidUTF8, stopAt: math.MaxInt, phantom: true}
	secondDone := make(chan status, 1)
	var s int // where the second half starts
	go func() {
		if s = splitAt(data, mid); s < 0 {
			secondDone <- unsure
			return
		}
		second.i, second.sink = s, &builder{phantom: true, tape: make([]entry, 0, len(data)/512)}
		st, _ := second.run()
		secondDone <- st
	}()
	st, why := first.run()
	secondSt := <-secondDone
	if st == stopped {
		if tape, ok := join(&first, second, s, secondSt); ok {
			return newIndex(data, first.top, preorder(tape)), nil
		}
		// The halves do not meet: the first goes on alone.
		first.stopAt = math.MaxInt
		st, why = first.run()
	}
	if st != done {
		return nil, syntaxError(data, first.i, why)
	}
	return newIndex(data, first.top, preorder(first.sink.tape)), nil
}

// splitAt returns where the second half starts: right after the first ','
// at or after mid that lies outside strings (and its whitespace), where
// the first half stops; or -1 when there is none. Whether mid is inside a
// string is the parity of the quotes before it that no backslash escapes
// (a quote is escaped by an odd run of backslashes before it). On a
// document that is not valid this may be wrong; the join then sees that
// the halves do not meet.
func splitAt(data []byte, mid int) int {
	inString, escaped := quoteState(data[:mid])
	i := mid
	if inString {
		if escaped {
			i++
		}
		i = skipString(data, i)
	}
	for i < len(data) {
		j := bytes.IndexAny(data[i:], `,"`)
		if j < 0 {
			return -1
		}
		i += j
		if data[i] == '"' {
			i = skipString(data, i+1)
			continue
		}
		return skipWS(data, i+1)
	}
	return -1
}

// quoteState reports whether the end of b lies inside a string (an odd
// number of unescaped quotes before it) and whether the byte after b is
// escaped (b ends in an odd run of backslashes). Words without a
// backslash, the common case, take a popcount.
func quoteState(b []byte) (inString, escaped bool) {
	if bytes.IndexByte(b, '\\') < 0 {
		return bytes.Count(b, []byte{'"'})%2 == 1, false
	}
	odd, run := 0, 0 // run: the backslashes just before i
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := load8(b, i)
		if run == 0 && zeroBytes(w^swarOnes*'\\') == 0 {
			odd += bits.OnesCount64(zeroBytes(w ^ swarOnes*'"'))
			continue
		}
		for _, c := range b[i : i+8] {
			odd, run = quoteStep(c, odd, run)
		}
	}
	for _, c := range b[i:] {
		odd, run = quoteStep(c, odd, run)
	}
	return odd%2 == 1, run%2 == 1
}

// quoteStep counts byte c into the unescaped quotes odd and the backslash
// run before the next byte.
func quoteStep(c byte, odd, run int) (int, int) {
	switch c {
	case '\\':
		return odd, run + 1
	case '"':
		if run%2 == 0 {
			odd++
		}
	}
	return odd, 0
}

// zeroBytes returns the high bit of each byte of w that is zero, exactly
// (no borrow crosses a byte: (b&0x7f)+0x7f <= 0xfe).
func zeroBytes(w uint64) uint64 {
	const lows = swarOnes * 0x7F
	return ^((w&lows + lows) | w | lows)
}

// join checks that the second half, which started at s, continues the
// first where it stopped and, if so, returns the tape of the whole
// document in postorder.
func join(first, second *scanner, s int, secondSt status) ([]entry, bool) {
	d0 := first.depth
	b1, b2 := first.sink, second.sink
	if secondSt != done || first.i != s || len(second.phantoms) != d0 || len(b1.frames) != d0 ||
		d0+second.hiDepth > MaxDepth {
		return nil, false
	}
	// Level d0 is the innermost open container; the stack holds the outer
	// ones' kinds and counts (level l at stack[l]).
	level := func(l int) (obj bool, count uint32) {
		if l == d0 {
			return first.inObj, first.count
		}
		return first.stack[l]&1 != 0, first.stack[l] >> 1
	}
	for k, p := range second.phantoms {
		if obj, _ := level(d0 - k); obj != p.object {
			return nil, false
		}
	}
	// A checkpoint directly in a phantom array counts that array's
	// elements from the one the split is in: add the first half's count.
	for _, pc := range b2.phantomChecks {
		_, count := level(d0 - pc.level)
		b2.tape[pc.tape].end += count
	}
	// Each phantom, innermost first, is the first half's frame at its
	// level closed by the second: whether it is recorded depends on the
	// recorded bytes inside it, in both halves and in the phantom inside
	// it. Its placeholder becomes its entry, or goes.
	tape := b1.tape
	from, carry := 0, uint32(0)
	for k, pe := range b2.phantomEnds {
		tape = append(tape, b2.tape[from:pe.tape]...)
		from = pe.tape + 1
		f := b1.frames[d0-1-k]
		end := b2.tape[pe.tape].end
		acc := f.acc + pe.acc + carry
		carry = acc
		if end-f.start-acc >= minOwn {
			tape = append(tape, entry{start: f.start, end: end, desc: uint32(len(tape)) - f.mark})
			carry = end - f.start
		}
	}
	return append(tape, b2.tape[from:]...), true
}
