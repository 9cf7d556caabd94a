package briefing

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/hugepage"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// Expansion is one replaced node of expand_edit (SPEC 5.1).
type Expansion struct {
	At     string  `json:"at"`
	Bytes  int64   `json:"bytes"`
	SHA256 string  `json:"sha256"`
	Parts  int     `json:"parts"`
	Result *string `json:"result"`
}

// AppendJSON appends the expansion's JSON form as json.Marshal writes it,
// except that a lone surrogate kept in its 3-byte form (an at that a
// client sent with a lone surrogate escape) is written back as its escape
// (limits.AppendJSONString).
func (x *Expansion) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"at":`...)
	dst = limits.AppendJSONString(dst, x.At, true)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, x.Bytes, 10)
	dst = append(dst, `,"sha256":`...)
	dst = limits.AppendJSONString(dst, x.SHA256, true)
	dst = append(dst, `,"parts":`...)
	dst = strconv.AppendInt(dst, int64(x.Parts), 10)
	dst = append(dst, `,"result":`...)
	if x.Result == nil {
		dst = append(dst, "null"...)
	} else {
		dst = limits.AppendJSONString(dst, *x.Result, true)
	}
	return append(dst, '}')
}

// Expanded is the answer of expand_edit.
type Expanded struct {
	Arguments  json.RawMessage `json:"arguments"`
	Expansions []Expansion     `json:"expansions"`
	Budget     limits.Snapshot `json:"budget"`
	Text       string          `json:"-"`
}

// TextContent is a line per expansion, the answer's text content.
func (x *Expanded) TextContent() string { return x.Text }

// The reserved members of SPEC 5.1 and 5.2.
const (
	composeKey = "$compose"
	spliceKey  = "$splice"
)

// node is one $compose or $splice node of the arguments, resolved to the
// pieces that its text concatenates: slices of stored results and literal
// text, not yet copied.
type node struct {
	at     string
	span   selectors.Span // the node's object in the arguments
	pieces [][]byte
	size   int64
	parts  int
}

// checkEditArguments checks expand_edit's arguments (SPEC 5.1), an
// object (the binder's check): no raw invalid UTF-8 outside its nodes,
// which makes the arguments themselves malformed: an argument check, which
// comes before any node resolves (SPEC section 4's order) and so refuses
// nothing.
func checkEditArguments(args jsontape.Sub) *errcode.Error {
	return newExpander(nil, args).walk(args.Node, false)
}

// expandEdit resolves every $compose and $splice node of args (SPEC 5.1,
// 5.2), once they are checked (checkEditArguments), and returns the
// arguments with each node replaced by its text. It is all or nothing:
// the first node or part that does not resolve fails the call with
// unresolved_edit and refuses the step. Each expansion is retained as a
// result of source kind edit.
//
// args is a value of an index already built (the tool call's message's,
// with raw invalid UTF-8 allowed), read where it is: an edit's arguments
// may be megabytes, and are never scanned again.
func (b *Briefing) expandEdit(args jsontape.Sub) (*Expanded, *errcode.Error) {
	ix, root := args.Index, args.Node
	e := newExpander(b, args)
	var err *errcode.Error
	if reserved(ix, root) {
		err = b.unresolved("", errcode.New(errcode.InvalidArgument,
			"arguments itself cannot be a %s or %s node; put the node under a member such as content", composeKey, spliceKey))
	} else {
		err = e.walk(root, true)
	}
	if err != nil {
		if err.Code == errcode.UnresolvedEdit {
			b.budget.Refuse()
		}
		return nil, err
	}
	var total int64
	for _, n := range e.nodes {
		total += n.size
	}
	if total > b.budget.ExpandLeft() {
		return nil, b.budget.ChargeExpand(total)
	}
	texts := make([]*results.Text, len(e.nodes))
	for i, n := range e.nodes {
		out := make([]byte, 0, n.size)
		hugepage.Advise(out[:n.size])
		for _, p := range n.pieces {
			out = append(out, p...)
		}
		t, err := results.Analyze(out)
		if err != nil {
			return nil, err // parts are valid UTF-8 and end on boundaries, so this does not happen
		}
		texts[i] = t
	}
	path := e.path(texts)
	items := make([]results.Item, len(e.nodes))
	for i, n := range e.nodes {
		at := n.at
		items[i] = results.Item{Text: texts[i], Complete: true, Source: results.Source{Kind: results.KindEdit, At: &at, Path: path}}
	}
	got, ok := b.store.RetainAll(items, b.opts.Policy == Bounded)
	if !ok {
		return nil, storeFull(total, b.store)
	}
	if err := b.budget.ChargeExpand(total); err != nil {
		return nil, err
	}
	ans := &Expanded{Arguments: e.expandedArguments(texts), Expansions: make([]Expansion, len(e.nodes))}
	var text strings.Builder
	for i, n := range e.nodes {
		x := Expansion{At: n.at, Bytes: n.size, SHA256: texts[i].Hex(), Parts: n.parts}
		id := "null"
		if got[i].Result != nil {
			x.Result = &got[i].Result.ID
			id = got[i].Result.ID
		}
		ans.Expansions[i] = x
		// A pointer holding a control character is quoted: no member name
		// ends the line.
		text.WriteString(results.TextName(n.at) + ": " + strconv.FormatInt(n.size, 10) + " bytes sha256=" + x.SHA256[:12] + " result=" + id + "\n")
	}
	ans.Text = text.String()
	ans.Budget = b.budget.Snapshot()
	return ans, nil
}

// unresolved is the error of a part that does not resolve. It refuses the
// step (the caller refuses it); with --steps model the message says so and
// what to do next (SPEC section 9).
func (b *Briefing) unresolved(at string, cause *errcode.Error) *errcode.Error {
	msg := "edit part at %s does not resolve: %s"
	if b.opts.Steps == limits.ModelSteps {
		msg += "; the step is now refused: call begin_step to start a new step, then send the corrected edit"
	}
	return errcode.New(errcode.UnresolvedEdit, msg, quoted(at), cause.Text()).With(errcode.Details{At: &at, Cause: cause})
}

// reserved reports whether object n has a $compose or $splice member.
func reserved(ix *jsontape.Index, n NodeID) bool {
	for m := range ix.Members(n) {
		if m.Name == composeKey || m.Name == spliceKey {
			return true
		}
	}
	return false
}

// NodeID is a value of the arguments' JSON index.
type NodeID = jsontape.Node

type expander struct {
	b     *Briefing
	ix    *jsontape.Index
	root  NodeID
	data  []byte // the root's bytes
	base  int    // the root's offset in the index's document, where spans count from
	at    []byte // the pointer of the value walk visits
	nodes []node
}

// newExpander returns the expander of the value args.
func newExpander(b *Briefing, args jsontape.Sub) *expander {
	start, _ := args.Index.Span(args.Node)
	return &expander{b: b, ix: args.Index, root: args.Node, data: args.Bytes(), base: start}
}

// walk visits value n, whose pointer is e.at, in document order. With
// resolve, it resolves the nodes it meets; without, it skips them and
// checks that the strings and member names outside them are valid UTF-8
// (raw bytes; a lone surrogate escape is returned unchanged).
//
// The pointer is built in one buffer, e.at, each level appending its
// token and cutting it off again, and made a string only for a node or an
// error: a string per value cost time and garbage in proportion to the
// values times their depth (a 2 MiB array nested 900 deep took 9 s). The
// buffer is the expander's, so that it grows once to the deepest pointer:
// a slice passed down by value grew again under every value whose
// pointer passed its capacity (64 MB of garbage for a 4 MiB array).
func (e *expander) walk(n NodeID, resolve bool) *errcode.Error {
	ix := e.ix
	mark := len(e.at)
	defer func() { e.at = e.at[:mark] }()
	switch ix.Kind(n) {
	case jsontape.String:
		if !resolve && ix.InvalidUTF8(n) {
			return errcode.New(errcode.InvalidArgument, "the string at %s in arguments is not valid UTF-8", quoted(string(e.at)))
		}
	case jsontape.Array:
		for i, v := range ix.Elements(n) {
			e.at = strconv.AppendInt(append(e.at[:mark], '/'), int64(i), 10)
			if err := e.walk(v, resolve); err != nil {
				return err
			}
		}
	case jsontape.Object:
		if reserved(ix, n) {
			if !resolve {
				return nil
			}
			return e.node(n, string(e.at))
		}
		for m, v := range ix.Members(n) {
			if !resolve && m.InvalidUTF8 {
				return errcode.New(errcode.InvalidArgument, "a member name in %s in arguments is not valid UTF-8", quoted(string(e.at[:mark])))
			}
			e.at = append(append(e.at[:mark], '/'), escapeToken(m.Name)...)
			if err := e.walk(v, resolve); err != nil {
				return err
			}
		}
	}
	return nil
}

// escapeToken escapes a member name as an RFC 6901 reference token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// node resolves the reserved object n: exactly {"$compose": [...]} or
// {"$splice": {...}}; anything else with those members is malformed.
func (e *expander) node(n NodeID, at string) *errcode.Error {
	key, val, ok := e.onlyMember(n)
	start, end := e.ix.Span(n)
	nd := node{at: at, span: selectors.Span{Start: start, End: end}}
	var err *errcode.Error
	switch {
	case ok && key == composeKey && e.ix.Kind(val) == jsontape.Array:
		nd.pieces, nd.parts, err = e.compose(val, at+"/"+composeKey)
	case ok && key == spliceKey && e.ix.Kind(val) == jsontape.Object:
		var sp spliced
		sp, err = e.splice(val, at, at+"/"+spliceKey)
		nd.pieces, nd.parts = sp.pieces, sp.parts
	default:
		return e.b.unresolved(at, errcode.New(errcode.InvalidArgument,
			`%s and %s are reserved: a node is exactly {"%s": [part, ...]} or {"%s": {"result", "edits"}}`,
			composeKey, spliceKey, composeKey, spliceKey))
	}
	if err != nil {
		return err
	}
	for _, p := range nd.pieces {
		nd.size += int64(len(p))
	}
	e.nodes = append(e.nodes, nd)
	return nil
}

// onlyMember returns the name and value of object n when it has exactly one
// member.
func (e *expander) onlyMember(n NodeID) (string, NodeID, bool) {
	var name string
	var val NodeID
	count := 0
	for m, v := range e.ix.Members(n) {
		name, val = m.Name, v
		count++
	}
	return name, val, count == 1
}

// compose resolves the parts of a $compose array, left to right; body is
// the array's pointer, under which each part's is its index
// (/content/$compose/2 in expand_edit, /compose/2 in write_file).
func (e *expander) compose(arr NodeID, body string) ([][]byte, int, *errcode.Error) {
	var pieces [][]byte
	parts := 0
	for i, p := range e.ix.Elements(arr) {
		partAt := body + "/" + strconv.Itoa(i)
		piece, err := e.part(p)
		if err != nil {
			return nil, 0, e.b.unresolved(partAt, err)
		}
		pieces = append(pieces, piece)
		parts++
	}
	return pieces, parts, nil
}

// part resolves one part: literal text, or a reference with at most one
// selector.
func (e *expander) part(p NodeID) ([]byte, *errcode.Error) {
	switch e.ix.Kind(p) {
	case jsontape.String:
		return e.literal(p)
	case jsontape.Object:
		ref, err := e.reference(p)
		if err != nil {
			return nil, err
		}
		return e.b.selectPart(ref)
	}
	return nil, errcode.New(errcode.InvalidArgument, "a part is a string or a reference object, not %s", e.ix.Kind(p))
}

// literal returns the text of a literal string, which must be valid UTF-8.
func (e *expander) literal(p NodeID) ([]byte, *errcode.Error) {
	text, bad := e.ix.StringText(p)
	if bad >= 0 {
		return nil, errcode.Offset(errcode.NotUTF8, int64(bad), "literal text is not valid UTF-8 at byte %d", bad)
	}
	return []byte(text), nil
}

// partRef is a reference part of SPEC 5.1 after its checks.
type partRef struct {
	PartForm
	ref Ref
	as  string // As, or its default
}

// reference reads a reference object, bound as every object is: then the
// rules its form cannot say, at most one of bytes, lines and pointer, as
// only with pointer, and the reference's own (Ref.check).
func (e *expander) reference(p NodeID) (partRef, *errcode.Error) {
	var r partRef
	if err := partPlan.bindForm(e.ix, p, &r.PartForm); err != nil {
		return r, err
	}
	selectorsGiven := 0
	for _, given := range []bool{r.Bytes != nil, r.Lines != nil, r.Pointer != nil} {
		if given {
			selectorsGiven++
		}
	}
	if selectorsGiven > 1 {
		return r, errcode.New(errcode.InvalidArgument, "a reference takes at most one of bytes, lines or pointer")
	}
	r.as = AsLexeme
	if r.As != nil {
		if r.Pointer == nil {
			return r, errcode.New(errcode.InvalidArgument, "as goes with pointer only")
		}
		if err := checkAs(*r.As); err != nil {
			return r, err
		}
		r.as = *r.As
	}
	r.ref = Ref{Result: r.Result, SHA256: (*string)(r.SHA256)}
	return r, r.ref.check()
}

// selectPart resolves a reference under SPEC section 4, without budget: the
// result, its digest, then the selection.
func (b *Briefing) selectPart(p partRef) ([]byte, *errcode.Error) {
	r, err := b.resolve(p.ref)
	if err != nil {
		return nil, err
	}
	data := r.Text.Data
	switch {
	case p.Bytes != nil:
		span, err := selectors.ByteRange(data, p.Bytes[0], p.Bytes[1])
		if err != nil {
			return nil, err
		}
		return data[span.Start:span.End], nil
	case p.Lines != nil:
		// Numbers or anchors, in either mode (SPEC 5.2): the range, then
		// each anchor's characters.
		lines := *p.Lines
		last := int64(r.Text.Lines.Count())
		if len(lines) == 2 {
			last = lines[1].n
		}
		span, err := r.Text.Lines.Range(lines[0].n, last)
		if err != nil {
			return nil, err
		}
		if err := checkAnchors(r.Text, lines...); err != nil {
			return nil, err
		}
		return data[span.Start:span.End], nil
	case p.Pointer != nil:
		_, _, text, err := selectJSON(&target{Text: r.Text, id: &r.ID, result: r}, *p.Pointer, p.as)
		return text, err
	}
	return data, nil
}

// path returns the expanded arguments' top-level string "path", if any.
func (e *expander) path(texts []*results.Text) *string {
	var found *string
	count := 0
	for m, v := range e.ix.Members(e.root) {
		if m.Name != "path" {
			continue
		}
		count++
		start, _ := e.ix.Span(v)
		for i, n := range e.nodes {
			if n.span.Start == start {
				s := string(texts[i].Data)
				found = &s
			}
		}
		if e.ix.Kind(v) == jsontape.String {
			// Raw invalid UTF-8 outside the nodes has failed the call
			// already, so the text is valid but for lone surrogate
			// escapes, kept in their 3-byte form as at pointers are: the
			// arguments are returned with that path unchanged, so the
			// source names it too (SPEC section 3).
			s, _ := e.ix.StringText(v)
			found = &s
		}
	}
	if count != 1 {
		return nil // no path, or an ambiguous one
	}
	return found
}

// expandedArguments copies the arguments with every node replaced by its
// text as a JSON string.
func (e *expander) expandedArguments(texts []*results.Text) json.RawMessage {
	if len(e.nodes) == 0 {
		// Nothing to replace: the arguments as they came (the transport
		// never reuses a message's bytes), not a copy of megabytes.
		return e.data
	}
	size := len(e.data)
	for _, t := range texts {
		size += len(t.Data) + 2
	}
	out := make([]byte, 0, size)
	hugepage.Advise(out[:size])
	pos := 0
	for i, n := range e.nodes {
		out = append(out, e.data[pos:n.span.Start-e.base]...)
		out = limits.AppendEscaped(out, texts[i].Data)
		pos = n.span.End - e.base
	}
	return append(out, e.data[pos:]...)
}

// quoted quotes s for a message as the answer's JSON writes it, so that a
// lone surrogate kept in its 3-byte form reads as the escape the client
// sent (\ud800), as in the error's at.
func quoted(s string) string {
	return string(limits.AppendJSONString(nil, s, false))
}
