package briefing

import (
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// Selection is the answer of a selection lookup (SPEC section 5): the
// selected text and what it cost.
type Selection struct {
	Result       string          `json:"result"`
	SHA256       string          `json:"sha256"`
	Selection    any             `json:"selection"`
	Type         string          `json:"type,omitempty"` // get_json only
	Text         string          `json:"text"`
	Bytes        int64           `json:"bytes"`
	EscapedBytes int64           `json:"escaped_bytes"`
	Budget       limits.Snapshot `json:"budget"`
}

// ByteSelection is the "selection" of get_range.
type ByteSelection struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// LineSelection is the "selection" of get_lines.
type LineSelection struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

// PointerSelection is the "selection" of get_json.
type PointerSelection struct {
	Pointer string `json:"pointer"`
	As      string `json:"as"`
}

// The values of get_json's "as".
const (
	AsLexeme = "lexeme"
	AsString = "string"
)

// GetRange selects the bytes [start, end) of a result; nil offsets are 0
// and the size (SPEC 4.1).
func (b *Briefing) GetRange(ref Ref, start, end *int64) (*Selection, *errcode.Error) {
	r, err := b.resolve(ref)
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
	return b.answer(r, ByteSelection{s, e}, "", r.Text.Data[span.Start:span.End])
}

// GetLines selects the inclusive lines first..last; a nil last is the last
// line (SPEC 4.2).
func (b *Briefing) GetLines(ref Ref, first int64, last *int64) (*Selection, *errcode.Error) {
	r, err := b.resolve(ref)
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
	return b.answer(r, LineSelection{first, l}, "", r.Text.Data[span.Start:span.End])
}

// CheckAs validates get_json's "as" (an argument check).
func CheckAs(as string) *errcode.Error {
	if as != AsLexeme && as != AsString {
		return errcode.New(errcode.InvalidArgument, "as %q is not %q or %q", as, AsLexeme, AsString)
	}
	return nil
}

// GetJSON selects the value at pointer, as its lexeme or its decoded string
// (SPEC 4.3). The pointer's syntax is checked before the result's JSON.
func (b *Briefing) GetJSON(ref Ref, pointer, as string) (*Selection, *errcode.Error) {
	r, err := b.resolve(ref)
	if err != nil {
		return nil, err
	}
	ptr, v, text, err := selectJSON(r, pointer, as)
	if err != nil {
		return nil, err
	}
	return b.answer(r, PointerSelection{ptr.String(), as}, string(v.Type), text)
}

// selectJSON resolves pointer in r and returns the selected value and its
// text: the lexeme's bytes, or the decoded string.
func selectJSON(r *results.Result, pointer, as string) (selectors.Pointer, jsontape.Value, []byte, *errcode.Error) {
	ptr, err := selectors.ParsePointer(pointer)
	if err != nil {
		return ptr, jsontape.Value{}, nil, err
	}
	ix, err := r.JSON()
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

// answer charges text to the step and wraps it as a Selection.
func (b *Briefing) answer(r *results.Result, sel any, typ string, text []byte) (*Selection, *errcode.Error) {
	// Measure before copying: a selection over the caps is never copied.
	size, escaped, err := b.budget.Charge(text)
	if err != nil {
		return nil, err
	}
	return &Selection{
		Result: r.ID, SHA256: r.Text.Hex(), Selection: sel, Type: typ,
		Text: string(text), Bytes: size, EscapedBytes: escaped, Budget: b.budget.Snapshot(),
	}, nil
}

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

// Find returns the lines of a result that match (SPEC 5.3).
func (b *Briefing) Find(ref Ref, q FindQuery) (*Found, *errcode.Error) {
	r, err := b.resolve(ref)
	if err != nil {
		return nil, err
	}
	f := selectors.Find(r.Text.Data, r.Text.Lines, q.Matcher, q.MaxMatches, b.opts.Limits.MaxLookupBytes)
	size, escaped, err := b.budget.Charge([]byte(f.Text))
	if err != nil {
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
