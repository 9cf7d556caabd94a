package briefing

import (
	"strconv"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// spliceEdit is one edit of a $splice after its checks: the stored lines it
// replaces, [from, to) in line-boundary numbers (boundary k lies before
// line k), and its text. An insertion before line n has from = to = n.
type spliceEdit struct {
	from, to int64
	insert   bool
	after    bool   // an insertion sent as after: from - 1
	text     NodeID // the text as sent, until editText resolves it
	pieces   [][]byte
}

// describe names an edit for messages: "edit 2 (lines 5-7)".
func (s spliceEdit) describe(i int) string {
	switch {
	case s.after:
		return "edit " + strconv.Itoa(i) + " (after line " + strconv.FormatInt(s.from-1, 10) + ")"
	case s.insert:
		return "edit " + strconv.Itoa(i) + " (before line " + strconv.FormatInt(s.from, 10) + ")"
	}
	return "edit " + strconv.Itoa(i) + " (lines " + strconv.FormatInt(s.from, 10) + "-" + strconv.FormatInt(s.to-1, 10) + ")"
}

// spliced is a resolved splice: the pieces of its text, its number of
// edits, and the result it edits.
type spliced struct {
	pieces [][]byte
	parts  int
	result *results.Result
}

// splice resolves {"result", "sha256"?, "edits": [...]} (SPEC 5.2): the
// stored text with the edits applied. It resolves its reference, then each
// edit's form, line numbers, order against the previous edit, then text.
// Failures of the splice's own members are at at; edits are under body
// (/content/$splice/edits/1 in expand_edit, /splice/edits/1 in
// write_file, where at and body are both /splice).
func (e *expander) splice(obj NodeID, at, body string) (spliced, *errcode.Error) {
	b := e.b
	fail := func(err *errcode.Error) (spliced, *errcode.Error) { return spliced{}, b.unresolved(at, err) }
	var form SpliceForm
	if err := splicePlan.bindForm(e.ix, obj, &form); err != nil {
		return fail(err)
	}
	ref := Ref{Result: form.Result, SHA256: (*string)(form.SHA256)}
	if err := ref.check(); err != nil {
		return fail(err)
	}
	r, err := b.resolve(ref)
	if err != nil {
		return fail(err)
	}
	edits := form.Edits.Node
	n := e.ix.Len(edits)
	var done []spliceEdit
	for i, ed := range e.ix.Elements(edits) {
		s, err := e.edit(ed, body+"/edits/"+strconv.Itoa(i), r, i, i == n-1, done)
		if err != nil {
			return spliced{}, err
		}
		done = append(done, s)
	}
	return spliced{applyEdits(r, done), len(done), r}, nil
}

// editForms says what an edit is, for the messages of malformed ones.
const editForms = `{"lines": [first, last], "text"}, {"before": n, "text"} or {"after": n, "text"}, ` +
	`each position a line number or its anchor ("41#xy")`

// edit checks one edit and resolves its text; last says whether it is the
// splice's last edit, for the newline rule. Its members are bound as every
// object's are (its positions, line numbers or anchors, with them); then,
// in SPEC 5.2's order, where it goes (place), its order against the
// previous edit (checkOrder), and its text. Every failure is at at.
func (e *expander) edit(ed NodeID, at string, r *results.Result, i int, last bool, done []spliceEdit) (spliceEdit, *errcode.Error) {
	s, err := e.place(ed, r, i)
	if err == nil && len(done) > 0 {
		err = s.checkOrder(done[len(done)-1], i, r)
	}
	if err != nil {
		return s, e.b.unresolved(at, err)
	}
	if err := e.editText(&s, s.text, at); err != nil {
		return s, err
	}
	// The text's rules, in SPEC 5.2's order: its line endings first, so
	// that the others see the text as it will be written.
	if r.Text.CRLF {
		s.pieces = toCRLF(s.pieces)
	}
	err = s.checkEnd(int64(r.Text.Lines.Count()), last)
	if err == nil {
		err = s.checkLastLine(r, done)
	}
	if err == nil {
		err = s.checkCopied(r.Text)
	}
	if err != nil {
		return s, e.b.unresolved(at, err)
	}
	return s, nil
}

// place reads edit i's form and says where it goes in r: exactly one of
// lines, before and after; their range; with --steps model, no number
// that names a line; then each anchor's characters (SPEC 5.2).
func (e *expander) place(ed NodeID, r *results.Result, i int) (spliceEdit, *errcode.Error) {
	var s spliceEdit
	if e.ix.Kind(ed) != jsontape.Object {
		return s, errcode.New(errcode.InvalidArgument, "an edit must be an object, not %s: %s", given(e.ix, ed), editForms)
	}
	var form EditForm
	if err := editPlan.bindForm(e.ix, ed, &form); err != nil {
		return s, err
	}
	s.text = form.Text.Node
	var ps []Position // the positions, as sent
	kinds := 0
	if form.Lines != nil {
		ps, kinds = form.Lines[:], kinds+1
	}
	for _, p := range []*Position{form.Before, form.After} {
		if p != nil {
			ps, kinds = []Position{*p}, kinds+1
		}
	}
	if kinds != 1 {
		return s, errcode.New(errcode.InvalidArgument, "an edit has exactly one of lines, before and after (this one has %d): %s", kinds, editForms)
	}

	t := r.Text
	count := int64(t.Lines.Count())
	lines := func() errcode.Details { return errcode.Details{Lines: new(count)} } // for an error only
	names := func(p Position) bool { return p.n >= 1 && p.n <= count }            // a position that names a line
	p := ps[0]
	switch {
	case form.Lines != nil:
		if _, err := t.Lines.Range(ps[0].n, ps[1].n); err != nil {
			return s, err
		}
		s.from, s.to = ps[0].n, ps[1].n+1
	case form.Before != nil && (p.n < 1 || p.n > count+1):
		return s, errcode.New(errcode.InvalidRange, "edit %d inserts before line %d outside 1-%d (%d appends)", i, p.n, count+1, count+1).With(lines())
	case form.Before != nil && p.anchored && p.n == count+1:
		return s, errcode.New(errcode.InvalidRange,
			"edit %d inserts before %s, but %s has %d lines: an anchor names a line; to append, send before %d as a number",
			i, p, r.ID, count, count+1).With(lines())
	case form.Before != nil:
		s.from, s.to, s.insert = p.n, p.n, true
	case !names(p):
		return s, errcode.New(errcode.InvalidRange, "edit %d inserts after line %d outside 1-%d", i, p.n, count).With(lines())
	default:
		s.from, s.to, s.insert, s.after = p.n+1, p.n+1, true, true
	}
	if e.b.opts.Steps == limits.ModelSteps {
		if err := refuseNumbers(t, ps, names); err != nil {
			return s, err
		}
	}
	return s, checkAnchors(t, ps...)
}

// checkOrder checks edit i (s) against the edit before it, prev: edits
// come in file order and do not overlap, and two insertions before the
// same line overlap (SPEC 5.2).
func (s spliceEdit) checkOrder(prev spliceEdit, i int, r *results.Result) *errcode.Error {
	if prev.to <= s.from && !(prev.insert && s.insert && prev.from == s.from) {
		return nil
	}
	how := "overlaps"
	if s.from < prev.from {
		how = "comes before"
	}
	// The first line an edit after prev may start at: its end, and after
	// an insertion, another insertion only before a later line.
	next := prev.to
	if prev.insert && s.insert {
		next++
	}
	count := int64(r.Text.Lines.Count())
	return errcode.New(errcode.InvalidRange,
		"%s %s %s: edits must be in file order and must not overlap, so edit %d starts at line %d or later; "+
			"line numbers refer to %s as stored (%d lines)",
		s.describe(i), how, prev.describe(i-1), i, next, r.ID, count).With(errcode.Details{Lines: new(count)})
}

// toCRLF returns pieces with each '\n' that does not follow a '\r' taken
// as "\r\n" (SPEC 5.2's line endings, for a CRLF result). The pieces are
// judged as the one text they join into: a '\r' that ends one piece pairs
// with a '\n' that starts the next. A piece that needs no change is kept
// as it is (a slice of a stored result is never written to).
func toCRLF(pieces [][]byte) [][]byte {
	out := pieces
	copied := false
	afterCR := false // the text before the piece ends with '\r'
	for i, p := range pieces {
		bare := func(j int) bool { return p[j] == '\n' && !(j == 0 && afterCR || j > 0 && p[j-1] == '\r') }
		n := 0
		for j := range p {
			if bare(j) {
				n++
			}
		}
		if n > 0 {
			if !copied {
				out, copied = append([][]byte(nil), pieces...), true
			}
			q := make([]byte, 0, len(p)+n)
			for j, c := range p {
				if bare(j) {
					q = append(q, '\r')
				}
				q = append(q, c)
			}
			out[i] = q
		}
		if len(p) > 0 {
			afterCR = p[len(p)-1] == '\r'
		}
	}
	return out
}

// checkLastLine is the last-line rule of SPEC 5.2: on a result whose last
// line has no final newline, an insertion before line lines + 1 whose text
// is not empty and does not start with a newline would continue that line,
// unless an earlier edit of the splice replaces it. It runs after the
// newline rule.
func (s spliceEdit) checkLastLine(r *results.Result, done []spliceEdit) *errcode.Error {
	count := int64(r.Text.Lines.Count())
	if !s.insert || s.from != count+1 || r.Text.FinalNewline() {
		return nil
	}
	head := prefix(s.pieces, 2)
	if len(head) == 0 || head[0] == '\n' || string(head) == "\r\n" {
		return nil
	}
	for _, d := range done {
		if !d.insert && d.to == count+1 {
			return nil // the last line is replaced: the text follows what replaced it
		}
	}
	return errcode.New(errcode.InvalidArgument,
		`text would continue line %d, which has no final newline: start the text with "\n", or replace line %d`, count, count)
}

// checkCopied is the copied-anchor rule of SPEC 5.2 (rule 3): a text
// that begins with the anchor of the edit's own first line and ": " (for
// an insertion, the line it goes before), or with that line's number and
// ": ", the forms in which find and numbered get_lines show lines, fails.
func (s spliceEdit) checkCopied(t *results.Text) *errcode.Error {
	if s.from <= int64(t.Lines.Count()) {
		anchor := selectors.Anchor(int(s.from), t.Lines.LineAnchorChars(int(s.from))) + ": "
		if string(prefix(s.pieces, len(anchor))) == anchor {
			return errcode.New(errcode.InvalidArgument,
				"text begins with %q, a line's anchor as find and get_lines show it; send the line without it", anchor)
		}
	}
	number := strconv.FormatInt(s.from, 10) + ": "
	if string(prefix(s.pieces, len(number))) != number {
		return nil
	}
	return errcode.New(errcode.InvalidArgument,
		"text begins with %q, a line number as find and get_lines show it; send the line without it", number)
}

// prefix returns the first n bytes of the text that pieces join into (all
// of it when it is shorter), copied only when they span pieces.
func prefix(pieces [][]byte, n int) []byte {
	var out []byte
	for _, p := range pieces {
		if len(p) == 0 {
			continue
		}
		if out == nil && len(p) >= n {
			return p[:n]
		}
		out = append(out, p[:min(len(p), n-len(out))]...)
		if len(out) == n {
			break
		}
	}
	return out
}

// checkEnd is the newline rule of SPEC 5.2: a non-empty text must end with
// "\n" unless nothing can follow it (the last edit, reaching the end of
// the result); otherwise it would join the next line.
func (s spliceEdit) checkEnd(count int64, last bool) *errcode.Error {
	var tail []byte
	for _, p := range s.pieces {
		if len(p) > 0 {
			tail = p
		}
	}
	if tail == nil || tail[len(tail)-1] == '\n' {
		return nil
	}
	reachesEnd := s.to == count+1 // a replacement through the last line, or an insertion that appends
	if last && reachesEnd {
		return nil
	}
	// The first stored line after the edit, or count+1 for an edit at the
	// end that a later edit follows: s.to either way.
	return errcode.New(errcode.InvalidArgument, `text does not end with "\n": it would join line %d`, s.to)
}

// editText resolves an edit's text: a literal string, or a $compose node
// whose parts are under at/text/$compose.
func (e *expander) editText(s *spliceEdit, text NodeID, at string) *errcode.Error {
	b := e.b
	switch e.ix.Kind(text) {
	case jsontape.String:
		lit, err := e.literal(text)
		if err != nil {
			return b.unresolved(at, err) // literal text is the edit's own, not a part
		}
		s.pieces = [][]byte{lit}
		return nil
	case jsontape.Object:
		if reserved(e.ix, text) {
			break
		}
		fallthrough
	default:
		return b.unresolved(at, errcode.New(errcode.InvalidArgument,
			`an edit's text is a string or a {"%s": [part, ...]} node, not %s`, composeKey, e.ix.Kind(text)))
	}
	// A reserved object: a $compose node, or a malformed one, which fails
	// at its own pointer (SPEC 5.1).
	key, arr, ok := e.onlyMember(text)
	if !ok || key != composeKey || e.ix.Kind(arr) != jsontape.Array {
		return b.unresolved(at+"/text", errcode.New(errcode.InvalidArgument,
			`an edit's text is a string or exactly {"%s": [part, ...]}`, composeKey))
	}
	pieces, _, err := e.compose(arr, at+"/text/"+composeKey)
	s.pieces = pieces
	return err
}

// applyEdits returns the pieces of r's text with the edits applied, the
// unchanged text between them as slices of r.
func applyEdits(r *results.Result, edits []spliceEdit) [][]byte {
	data, lines := r.Text.Data, r.Text.Lines
	pieces := make([][]byte, 0, 2*len(edits)+1)
	pos := 0
	for _, s := range edits {
		start := lines.Start(int(s.from))
		pieces = append(pieces, data[pos:start])
		pieces = append(pieces, s.pieces...)
		pos = lines.Start(int(s.to))
	}
	return append(pieces, data[pos:])
}
