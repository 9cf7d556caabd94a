package linediff

import "strconv"

// change is one run of the script: lines [a0, a1) of a replaced by lines
// [b0, b1) of b; either may be empty.
type change struct{ a0, a1, b0, b1 int }

// changes walks del and ins in step and returns the runs of changed lines.
// Between two runs the unchanged lines of a and b pair up one to one.
func (e *edits) changes() []change {
	var out []change
	i, j := 0, 0
	na, nb := len(e.del), len(e.ins)
	for i < na || j < nb {
		if i < na && j < nb && !e.del[i] && !e.ins[j] {
			i, j = i+1, j+1
			continue
		}
		c := change{a0: i, b0: j}
		for i < na && e.del[i] {
			i++
		}
		for j < nb && e.ins[j] {
			j++
		}
		c.a1, c.b1 = i, j
		out = append(out, c)
	}
	return out
}

// unified writes the script as hunks with context lines around each
// change; changes at most 2·context unchanged lines apart share a hunk, as
// in GNU diff.
func (e *edits) unified(context int) []byte {
	cs := e.changes()
	var out []byte
	for len(cs) > 0 {
		// The changes of this hunk: while the next starts within 2·context
		// unchanged lines of the last.
		k := 1
		for k < len(cs) && cs[k].a0-cs[k-1].a1 <= 2*context {
			k++
		}
		out = e.hunk(out, cs[:k], context)
		cs = cs[k:]
	}
	return out
}

// hunk writes one hunk: its header, then context, deleted and inserted
// lines.
func (e *edits) hunk(out []byte, cs []change, context int) []byte {
	first, last := cs[0], cs[len(cs)-1]
	a0 := max(0, first.a0-context)
	b0 := first.b0 - (first.a0 - a0)
	a1 := min(e.a.n(), last.a1+context)
	b1 := last.b1 + (a1 - last.a1)
	out = append(out, "@@ -"...)
	out = appendRange(out, a0, a1-a0)
	out = append(out, " +"...)
	out = appendRange(out, b0, b1-b0)
	out = append(out, " @@\n"...)
	i := a0
	for _, c := range cs {
		for ; i < c.a0; i++ {
			out = appendLine(out, ' ', e.a.line(i))
		}
		for ; i < c.a1; i++ {
			out = appendLine(out, '-', e.a.line(i))
		}
		for j := c.b0; j < c.b1; j++ {
			out = appendLine(out, '+', e.b.line(j))
		}
	}
	for ; i < a1; i++ {
		out = appendLine(out, ' ', e.a.line(i))
	}
	return out
}

// appendRange writes a hunk side as "start,count": the 1-based first line,
// or for an empty side the line before it (0 at the start of the text).
func appendRange(out []byte, start, count int) []byte {
	if count > 0 {
		start++
	}
	out = strconv.AppendInt(out, int64(start), 10)
	out = append(out, ',')
	return strconv.AppendInt(out, int64(count), 10)
}

// appendLine writes one line of a hunk; a line without its final newline
// (the last of its text) is followed by GNU diff's marker.
func appendLine(out []byte, mark byte, line []byte) []byte {
	out = append(out, mark)
	out = append(out, line...)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		out = append(out, "\n\\ No newline at end of file\n"...)
	}
	return out
}
