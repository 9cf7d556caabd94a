package jsontape

import "github.com/loom-results/loom-results/errcode"

// A Sub is one value of an indexed document, with the index it was found
// in: what a reader hands on so that the value is read further without
// being scanned again (the transport hands a tool its call's arguments as
// a Sub of the message's index, and a tool hands an edit's nodes on the
// same way). Its spans are offsets in the whole document. The zero Sub is
// no value (Present is false).
type Sub struct {
	Index *Index
	Node  Node
}

// SubOf returns the value n of ix.
func (ix *Index) SubOf(n Node) Sub { return Sub{Index: ix, Node: n} }

// Present reports whether s is a value (not the zero Sub).
func (s Sub) Present() bool { return s.Index != nil }

// Kind returns the value's type.
func (s Sub) Kind() Type { return s.Index.Kind(s.Node) }

// Bytes returns the value's lexeme, a slice of the document (not a copy),
// whose capacity ends with it.
func (s Sub) Bytes() []byte {
	start, end := s.Index.Span(s.Node)
	return s.Index.data[start:end:end]
}

// Check returns the invalid_json error that Build, with its default nesting
// limit and the leniency the index was built with, would give for the
// value's bytes alone, or nil. A value of a valid document is valid but
// for its depth: Check costs nothing when the whole document nests at most
// MaxDepth levels, and otherwise scans the value's bytes once more (a
// message may nest 10,000 levels; its tool arguments, MaxDepth). The
// error's offset is in the value's bytes.
func (s Sub) Check() *errcode.Error {
	if s.Index.deepest <= MaxDepth {
		return nil
	}
	data := s.Bytes()
	sc := newScanner(data, s.Index.lenient, nil)
	if st, why := sc.run(); st != done {
		return syntaxError(data, sc.i, why, MaxDepth)
	}
	return nil
}
