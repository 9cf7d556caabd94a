package selectors

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// Lookup resolves pointer p in the document ix under the rules of SPEC
// section 4.3 and returns the selected value's span and type. Tokens are
// applied left to right (RFC 6901 section 4); the first that fails is the
// answer:
//   - on an array, "-" and an index past the end are pointer_not_found, and a
//     token other than 0 or a decimal without leading zeros is
//     invalid_pointer (a decimal too large for any array is past the end);
//   - on an object, a missing member is pointer_not_found, and a name that
//     the object holds more than once (compared after decoding escapes) is
//     ambiguous_json (I-JSON, RFC 7493 section 2.3);
//   - on any other value, every token is pointer_not_found.
//
// Each token costs what jsontape.Index.Element and Member cost: a large
// container is indexed once, by the first lookup that passes through it.
func Lookup(ix *jsontape.Index, p Pointer) (jsontape.Value, *errcode.Error) {
	n, err := LookupNode(ix, p)
	if err != nil {
		return jsontape.Value{}, err
	}
	return ix.Value(n), nil
}

// LookupNode is Lookup returning the selected node.
func LookupNode(ix *jsontape.Index, p Pointer) (jsontape.Node, *errcode.Error) {
	n := ix.Root()
	for k := range p.tokens {
		var err *errcode.Error
		switch ix.Kind(n) {
		case jsontape.Array:
			n, err = element(ix, n, p, k)
		case jsontape.Object:
			n, err = member(ix, n, p, k)
		default:
			err = errcode.New(errcode.PointerNotFound, "token %q at %s: value is a %s, not an object or array",
				p.tokens[k], p.prefix(k), ix.Kind(n))
		}
		if err != nil {
			return jsontape.Node{}, err
		}
	}
	return n, nil
}

// element applies token k of p to array n.
func element(ix *jsontape.Index, n jsontape.Node, p Pointer, k int) (jsontape.Node, *errcode.Error) {
	tok := p.tokens[k]
	index, ok := arrayIndex(tok)
	if !ok {
		return n, errcode.New(errcode.InvalidPointer,
			"token %q at %s: an array index is 0 or a decimal without leading zeros (or \"-\")", tok, p.prefix(k))
	}
	if index >= 0 {
		if v, ok := ix.Element(n, index); ok {
			return v, nil
		}
	}
	count := ix.Len(n)
	valid := "it is empty"
	if count > 0 {
		valid = fmt.Sprintf("it has %d elements (0-%d)", count, count-1)
	}
	if index < 0 {
		return n, errcode.New(errcode.PointerNotFound,
			"token \"-\" at %s: \"-\" is the position after the last element of the array, which never exists; %s", p.prefix(k), valid)
	}
	return n, errcode.New(errcode.PointerNotFound, "token %q at %s: array index out of range; %s", tok, p.prefix(k), valid)
}

// arrayIndex parses an array token: -1 for "-", the index for 0 or a
// decimal without leading zeros (saturated at the largest int, which no
// array reaches), and ok false for anything else.
func arrayIndex(tok string) (index int, ok bool) {
	if tok == "-" {
		return -1, true
	}
	if tok == "" || tok[0] == '0' && len(tok) > 1 {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i]-'0' >= 10 {
			return 0, false
		}
	}
	index, err := strconv.Atoi(tok)
	if err != nil { // only a range error is left
		index = int(^uint(0) >> 1)
	}
	return index, true
}

// member applies token k of p to object n.
func member(ix *jsontape.Index, n jsontape.Node, p Pointer, k int) (jsontape.Node, *errcode.Error) {
	tok := p.tokens[k]
	v, count := ix.Member(n, tok)
	switch {
	case count == 0:
		return n, errcode.New(errcode.PointerNotFound, "token %q at %s: object has no member %q; %s",
			tok, p.prefix(k), tok, someNames(ix, n))
	case count > 1:
		var at []string
		for m := range ix.Members(n) {
			if m.Name == tok {
				at = append(at, strconv.Itoa(m.NameStart))
			}
		}
		return n, errcode.New(errcode.AmbiguousJSON,
			"token %q at %s: object has %d members named %q (at offsets %s); a pointer through duplicate names is ambiguous",
			tok, p.prefix(k), len(at), tok, strings.Join(at, ", "))
	}
	return v, nil
}

// someNames describes the members of object n for an error message: how
// many, and the first few names.
func someNames(ix *jsontape.Index, n jsontape.Node) string {
	const show = 5
	count := ix.Len(n)
	if count == 0 {
		return "it is empty"
	}
	var names []string
	for m := range ix.Members(n) {
		if len(names) == show {
			break
		}
		name := m.Name
		if len(name) > 40 {
			cut := 40
			for cut > 0 && !utf8.RuneStart(name[cut]) {
				cut--
			}
			name = name[:cut] + "…"
		}
		names = append(names, strconv.Quote(name))
	}
	more := ""
	if count > show {
		more = fmt.Sprintf(", ... (%d more)", count-show)
	}
	return fmt.Sprintf("it has %d members: %s%s", count, strings.Join(names, ", "), more)
}
