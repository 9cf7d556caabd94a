package briefing

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf8"
)

// capture keeps what a running command writes as retain_output would keep
// it as a text (SPEC section 10), in memory bounded by the result cap
// whatever the command prints: its invalid UTF-8 replaced by U+FFFD as it
// arrives, and of that text only the last limit bytes, in a ring. It also
// keeps what progress notifications report: the bytes read so far and the
// last complete line.
//
// Invalid UTF-8 is replaced one maximal subpart at a time, the practice
// that Unicode recommends (The Unicode Standard, section 3.9, "U+FFFD
// Substitution of Maximal Subparts") and the WHATWG encoding standard
// follows: "\xe2\x82A" is one U+FFFD and "A", "\xff\xfe" two U+FFFD.
// replaced counts the stream's bytes so replaced.
type capture struct {
	mu sync.Mutex

	limit int    // the most bytes kept: the result cap
	buf   []byte // the text's last bytes: grows to limit, then a ring
	head  int    // once len(buf) == limit: where the oldest byte is

	read     int64 // bytes of the stream
	text     int64 // bytes of the text (after replacement)
	replaced int64 // bytes of the stream replaced by U+FFFD

	pending []byte // the start of a sequence a chunk ended in (at most 3 bytes)
	scratch []byte // pending and the next chunk, joined

	line     []byte // the start of the line being written, at most lineKeep bytes
	lineLong bool   // the line being written is longer than lineKeep
	last     string // the start of the last complete line, "\r\n" removed
	hasLast  bool
}

// lineKeep is how much of a line the capture keeps for progress messages:
// enough for 120 bytes and a "\r".
const lineKeep = 128

// progressLine is the most bytes of a line a progress message shows.
const progressLine = 120

var replacement = []byte(string(utf8.RuneError))

func newCapture(limit int64) *capture {
	return &capture{limit: int(limit), line: make([]byte, 0, lineKeep)}
}

// write takes the next chunk of the stream.
func (c *capture) write(chunk []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read += int64(len(chunk))
	if len(c.pending) > 0 {
		c.scratch = append(append(c.scratch[:0], c.pending...), chunk...)
		chunk = c.scratch
		c.pending = c.pending[:0]
	}
	rest := c.decode(chunk, false)
	c.pending = append(c.pending, rest...)
}

// decode emits b's valid text and a U+FFFD for each maximal subpart of
// invalid UTF-8; it returns the bytes at the end of b that may start a
// sequence the next chunk completes (none at the end of the stream).
func (c *capture) decode(b []byte, eof bool) []byte {
	for len(b) > 0 {
		n := validPrefix(b)
		c.emit(b[:n])
		b = b[n:]
		if len(b) == 0 {
			break
		}
		k, decided := maximalSubpart(b)
		if !decided && !eof {
			return b
		}
		c.emit(replacement)
		c.replaced += int64(k)
		b = b[k:]
	}
	return nil
}

// validPrefix returns the length of the longest prefix of b that is valid
// UTF-8, found at once when only the last few bytes are in question.
func validPrefix(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	cut := len(b) - 1
	for cut > 0 && cut > len(b)-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	if utf8.Valid(b[:cut]) {
		return cut
	}
	i := 0
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return i
}

// maximalSubpart returns the length of the maximal subpart of an
// ill-formed sequence that starts b (b does not start with a valid
// character): the longest prefix of a well-formed sequence, or its first
// byte alone. decided is false when b ends before the sequence does, so
// that more bytes could still make it a character.
func maximalSubpart(b []byte) (n int, decided bool) {
	lo, hi := byte(0x80), byte(0xBF) // the second byte's range
	need := 0                        // continuation bytes after the first
	switch c := b[0]; {
	case 0xC2 <= c && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case 0xE1 <= c && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case 0xF1 <= c && c <= 0xF3:
		need = 3
	default:
		return 1, true
	}
	n = 1
	for i := 1; i <= need; i++ {
		if i >= len(b) {
			return n, false
		}
		if x := b[i]; i == 1 && (x < lo || x > hi) || i > 1 && (x < 0x80 || x > 0xBF) {
			return n, true
		}
		n++
	}
	// A whole character: not reached, since b did not start with one.
	return n, true
}

// emit adds valid text to the kept tail and the line tracking.
func (c *capture) emit(p []byte) {
	if len(p) == 0 {
		return
	}
	c.text += int64(len(p))
	c.track(p)
	if c.limit == 0 {
		return
	}
	for len(p) > 0 {
		if len(c.buf) < c.limit {
			n := min(len(p), c.limit-len(c.buf))
			c.grow(n)
			c.buf = append(c.buf, p[:n]...)
			p = p[n:]
			continue
		}
		if len(p) > c.limit {
			p = p[len(p)-c.limit:]
		}
		n := copy(c.buf[c.head:], p)
		c.head = (c.head + n) % c.limit
		p = p[n:]
	}
}

// grow makes room for n more bytes in buf, never past limit: the ring is
// allocated as the output needs it, twice as large each time.
func (c *capture) grow(n int) {
	if cap(c.buf)-len(c.buf) >= n {
		return
	}
	size := min(max(2*cap(c.buf), len(c.buf)+n, 4096), c.limit)
	c.buf = append(make([]byte, 0, size), c.buf...)
}

// track follows the lines of the text for progress messages.
func (c *capture) track(p []byte) {
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		c.keepLine(p)
		return
	}
	if j := bytes.LastIndexByte(p[:i], '\n'); j >= 0 {
		c.line, c.lineLong = c.line[:0], false
		c.keepLine(p[j+1 : i])
	} else {
		c.keepLine(p[:i])
	}
	line := c.line
	if !c.lineLong {
		line = bytes.TrimSuffix(line, []byte("\r"))
	}
	c.last, c.hasLast = string(line), true
	c.line, c.lineLong = c.line[:0], false
	c.keepLine(p[i+1:])
}

// keepLine adds p to the start of the line being written.
func (c *capture) keepLine(p []byte) {
	if room := lineKeep - len(c.line); len(p) > room {
		p, c.lineLong = p[:room], true
	}
	c.line = append(c.line, p...)
}

// progress returns the bytes of the stream read so far and the last
// complete line, cut to 120 bytes on a character boundary (ok is false
// before the first line ends).
func (c *capture) progress() (read int64, line string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line = c.last
	if len(line) > progressLine {
		n := progressLine
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		line = line[:n]
	}
	return c.read, line, c.hasLast
}

// finish ends the stream and returns the kept text (the longest suffix of
// the text of at most limit bytes that starts on a character boundary),
// the text's bytes not kept, and the stream's bytes replaced. The capture
// must not be used afterwards: the text is its buffer.
func (c *capture) finish() (data []byte, dropped, replaced int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) > 0 {
		c.decode(c.pending, true)
		c.pending = nil
	}
	data = c.buf
	if len(data) == c.limit && c.head > 0 {
		// Rotate the ring in place: buf[head:] then buf[:head].
		slices.Reverse(data[:c.head])
		slices.Reverse(data[c.head:])
		slices.Reverse(data)
	}
	cut := 0
	for cut < len(data) && !utf8.RuneStart(data[cut]) {
		cut++
	}
	data = data[cut:]
	if cap(data) > len(data)+len(data)/4 {
		// A short output need not keep the room it grew into.
		data = slices.Clone(data)
	}
	c.buf = nil
	return data, c.text - int64(len(data)), c.replaced
}
