package briefing

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// Selection is the answer of a selection lookup (SPEC section 5): the
// selected text and what it cost.
type Selection struct {
	// Result is the ID of the result selected from; nil for a file read
	// by path that the store had no room for (legacy context).
	Result       *string         `json:"result"`
	SHA256       string          `json:"sha256"`
	Selection    Selector        `json:"selection"`
	Type         string          `json:"type,omitempty"` // get_json only
	Text         string          `json:"text"`
	Bytes        int64           `json:"bytes"`
	EscapedBytes int64           `json:"escaped_bytes"`
	Budget       limits.Snapshot `json:"budget"`
	// Quoted is Text as the answer's JSON string literal (json.Marshal's
	// bytes), escaped in the pass that measured EscapedBytes, so that the
	// answer copies it instead of escaping the text again.
	Quoted []byte `json:"-"`
}

// AppendJSON appends the selection's JSON form as json.Marshal writes it
// (its text copied from Quoted when that is set), except that a lone
// surrogate kept in its 3-byte form is written back as its escape
// (limits.AppendJSONString). A nil Selection is null.
func (s *Selection) AppendJSON(dst []byte) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"result":`...)
	if s.Result == nil {
		dst = append(dst, "null"...)
	} else {
		dst = limits.AppendJSONString(dst, *s.Result, true)
	}
	dst = append(dst, `,"sha256":`...)
	dst = limits.AppendJSONString(dst, s.SHA256, true)
	dst = append(dst, `,"selection":`...)
	if s.Selection == nil {
		dst = append(dst, "null"...)
	} else {
		dst = s.Selection.AppendJSON(dst)
	}
	if s.Type != "" {
		dst = append(dst, `,"type":`...)
		dst = limits.AppendJSONString(dst, s.Type, true)
	}
	dst = append(dst, `,"text":`...)
	if s.Quoted != nil {
		dst = append(dst, s.Quoted...)
	} else {
		dst = limits.AppendJSONString(dst, s.Text, true)
	}
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, s.Bytes, 10)
	dst = append(dst, `,"escaped_bytes":`...)
	dst = strconv.AppendInt(dst, s.EscapedBytes, 10)
	dst = append(dst, `,"budget":`...)
	dst = s.Budget.AppendJSON(dst)
	return append(dst, '}')
}

// TextContent is the selected text, the answer's text content.
func (s *Selection) TextContent() string { return s.Text }

// QuotedText returns the selected text and its JSON string literal (nil
// when it was not made), for an encoder that writes the text twice: as
// the answer's text content and as this "text".
func (s *Selection) QuotedText() (text string, quoted []byte) {
	if s == nil {
		return "", nil
	}
	return s.Text, s.Quoted
}

// Selector is a Selection's "selection", what the lookup selected by:
// a ByteSelection, LineSelection or PointerSelection. It encodes itself
// as json.Marshal would.
type Selector interface {
	AppendJSON(dst []byte) []byte
}

// ByteSelection is the "selection" of get_range.
type ByteSelection struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// LineSelection is the "selection" of get_lines; Numbered is shown only
// when set (SPEC section 5).
type LineSelection struct {
	First    int64 `json:"first"`
	Last     int64 `json:"last"`
	Numbered bool  `json:"numbered,omitempty"`
}

// PointerSelection is the "selection" of get_json.
type PointerSelection struct {
	Pointer string `json:"pointer"`
	As      string `json:"as"`
}

// AppendJSON appends {"start", "end"}.
func (s ByteSelection) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"start":`...)
	dst = strconv.AppendInt(dst, s.Start, 10)
	dst = append(dst, `,"end":`...)
	dst = strconv.AppendInt(dst, s.End, 10)
	return append(dst, '}')
}

// AppendJSON appends {"first", "last", "numbered"?}.
func (s LineSelection) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"first":`...)
	dst = strconv.AppendInt(dst, s.First, 10)
	dst = append(dst, `,"last":`...)
	dst = strconv.AppendInt(dst, s.Last, 10)
	if s.Numbered {
		dst = append(dst, `,"numbered":true`...)
	}
	return append(dst, '}')
}

// AppendJSON appends {"pointer", "as"}, the pointer's lone surrogates
// written back as their escapes (limits.AppendJSONString).
func (s PointerSelection) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"pointer":`...)
	dst = limits.AppendJSONString(dst, s.Pointer, true)
	dst = append(dst, `,"as":`...)
	dst = limits.AppendJSONString(dst, s.As, true)
	return append(dst, '}')
}

// The values of get_json's "as".
const (
	AsLexeme = "lexeme"
	AsString = "string"
)

// getRange selects the bytes [start, end) of a result; nil offsets are 0
// and the size (SPEC 4.1).
func (b *Briefing) getRange(ref Ref, start, end *int64) (*Selection, *errcode.Error) {
	r, err := b.target(ref)
	if err != nil {
		return nil, err
	}
	s, e := int64(0), int64(len(r.Text.Data))
	if start != nil {
		s = *start
	}
	if end != nil {
		e = *end
	}
	span, err := selectors.ByteRange(r.Text.Data, s, e)
	if err != nil {
		return nil, err
	}
	sized := r.sized("bytes "+strconv.FormatInt(s, 10)+"-"+strconv.FormatInt(e, 10), true, rangeFit(r.Text.Data, span.Start, span.End))
	return b.chargeSelection(r, ByteSelection{s, e}, "", r.Text.Data[span.Start:span.End], sized)
}

// getLines selects the inclusive lines first..last; a nil last is the last
// line (SPEC 4.2). With numbered, each line is prefixed by its anchor and
// ": " (SPEC 4.4), as find shows lines, and that text is the lookup's (SPEC
// section 5).
func (b *Briefing) getLines(ref Ref, first int64, last *int64, numbered bool) (*Selection, *errcode.Error) {
	r, err := b.target(ref)
	if err != nil {
		return nil, err
	}
	l := int64(r.Text.Lines.Count())
	if last != nil {
		l = *last
	}
	span, err := r.Text.Lines.Range(first, l)
	if err != nil {
		return nil, err
	}
	text := r.Text.Data[span.Start:span.End]
	sel := LineSelection{first, l, numbered}
	noun, plural := linesNoun(first, l, numbered)
	sized := r.sized(noun, plural, linesFit(r.Text.Data, r.Text.Lines, first, l, numbered))
	if !numbered {
		return b.chargeSelection(r, sel, "", text, sized)
	}
	// Its size is known before it is built (the anchors and ": " are
	// never escaped): a selection over the lookup cap is refused unbuilt;
	// one within it is built, then escaped for the answer and measured in
	// one pass, as answer does. The header's quotes are the text's.
	size := int64(len(r.head)) + int64(len(text)) + anchorWidths(first, l)
	if size > b.opts.Limits.MaxLookupBytes {
		return nil, b.budget.ChargeSelected(sized, size, 0) // lookup_too_large
	}
	// Built in a strings.Builder of its exact size: the text is not
	// copied again to become a string.
	var out strings.Builder
	out.Grow(int(size))
	out.WriteString(r.head)
	data := r.Text.Data
	start := span.Start
	var anchor [32]byte
	for n := first; n <= l; n++ {
		// Each line's end from the text itself: the lines are contiguous,
		// and the last ends the span.
		end := span.End
		if i := bytes.IndexByte(data[start:span.End], '\n'); i >= 0 {
			end = start + i + 1
		}
		out.Write(selectors.AppendAnchor(anchor[:0], int(n), selectors.AnchorChars(selectors.TrimEnding(data[start:end]))))
		out.WriteString(": ")
		out.Write(data[start:end])
		start = end
	}
	numberedText := out.String()
	quoted, escaped := limits.AppendMeasured(make([]byte, 0, size+size/8+2), numberedText)
	if err := b.budget.ChargeSelected(sized, size, escaped); err != nil {
		return nil, err
	}
	return b.selection(r, sel, "", numberedText, quoted, size, escaped), nil
}

// anchorWidths returns the bytes of the prefixes "N#xy: " of every line in
// first..last (first >= 1): the digits of every number, and five more a
// line.
func anchorWidths(first, last int64) int64 {
	return numberWidths(first, last) + int64(anchorExtra)*(last-first+1)
}

// anchorExtra is what a numbered line's prefix holds beyond its number:
// "#", the two characters and ": ".
const anchorExtra = 5

// numberWidths returns the decimal digits of every number in first..last
// (first >= 1), counted a power of ten at a time.
func numberWidths(first, last int64) int64 {
	var total int64
	for width, lo := int64(1), int64(1); lo <= last; width, lo = width+1, lo*10 {
		hi := lo*10 - 1
		if a, z := max(first, lo), min(last, hi); a <= z {
			total += width * (z - a + 1)
		}
		if lo > last/10 {
			break
		}
	}
	return total
}

// checkAs validates get_json's "as" (an argument check).
func checkAs(as string) *errcode.Error {
	if as != AsLexeme && as != AsString {
		return errcode.New(errcode.InvalidArgument, "as %q is not %q or %q", as, AsLexeme, AsString)
	}
	return nil
}

// getJSON selects the value at pointer, as its lexeme or its decoded string
// (SPEC 4.3). The pointer's syntax is checked before the result's JSON.
func (b *Briefing) getJSON(ref Ref, pointer, as string) (*Selection, *errcode.Error) {
	r, err := b.target(ref)
	if err != nil {
		return nil, err
	}
	ptr, v, text, err := selectJSON(r, pointer, as)
	if err != nil {
		return nil, err
	}
	return b.chargeSelection(r, PointerSelection{ptr.String(), as}, string(v.Type), text, r.sized("the value at "+quoted(ptr.String()), false, nil))
}

// selectJSON resolves pointer in r and returns the selected value and its
// text: the lexeme's bytes, or the decoded string.
func selectJSON(r *target, pointer, as string) (selectors.Pointer, jsontape.Value, []byte, *errcode.Error) {
	ptr, err := selectors.ParsePointer(pointer)
	if err != nil {
		return ptr, jsontape.Value{}, nil, err
	}
	ix, err := r.json()
	if err != nil {
		return ptr, jsontape.Value{}, nil, err
	}
	v, err := selectors.Lookup(ix, ptr)
	if err != nil {
		return ptr, v, nil, err
	}
	if as == AsString {
		s, err := jsontape.DecodeString(r.Text.Data, v)
		return ptr, v, []byte(s), err
	}
	return ptr, v, r.Text.Data[v.Start:v.End], nil
}

// chargeSelection charges the lookup's text, r's header then the selection, to the
// step and wraps it as a Selection; sized describes it for a size error. A
// text over --max-lookup-bytes is refused by its size, before it is
// copied; one within it is escaped for the answer and measured in one
// pass.
func (b *Briefing) chargeSelection(r *target, sel Selector, typ string, text []byte, sized limits.Selected) (*Selection, *errcode.Error) {
	size := int64(len(r.head)) + int64(len(text))
	if size > b.opts.Limits.MaxLookupBytes {
		return nil, b.budget.ChargeSelected(sized, size, 0) // lookup_too_large
	}
	s := string(text)
	if r.head != "" {
		s = r.head + s
	}
	quoted, escaped := limits.AppendMeasured(make([]byte, 0, size+size/8+2), s)
	if err := b.budget.ChargeSelected(sized, size, escaped); err != nil {
		return nil, err
	}
	return b.selection(r, sel, typ, s, quoted, size, escaped), nil
}

// selection wraps a charged text as a Selection.
func (b *Briefing) selection(r *target, sel Selector, typ, text string, quoted []byte, size, escaped int64) *Selection {
	return &Selection{
		Result: r.id, SHA256: r.Text.Hex(), Selection: sel, Type: typ,
		Text: text, Bytes: size, EscapedBytes: escaped, Budget: b.budget.Snapshot(), Quoted: quoted,
	}
}

// target is what a selection lookup selects from: a retained result named
// by its ID, or a file named by path, retained as inspect retains it.
type target struct {
	Text   *results.Text
	id     *string         // nil: a file the store had no room for
	result *results.Result // nil when id is
	head   string          // by path: the result's header line, first in the text
}

// target resolves ref: a result (unknown_result, digest_mismatch), or a
// file by path, with inspect's errors for it (a directory is
// not_regular_file) and, in bounded context, store_full when the store
// has no room for it (SPEC section 4's order).
func (b *Briefing) target(ref Ref) (*target, *errcode.Error) {
	if ref.Path == nil {
		r, err := b.resolve(ref)
		if err != nil {
			return nil, err
		}
		return &target{Text: r.Text, id: &r.ID, result: r}, nil
	}
	d, r, t, err := b.holdFile(*ref.Path)
	if err != nil {
		return nil, err
	}
	tg := &target{Text: t, result: r}
	if r != nil {
		tg.id = &r.ID
	}
	if b.opts.Header != nil {
		// Without ", reused", so that a repeated lookup measures the same.
		d.Reused = nil
		tg.head = b.opts.Header(d)
	}
	return tg, nil
}

// json is the target's JSON index, or the invalid_json error that says
// where it stops being JSON.
func (t *target) json() (*jsontape.Index, *errcode.Error) {
	if t.result != nil {
		return t.result.JSON()
	}
	if t.Text.Index != nil {
		return t.Text.Index, nil
	}
	return jsontape.Build(t.Text.Data, jsontape.Options{})
}

// findSized describes find's text for its size errors: only the step's
// bytes left can refuse it (its matches stop at the lookup cap).
var findSized = limits.Selected{What: "the matches are", Less: "lower max_matches"}

// FindQuery is the arguments of find after their checks.
type FindQuery struct {
	Matcher    selectors.Matcher
	MaxMatches int
}

// The range and default of find's max_matches (SPEC 5.3).
const (
	DefaultMaxMatches = 20
	MaxMaxMatches     = 100
)

// Found is the answer of find.
type Found struct {
	Result       string            `json:"result"`
	SHA256       string            `json:"sha256"`
	Matches      []selectors.Match `json:"matches"`
	Total        int               `json:"total"`
	Truncated    bool              `json:"truncated"`
	Bytes        int64             `json:"bytes"`
	EscapedBytes int64             `json:"escaped_bytes"`
	Budget       limits.Snapshot   `json:"budget"`
	Text         string            `json:"-"`
}

// TextContent is the matches' text, the answer's text content.
func (f *Found) TextContent() string { return f.Text }

// find returns the lines of a result that match (SPEC 5.3).
func (b *Briefing) find(ref Ref, q FindQuery) (*Found, *errcode.Error) {
	r, err := b.resolve(ref)
	if err != nil {
		return nil, err
	}
	f, err := selectors.Find(r.Text.Data, r.Text.Lines, q.Matcher, q.MaxMatches, b.opts.Limits.MaxLookupBytes)
	if err != nil {
		return nil, err
	}
	if f.Total == 0 {
		f.Text = noMatch(r.ID, b.opts.Limits.MaxLookupBytes)
	}
	size, escaped := int64(len(f.Text)), limits.EscapedSize(f.Text)
	if err := b.budget.ChargeSelected(findSized, size, escaped); err != nil {
		return nil, err
	}
	if f.Matches == nil {
		f.Matches = []selectors.Match{}
	}
	return &Found{
		Result: r.ID, SHA256: r.Text.Hex(), Matches: f.Matches, Total: f.Total, Truncated: f.Truncated,
		Bytes: size, EscapedBytes: escaped, Budget: b.budget.Snapshot(), Text: f.Text,
	}, nil
}
