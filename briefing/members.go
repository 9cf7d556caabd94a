package briefing

import (
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// wrongMember is the error of an edit member of the wrong type. It names
// the member by its path inside the node (edits/0/lines/0 in a splice, lines
// in a reference) and what was given instead, so that the fix is plain:
// "edits/0/lines/0 must be an integer, not a string".
func (e *expander) wrongMember(path, want string, v NodeID) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "%s must be %s, not %s", path, want, e.given(v))
}

// given names a value for a message: its type with an article, or, for a
// number or a boolean, the value as written (an integer is wanted, and 1.5
// says more than "a number").
func (e *expander) given(v NodeID) string {
	switch k := e.ix.Kind(v); k {
	case jsontape.Number, jsontape.Boolean:
		start, end := e.ix.Span(v)
		if end-start > 40 {
			return "a " + string(k)
		}
		return string(e.ix.SubOf(v).Bytes())
	case jsontape.Array, jsontape.Object:
		return "an " + string(k)
	case jsontape.Null:
		return "null"
	default:
		return "a " + string(k)
	}
}
