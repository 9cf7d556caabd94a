package briefing

import (
	"strconv"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/jsontape"
	"github.com/loom-results/loom-results/results"
)

// spliceEdit is one edit of a $splice after its checks: the stored lines it
// replaces, [from, to) in line-boundary numbers (boundary k lies before
// line k), and its text. An insertion before line n has from = to = n.
type spliceEdit struct {
	from, to int64
	insert   bool
	pieces   [][]byte
}

// describe names an edit for messages: "edit 2 (lines 5-7)".
func (s spliceEdit) describe(i int) string {
	if s.insert {
		return "edit " + strconv.Itoa(i) + " (before line " + strconv.FormatInt(s.from, 10) + ")"
	}
	return "edit " + strconv.Itoa(i) + " (lines " + strconv.FormatInt(s.from, 10) + "-" + strconv.FormatInt(s.to-1, 10) + ")"
}

// splice resolves {"result", "sha256"?, "edits": [...]} (SPEC 5.2): the
// stored text with the edits applied. It resolves its reference, then each
// edit's form, line numbers, order against the previous edit, then text.
func (e *expander) splice(obj NodeID, at string) ([][]byte, int, *errcode.Error) {
	b := e.b
	var ref Ref
	var edits NodeID
	hasResult, hasEdits := false, false
	seen := map[string]bool{}
	for m, v := range e.ix.Members(obj) {
		if seen[m.Name] {
			return nil, 0, b.unresolved(at, errcode.New(errcode.InvalidArgument, "splice member %q is given twice", m.Name))
		}
		seen[m.Name] = true
		var err *errcode.Error
		switch m.Name {
		case "result":
			ref.Result, err = e.str(v, m.Name)
			hasResult = true
		case "sha256":
			if e.ix.Kind(v) != jsontape.Null {
				var s string
				s, err = e.str(v, m.Name)
				ref.SHA256 = &s
			}
		case "edits":
			if e.ix.Kind(v) != jsontape.Array {
				err = errcode.New(errcode.InvalidArgument, "edits must be an array of edits")
			}
			edits, hasEdits = v, true
		default:
			err = errcode.New(errcode.InvalidArgument, "unknown splice member %q; a splice has result, sha256 and edits", m.Name)
		}
		if err != nil {
			return nil, 0, b.unresolved(at, err)
		}
	}
	switch {
	case !hasResult:
		return nil, 0, b.unresolved(at, errcode.New(errcode.InvalidArgument, "a splice needs result"))
	case !hasEdits:
		return nil, 0, b.unresolved(at, errcode.New(errcode.InvalidArgument, "a splice needs edits"))
	}
	if err := ref.Check(); err != nil {
		return nil, 0, b.unresolved(at, err)
	}
	r, err := b.resolve(ref)
	if err != nil {
		return nil, 0, b.unresolved(at, err)
	}
	var done []spliceEdit
	for i, ed := range e.ix.Elements(edits) {
		editAt := at + "/" + spliceKey + "/edits/" + strconv.Itoa(i)
		s, err := e.edit(ed, editAt, r, i, done)
		if err != nil {
			return nil, 0, err
		}
		done = append(done, s)
	}
	return applyEdits(r, done), len(done), nil
}

// edit checks one edit and resolves its text.
func (e *expander) edit(ed NodeID, at string, r *results.Result, i int, done []spliceEdit) (spliceEdit, *errcode.Error) {
	b := e.b
	form := func() *errcode.Error {
		return b.unresolved(at, errcode.New(errcode.InvalidArgument,
			`an edit is {"lines": [first, last], "text"} or {"before": n, "text"}`))
	}
	if e.ix.Kind(ed) != jsontape.Object {
		return spliceEdit{}, form()
	}
	var s spliceEdit
	var text NodeID
	hasLines, hasBefore, hasText := false, false, false
	for m, v := range e.ix.Members(ed) {
		switch {
		case m.Name == "lines" && !hasLines:
			l, err := e.ints(v, "lines", 2, 2)
			if err != nil {
				return s, form()
			}
			s.from, s.to, hasLines = l[0], l[1]+1, true
		case m.Name == "before" && !hasBefore:
			n, ok := e.integer(v)
			if !ok {
				return s, form()
			}
			s.from, s.to, s.insert, hasBefore = n, n, true, true
		case m.Name == "text" && !hasText:
			// Its kind is checked with the text, after the line numbers
			// and the order (SPEC 5.2).
			text, hasText = v, true
		default:
			return s, form()
		}
	}
	if hasLines == hasBefore || !hasText {
		return s, form()
	}

	count := int64(r.Text.Lines.Count())
	if s.insert {
		if s.from < 1 || s.from > count+1 {
			return s, b.unresolved(at, errcode.New(errcode.InvalidRange,
				"edit %d inserts before line %d outside 1-%d (%d appends)", i, s.from, count+1, count+1).With("lines", count))
		}
	} else if _, err := r.Text.Lines.Range(s.from, s.to-1); err != nil {
		return s, b.unresolved(at, err)
	}

	if len(done) > 0 {
		prev := done[len(done)-1]
		if prev.to > s.from || prev.insert && s.insert && prev.from == s.from {
			how := "overlaps"
			if s.from < prev.from {
				how = "comes before"
			}
			return s, b.unresolved(at, errcode.New(errcode.InvalidRange,
				"%s %s %s: edits must be in file order and must not overlap; line numbers refer to %s as stored",
				s.describe(i), how, prev.describe(i-1), r.ID).With("lines", count))
		}
	}

	switch e.ix.Kind(text) {
	case jsontape.String:
		lit, err := e.literal(text)
		if err != nil {
			return s, b.unresolved(at, err) // literal text is the edit's own, not a part
		}
		s.pieces = [][]byte{lit}
		return s, nil
	case jsontape.Object:
		if reserved(e.ix, text) {
			break
		}
		fallthrough
	default:
		return s, b.unresolved(at, errcode.New(errcode.InvalidArgument,
			`an edit's text is a string or a {"%s": [part, ...]} node, not %s`, composeKey, e.ix.Kind(text)))
	}
	// A reserved object: a $compose node, or a malformed one, which fails
	// at its own pointer (SPEC 5.1).
	key, arr, ok := e.onlyMember(text)
	if !ok || key != composeKey || e.ix.Kind(arr) != jsontape.Array {
		return s, b.unresolved(at+"/text", errcode.New(errcode.InvalidArgument,
			`an edit's text is a string or exactly {"%s": [part, ...]}`, composeKey))
	}
	pieces, _, err := e.compose(arr, at+"/text")
	s.pieces = pieces
	return s, err
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
