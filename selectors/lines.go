package selectors

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math"
	"math/bits"
	"sort"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
)

// MaxSize is the largest result the indexes can address: offsets are
// uint32, and a slice of a 32-bit platform holds at most math.MaxInt bytes.
const MaxSize = min(math.MaxUint32, math.MaxInt)

// Lines is the line index of a result (SPEC section 4.2): a line is a
// maximal run of bytes that ends with '\n', '\n' included, or the final run
// when the result does not end with '\n'. A lone '\r' does not end a line.
//
// The index is sparse: for every lineBlock bytes of the result it keeps the
// first line that starts in or after that block (8 bytes a block, 1/64 of
// the result), and finds any other line start by scanning at most one block
// from there. So every lookup costs O(log blocks) plus one block, whatever
// the line lengths, and the index stays small whatever their number.
type Lines struct {
	data  []byte
	count int
	// marks[k] is the first line that starts at or after offset
	// k*lineBlock, or {count+1, size} when none does.
	marks []lineMark
}

// The SWAR constants: a byte of ones, and the high bit of every byte.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// lineMark is a line number and the offset where that line starts.
type lineMark struct{ line, start uint32 }

// lineBlock is the span of one mark: the most a lookup scans.
const lineBlock = 512

// ScanText checks that data is valid UTF-8 and builds its line index in the
// same pass, one index block at a time; from 2 MiB on, its two halves on two
// goroutines. Invalid UTF-8 fails with not_utf8, whose offset is the start
// of the first invalid sequence. data is kept, not copied: it must not
// change afterwards.
func ScanText(data []byte) (Lines, *errcode.Error) {
	split := -1
	if len(data) >= parallelScan {
		split = len(data) / 2
	}
	return scanText(data, split)
}

// parallelScan is the size from which ScanText scans in two halves.
const parallelScan = 2 << 20

// scanText is ScanText, in two halves split near at (at < 0: in one).
func scanText(data []byte, at int) (Lines, *errcode.Error) {
	n := len(data)
	if n > MaxSize {
		return Lines{}, errcode.New(errcode.TooLarge, "%d bytes is over the %d bytes a result can hold", n, int64(MaxSize)).
			With(errcode.Details{Size: new(int64(n)), Limit: new(int64(MaxSize))})
	}
	marks := make([]lineMark, (n+lineBlock-1)/lineBlock)
	first := lineScan{data: data, marks: marks}
	if n > 0 {
		first.markLine(1, 0)
	}
	// The halves meet on a character boundary: at most 3 bytes back.
	v := n
	if at >= 0 && at < n {
		for v = at; v > 0 && !utf8.RuneStart(data[v]); v-- {
		}
	}
	if v == n || v == 0 {
		first.scan(0, n)
		if first.err != nil {
			return Lines{}, first.err
		}
		return first.finish(first.count, first.next), nil
	}
	// The second half marks the blocks after the one that holds v; the
	// first half those it meets before v; the block that holds v (if the
	// first half left it) gets the second half's first line start.
	k := v / lineBlock
	second := lineScan{data: data, marks: marks, next: v, firstBlock: k + 1}
	done := make(chan struct{})
	go func() {
		defer close(done)
		second.scan(v, n)
	}()
	first.scan(0, v)
	<-done
	if first.err != nil {
		return Lines{}, first.err
	}
	if second.err != nil {
		return Lines{}, second.err
	}
	// The second half counted its lines from 1.
	shift := uint32(first.count)
	for b := k + 1; b < second.next/lineBlock; b++ {
		marks[b].line += shift
	}
	next := first.next // no line starts in the second half: the end
	if second.hasFirst {
		m := second.firstMark
		m.line += shift
		for b := first.next / lineBlock; b <= k; b++ {
			marks[b] = m
		}
		next = second.next
	}
	return first.finish(first.count+second.count, next), nil
}

// scan validates data[from:to] and indexes its newlines, going on from the
// scan's count; a failure is left in s.err. It goes one index block at a
// time: the block's UTF-8 check (a whole block of ASCII at once), then its
// newlines, counted with bytes.Count and found with bytes.IndexByte only
// while the block's mark is still to be set, so an ASCII block costs three
// passes that run at memory speed instead of a loop over its words.
func (s *lineScan) scan(from, to int) {
	data := s.data[:to]
	count := s.count
	defer func() { s.count = count }()
	valid := from // data[from:valid] is UTF-8
	for i := from; i < to; {
		end := min((i/lineBlock+1)*lineBlock, to)
		if valid < end {
			var bad bool
			if valid, bad = validUTF8(data, valid, end); bad {
				s.err = NotUTF8(int64(valid))
				return
			}
		}
		// A newline at p starts a line at p+1, which marks the blocks up
		// to its own when it is at or after s.next.
		for s.next <= end {
			lo := max(i, s.next-1)
			p := bytes.IndexByte(data[lo:end], '\n')
			if p < 0 || lo+p+1 >= len(s.data) {
				break
			}
			p += lo
			s.markLine(count+bytes.Count(data[i:p], newline)+2, p+1)
		}
		count += bytes.Count(data[i:end], newline)
		i = end
	}
}

var newline = []byte{'\n'}

// validUTF8 checks data from v on, up to end at least, and returns where it
// stopped: end, or past it when characters run on across end; bad reports an
// invalid sequence, which then starts at the returned offset.
func validUTF8(data []byte, v, end int) (int, bool) {
	if asciiOnly(data[v:end]) {
		return end, false
	}
	n := len(data)
	for v < end {
		if v+8 <= end {
			w := binary.LittleEndian.Uint64(data[v:])
			high := w & swarHighs
			if high == 0 || twoByteOnly(w) {
				v += 8
				continue
			}
			v += bits.TrailingZeros64(high) >> 3
		} else if data[v] < 0x80 {
			v++
			continue
		}
		// The common two-byte character inline, the rest in skipMultiByte.
		if c := data[v]; c >= 0xC2 && c < 0xE0 && v+1 < n && data[v+1]&0xC0 == 0x80 {
			v += 2
			continue
		}
		var bad bool
		if v, bad = skipMultiByte(data, v); bad {
			return v, true
		}
	}
	return v, false
}

// twoByteOnly reports that every byte of w of 0x80 or above belongs to a
// two-byte character (U+0080 to U+07FF) that lies wholly in w: a lead byte
// 0xC2-0xDF followed by a continuation byte 0x80-0xBF, and no other.
func twoByteOnly(w uint64) bool {
	high := w & swarHighs
	bit6 := (w << 1) & swarHighs // each byte's bit 6, at its bit 7
	bit5 := (w << 2) & swarHighs
	lead, cont := high&bit6, high&^bit6
	// 0xC0 and 0xC1 would be overlong: a lead needs one of its bits 1-4.
	payload := (w&(swarOnes*0x1E) + swarOnes*0x7F) & swarHighs
	return lead&bit5 == 0 && lead&^payload == 0 && lead>>56 == 0 && cont == lead<<8
}

// asciiOnly reports that no byte of b is 0x80 or above.
func asciiOnly(b []byte) bool {
	var acc uint64
	for len(b) >= 32 {
		acc |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:]) |
			binary.LittleEndian.Uint64(b[16:]) | binary.LittleEndian.Uint64(b[24:])
		b = b[32:]
	}
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&swarHighs == 0
}

// skipMultiByte skips the run of multi-byte characters that starts at i and
// returns where it ends; bad reports an invalid sequence, which then starts
// at the returned offset. The common two- and three-byte characters are
// taken inline.
func skipMultiByte(data []byte, i int) (end int, bad bool) {
	n := len(data)
	for i < n {
		c := data[i]
		switch {
		case c < 0x80:
			return i, false
		case c >= 0xC2 && c < 0xE0 && i+1 < n && data[i+1]&0xC0 == 0x80:
			i += 2
		case c >= 0xE1 && c < 0xF0 && c != 0xED && i+2 < n && data[i+1]&0xC0 == 0x80 && data[i+2]&0xC0 == 0x80:
			i += 3
		default:
			// The rest, with the ranges of RFC 3629 section 4.
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, true
			}
			i += size
		}
	}
	return i, false
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

// NotUTF8 is the not_utf8 error of text whose first invalid UTF-8
// sequence starts at offset off.
func NotUTF8(off int64) *errcode.Error {
	return errcode.Offset(errcode.NotUTF8, int64(off), "not valid UTF-8 at byte %d", off)
}

// A TextScan is ScanText for a text that arrives in prefixes, a file being
// read: Feed scans each new part as it comes, on the reading goroutine, so
// that the check and the index are done when the reading is, and Lines
// scans the rest and returns the index. The zero TextScan is ready to use.
type TextScan struct {
	s    lineScan
	done int // data[:done] is scanned
}

// Feed scans what filled holds beyond the last Feed: a prefix of the text,
// which must not change afterwards. It leaves the last bytes for later, so
// that a character cut at the end of filled, or a newline there that may
// be the text's last byte, is seen whole. An invalid byte is not reported
// until Lines.
func (t *TextScan) Feed(filled []byte) {
	if t.s.err != nil || len(filled) < 2*lineBlock {
		return
	}
	if t.done == 0 {
		t.s.markLine(1, 0)
	}
	to := len(filled) - utf8.UTFMax
	for to > t.done && !utf8.RuneStart(filled[to]) {
		to--
	}
	if to <= t.done {
		return
	}
	t.s.data = filled
	t.s.scan(t.done, to)
	t.done = to
}

// Lines scans the rest of data, the whole text (beginning with every
// prefix Feed was given), and returns its line index, or not_utf8 at the
// first invalid sequence.
func (t *TextScan) Lines(data []byte) (Lines, *errcode.Error) {
	if t.done == 0 {
		return ScanText(data)
	}
	if len(data) > MaxSize {
		return scanText(data, -1) // too_large
	}
	t.s.data = data
	if t.s.err == nil {
		t.s.scan(t.done, len(data))
	}
	if t.s.err != nil {
		return Lines{}, t.s.err
	}
	return t.s.finish(t.s.count, t.s.next), nil
}

// lineScan builds the marks as ScanText meets newlines, over all of data
// or one half of it.
type lineScan struct {
	data  []byte
	marks []lineMark
	// next is the offset of the first block that has no mark yet.
	next int
	// firstBlock is the first block this scan may mark: a second half
	// leaves the block where it starts to the first half.
	firstBlock int
	// firstMark is the first line start met, when hasFirst.
	firstMark lineMark
	hasFirst  bool
	count     int // newlines met
	err       *errcode.Error
}

// markLine records that line starts at start, for every block up to the
// one that holds start.
func (s *lineScan) markLine(line, start int) {
	m := lineMark{uint32(line), uint32(start)}
	if !s.hasFirst {
		s.firstMark, s.hasFirst = m, true
	}
	last := start / lineBlock
	if last >= len(s.marks) {
		// A TextScan's marks grow with the text.
		s.marks = append(s.marks, make([]lineMark, last+1-len(s.marks))...)
	}
	for k := max(s.next/lineBlock, s.firstBlock); k <= last; k++ {
		s.marks[k] = m
	}
	s.next = (last + 1) * lineBlock
}

// finish completes the index of newlines newlines, marking the blocks from
// offset next on, where no line starts, with the end.
func (s *lineScan) finish(newlines, next int) Lines {
	n := len(s.data)
	if blocks := (n + lineBlock - 1) / lineBlock; blocks > len(s.marks) {
		s.marks = append(s.marks, make([]lineMark, blocks-len(s.marks))...)
	}
	count := newlines
	if n > 0 && s.data[n-1] != '\n' {
		count++
	}
	end := lineMark{uint32(count + 1), uint32(n)}
	for k := next / lineBlock; k < len(s.marks); k++ {
		s.marks[k] = end
	}
	return Lines{data: s.data, count: count, marks: s.marks}
}

// Count returns the number of lines.
func (l Lines) Count() int { return l.count }

// Start returns the offset where line n starts (1 <= n <= Count()+1);
// n = Count()+1 gives the size.
func (l Lines) Start(n int) int {
	if n > l.count {
		return len(l.data)
	}
	// The last block whose mark is at or before line n: line n starts in
	// that block or it would have a later mark.
	k := sort.Search(len(l.marks), func(k int) bool { return int(l.marks[k].line) > n }) - 1
	m := l.marks[k]
	pos := int(m.start)
	end := min((k+1)*lineBlock, len(l.data))
	for range n - int(m.line) {
		pos += bytes.IndexByte(l.data[pos:end], '\n') + 1
	}
	return pos
}

// Line returns the span of line n (1 <= n <= Count), its newline included.
func (l Lines) Line(n int) Span {
	return Span{l.Start(n), l.Start(n + 1)}
}

// Content returns the span of line n without its ending ("\n" or "\r\n").
func (l Lines) Content(n int) Span {
	return contentOf(l.data, l.Line(n))
}

func contentOf(data []byte, s Span) Span {
	s.End = s.Start + len(TrimEnding(data[s.Start:s.End]))
	return s
}

// TrimEnding returns line without its ending ("\n" or "\r\n"), the text
// that find matches and that a line's anchor is the digest of.
func TrimEnding(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// All yields every line's number and span (newline included), in order,
// in one pass over the result.
func (l Lines) All() iter.Seq2[int, Span] {
	return func(yield func(int, Span) bool) {
		start := 0
		for n := 1; n <= l.count; n++ {
			end := len(l.data)
			if i := bytes.IndexByte(l.data[start:], '\n'); i >= 0 {
				end = start + i + 1
			}
			if !yield(n, Span{start, end}) {
				return
			}
			start = end
		}
	}
}

// LineAt returns the number of the line that holds offset off
// (0 <= off < size), in O(1) plus a scan of at most one block.
func (l Lines) LineAt(off int) int {
	m := l.marks[off/lineBlock]
	if off < int(m.start) {
		// No line starts between the block's start and off.
		return int(m.line) - 1
	}
	return int(m.line) + bytes.Count(l.data[m.start:off], []byte{'\n'})
}

// Range checks the inclusive line range of SPEC section 4.2 and returns the
// bytes of those lines, newlines included: 1 <= first <= last <= lines, else
// invalid_range with the result's line count in "lines".
func (l Lines) Range(first, last int64) (Span, *errcode.Error) {
	n := int64(l.count)
	if first < 1 || first > n || last < first || last > n {
		return Span{}, l.rangeError(first, last)
	}
	return Span{l.Start(int(first)), l.Start(int(last) + 1)}, nil
}

func (l Lines) rangeError(first, last int64) *errcode.Error {
	n := int64(l.count)
	if n == 0 {
		return errcode.New(errcode.InvalidRange, "lines %d-%d outside an empty result: it has no lines", first, last).
			With(errcode.Details{Lines: new(n)})
	}
	if first >= 1 && first <= n && last < first {
		// Both may lie inside the result (or last be 0, as a cleared form
		// field sends it): "outside" would not say what is wrong.
		return errcode.New(errcode.InvalidRange, "lines %d-%d: first is after last; need 1 <= first <= last <= %d",
			first, last, n).With(errcode.Details{Lines: new(n)})
	}
	return errcode.New(errcode.InvalidRange, "lines %d-%d outside 1-%d", first, last, n).With(errcode.Details{Lines: new(n)})
}
