package briefing

import (
	"bytes"
	"strconv"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/selectors"
)

// A size error of get_lines or get_range says what would fit (SPEC section
// 8): the largest last or end that, with the same first or start, passes
// both caps. When the step's bytes left could not be passed by a text
// within the lookup cap (the default limits: 8 KiB a lookup, 64 KiB a
// step), the line index finds it in O(log n). Otherwise it is found from
// the selection's start, reading no more of the result than that answer
// and the one line (or character) that would pass the caps: O(answer),
// bounded by the lookup cap, no more than the failed lookup measured.
// Nothing is indexed for it when a result is retained.

// escapeCannotBind reports whether no text within room's UTF-8 bytes can
// pass its escaped bytes (a byte escapes to at most six), as with the
// default limits: the lookup cap alone then decides what fits, and the
// line index finds it without reading the text.
func escapeCannotBind(room limits.Room) bool {
	return room.Bytes <= (room.Escaped-2)/6
}

// sized describes a selection of r for its size errors: noun names it
// (plural when it reads as several, "lines 2-9"), with the header line a
// lookup by path starts with, which its sizes count; fit, when set, finds
// what fits in the room that header leaves.
func (r *target) sized(noun string, plural bool, fit func(limits.Room) (errcode.Fit, string)) limits.Selected {
	verb := " is"
	if plural {
		verb = " are"
	}
	if r.head != "" {
		noun, verb = noun+" and the header line", " are"
		if fit != nil {
			inner := fit
			fit = func(room limits.Room) (errcode.Fit, string) { return inner(room.After(r.head)) }
		}
	}
	return limits.Selected{What: noun + verb, Fit: fit}
}

// linesNoun names a line selection for a size error's message: "lines
// 2-9", "line 3", "numbered lines 2-9".
func linesNoun(first, last int64, numbered bool) (string, bool) {
	noun := "lines " + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10)
	if first == last {
		noun = "line " + strconv.FormatInt(first, 10)
	}
	if numbered {
		noun = "numbered " + noun
	}
	return noun, first != last
}

// linesFit returns the Fit of get_lines over lines first..last of data
// (whose line index is lines), numbered or not, in room: the largest last
// whose selection passes both caps, or none.
func linesFit(data []byte, lines selectors.Lines, first, last int64, numbered bool) func(limits.Room) (errcode.Fit, string) {
	return func(room limits.Room) (errcode.Fit, string) {
		start, end := lines.Start(int(first)), lines.Start(int(last)+1)
		var fit int64
		if !numbered && escapeCannotBind(room) && room.Bytes < int64(end-start) {
			// The lookup cap alone decides: the last line that ends by
			// start + room.Bytes, from the line index.
			fit = int64(lines.LineAt(start+int(room.Bytes))) - 1
		} else {
			fit = lastFitting(data[:end], start, first, numbered, room.Bytes, room.Escaped-2)
		}
		switch {
		case fit < first:
			return errcode.Fit{}, "no line from " + strconv.FormatInt(first, 10) + " fits"
		case fit == first:
			return errcode.Fit{To: &fit}, "line " + strconv.FormatInt(first, 10) + " fits"
		}
		return errcode.Fit{To: &fit}, "lines " + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(fit, 10) + " fit"
	}
}

// lastFitting returns the last line of data[pos:] (line first starting at
// pos; data ends at a line boundary) up to which the lines, each with its
// anchor and ": " when numbered (SPEC section 5), take at most raw UTF-8 bytes and escaped
// escaped bytes (quotes not counted); first-1 when not even line first
// does. It reads each line only as far as the bytes left allow.
func lastFitting(data []byte, pos int, first int64, numbered bool, raw, escaped int64) int64 {
	n := first
	for pos < len(data) {
		var prefix int64
		if numbered {
			prefix = int64(selectors.AnchorLen(int(n))) + 2 // the anchor and ": ", never escaped
		}
		left := raw - prefix
		if left <= 0 || escaped-prefix <= 0 {
			break
		}
		window := data[pos:]
		if int64(len(window)) > left {
			window = window[:left]
		}
		end := len(data) // a last line without a newline ends the data
		if i := bytes.IndexByte(window, '\n'); i >= 0 {
			end = pos + i + 1
		} else if pos+len(window) < len(data) {
			break // the line is longer than the bytes left
		}
		line := data[pos:end]
		cost := limits.EscapedSize(line) - 2 + prefix
		if cost > escaped {
			break
		}
		raw -= int64(len(line)) + prefix
		escaped -= cost
		pos = end
		n++
	}
	return n - 1
}

// rangeFit returns the Fit of get_range over data[start:end] in room: the
// largest end on a character boundary whose selection passes both caps,
// or none.
func rangeFit(data []byte, start, end int) func(limits.Room) (errcode.Fit, string) {
	return func(room limits.Room) (errcode.Fit, string) {
		lim := end
		if room.Bytes < int64(end-start) {
			lim = start + int(max(room.Bytes, 0))
		}
		n := lim - start
		if !escapeCannotBind(room) {
			n, _ = limits.EscapedPrefix(data[start:lim], room.Escaped-2)
		}
		to := int64(selectors.FloorCharBoundary(data, start+n))
		if to == int64(start) {
			return errcode.Fit{}, "nothing from byte " + strconv.Itoa(start) + " fits"
		}
		return errcode.Fit{To: &to}, "bytes " + strconv.Itoa(start) + "-" + strconv.FormatInt(to, 10) + " fit"
	}
}
