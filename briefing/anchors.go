package briefing

import (
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// A Position is a line position of a splice edit or of a compose
// reference's lines (SPEC 5.2): a line number, or a line's anchor, which
// adds the two characters that the stored line must have. It reads
// itself (bind): a JSON integer, or a string of exactly an anchor's form
// (SPEC 4.4). Its schema names no type (SPEC section 9).
type Position struct {
	n        int64
	anchored bool
	chars    [2]byte
}

// String is the position as it was sent: "41" or "41#xy".
func (p Position) String() string {
	if p.anchored {
		return selectors.Anchor(int(p.n), p.chars)
	}
	return strconv.FormatInt(p.n, 10)
}

// JSONType is the JSON type that a position's schema names: none, since
// it is a number or a string.
func (Position) JSONType() string { return "" }

// anchorForm says what an anchor is, for the messages of malformed ones.
const anchorForm = `an anchor is a line number, "#" and the line's two characters (a-z, 2-7), as numbered get_lines and find show it: "41#xy"`

func (*Position) wants() (one, many string) {
	return `a line number or an anchor ("41#xy")`, "line numbers or anchors"
}

func (p *Position) bind(d binder, n jsontape.Node, name valueName) *errcode.Error {
	switch d.ix.Kind(n) {
	case jsontape.Number:
		if i, ok := d.integer(n); ok {
			*p = Position{n: i}
			return nil
		}
	case jsontape.String:
		s, bad := d.ix.StringText(n)
		if bad >= 0 {
			return notUTF8(d.kind, name.String(), bad)
		}
		i, chars, ok := selectors.ParseAnchor(s)
		if !ok {
			return errcode.New(errcode.InvalidArgument, "%s %s is %s, not an anchor: %s", d.kind, quoted(name.String()), quoted(s), anchorForm)
		}
		*p = Position{n: i, anchored: true, chars: chars}
		return nil
	}
	one, _ := p.wants()
	return d.wrongType(name, one, n)
}

// checkAnchors checks the characters of each anchored position against
// the stored line it names (which the caller has checked exists): the
// first that differs fails with anchor_mismatch.
func checkAnchors(t *results.Text, ps ...Position) *errcode.Error {
	for _, p := range ps {
		if !p.anchored {
			continue
		}
		if got := t.Lines.LineAnchorChars(int(p.n)); got != p.chars {
			return anchorMismatch(t, p, got)
		}
	}
	return nil
}

// nearAnchor is how far from the line an anchor names anchorMismatch
// looks for a line that has the characters sent (SPEC 5.2).
const nearAnchor = 16

// anchorMismatch is the error of anchor p whose line's characters are
// got: it gives the line's own anchor and text and the nearest line
// within nearAnchor lines that has p's characters, or both when one
// before and one after are as near (SPEC 5.2), so that the model can
// resend without reading again.
func anchorMismatch(t *results.Text, p Position, got [2]byte) *errcode.Error {
	n := int(p.n)
	var msg strings.Builder
	msg.WriteString("line " + strconv.Itoa(n) + " is " + selectors.Anchor(n, got) + " " + lineQuote(t, n) + ", not " + p.String())
	count := t.Lines.Count()
	for d := 1; d <= nearAnchor; d++ {
		var near []string
		for _, m := range []int{n - d, n + d} {
			if m >= 1 && m <= count && t.Lines.LineAnchorChars(m) == p.chars {
				near = append(near, selectors.Anchor(m, p.chars)+" is "+lineQuote(t, m))
			}
		}
		if len(near) > 0 {
			msg.WriteString("; " + strings.Join(near, ", "))
			return errcode.New(errcode.AnchorMismatch, "%s", msg.String())
		}
	}
	msg.WriteString("; no line within " + strconv.Itoa(nearAnchor) + " of it has #" + string(p.chars[:]) +
		": read the lines again with numbered get_lines or find and send their anchors")
	return errcode.New(errcode.AnchorMismatch, "%s", msg.String())
}

// lineQuoteBytes is how much of a line's text a message quotes.
const lineQuoteBytes = 80

// lineQuote is line n's text without its ending, cut to lineQuoteBytes
// on a character boundary, quoted.
func lineQuote(t *results.Text, n int) string {
	c := t.Lines.Content(n)
	if c.Len() > lineQuoteBytes {
		c.End = selectors.FloorCharBoundary(t.Data, c.Start+lineQuoteBytes)
	}
	return strconv.Quote(string(t.Data[c.Start:c.End]))
}

// refuseNumbers is the rule of --steps model (SPEC 5.2): a position given
// as a number that names a line of the result fails with invalid_argument,
// whose message shows those lines with their anchors. names says which of
// ps name a line (an insertion before lines + 1 names none).
func refuseNumbers(t *results.Text, ps []Position, names func(Position) bool) *errcode.Error {
	var shown []string
	for i, p := range ps {
		if p.anchored || !names(p) || i > 0 && ps[i-1] == p {
			continue // [2, 2] shows line 2 once
		}
		n := int(p.n)
		shown = append(shown, "line "+strconv.Itoa(n)+" is "+selectors.Anchor(n, t.Lines.LineAnchorChars(n))+" "+lineQuote(t, n))
	}
	if len(shown) == 0 {
		return nil
	}
	return errcode.New(errcode.InvalidArgument, "name lines by their anchors, as numbered get_lines and find show them: %s",
		strings.Join(shown, ", "))
}
