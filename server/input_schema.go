package server

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/server/transport"
)

// keywords are what an input schema says of one property beyond what its
// request type gives (its name, its JSON type and whether it is
// required): the words for the model and the limits its checks hold it to.
type keywords struct {
	description string
	dflt        any // "default", as json.Marshal writes it; nil: none
	enum        []string
	pattern     string
	// minLength and maxLength: 0 is none.
	minLength, maxLength int
	minimum, maximum     *int64
	// minItems and maxItems: 0 is none. Only the type gives them (value):
	// an array type's length, or a slice argument's items=LO-HI
	// (briefing.Argument), which the binder checks too.
	minItems, maxItems int
	// stringOr: the value is a string or an object of this form, which
	// the schema says without a union (SPEC section 9: clients that
	// translate schemas for their model need none): no type, and no
	// required, only the form's properties.
	stringOr bool
}

// bound is a minimum or maximum.
func bound(n int64) *int64 { return &n }

// inputSchema returns the input schema of a tool whose arguments are the
// request type t (SPEC section 5): an object of t's arguments
// (briefing.Arguments), in field order or in order when given, each with
// the JSON type of its Go type (string, integer, boolean, array of its
// element's, object: a form's members, or any object for a map; no type
// for an interface), required when the field is not a pointer, and the
// keywords of props, by the property's path: its name, a member of a
// form after a "/" ("splice/edits"), an array's items with "[]"
// ("splice/edits[]/lines"). With compact (model mode, SPEC section 2),
// descriptions, defaults, and range and length keywords are left out;
// names, types, required, enum and pattern stay.
//
// The keywords are written in one order whatever the property (type,
// items, enum, pattern, the lengths, the bounds, the items' counts,
// default, description, then a form's properties, required and
// additionalProperties), the order of the schemas as they were first
// reviewed (testdata/toolsnaps). Every path of props must name a property:
// a misspelt or stale one panics when the tools are defined.
func inputSchema(t reflect.Type, props map[string]keywords, order []string, compact bool) json.RawMessage {
	w := schemaWriter{props: props, used: map[string]bool{}, compact: compact}
	args := briefing.Arguments(t)
	if order != nil {
		args = ordered(args, order)
	}
	b := []byte(`{"type":"object","properties":`)
	b = w.properties(b, args, "")
	b = append(b, `,"additionalProperties":false`...)
	b = w.required(b, args)
	b = append(b, '}')
	for path := range props {
		if !w.used[path] {
			panic("input schema of " + t.String() + ": no property " + path)
		}
	}
	return b
}

// ordered is args in order, which must name each of them once.
func ordered(args []briefing.Argument, order []string) []briefing.Argument {
	out := make([]briefing.Argument, 0, len(args))
	for _, name := range order {
		i := slices.IndexFunc(args, func(a briefing.Argument) bool { return a.Name == name })
		if i < 0 {
			panic("input schema: no argument " + name)
		}
		out = append(out, args[i])
	}
	if len(out) != len(args) {
		panic("input schema: the order leaves out arguments")
	}
	return out
}

type schemaWriter struct {
	props   map[string]keywords
	used    map[string]bool
	compact bool
}

// properties writes {"name": schema, ...} for args, whose paths are under
// prefix.
func (w *schemaWriter) properties(b []byte, args []briefing.Argument, prefix string) []byte {
	b = append(b, '{')
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = transport.AppendString(b, a.Name)
		b = append(b, ':')
		b = w.value(b, a.Type, prefix+a.Name, a.MinItems, a.MaxItems)
	}
	return append(b, '}')
}

// required writes ,"required":[...] when any of args is required.
func (w *schemaWriter) required(b []byte, args []briefing.Argument) []byte {
	var names []string
	for _, a := range args {
		if a.Required {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		return b
	}
	return append(append(b, `,"required":`...), marshal(names)...)
}

// patterned is a string type whose values have one form, which the
// schema of every value of it gives as its pattern.
type patterned interface{ Pattern() string }

// form is what a Raw argument is read as (briefing.Raw's Form).
type form interface{ Form() reflect.Type }

var formType = reflect.TypeFor[form]()

// typed is a type whose schema names the JSON type it says, none for ""
// (briefing.Position, a number or a string).
type typed interface{ JSONType() string }

// value writes the schema of a value of Go type t at path; lo and hi bound
// a slice's items (an argument's items=LO-HI; 0: none), as an array
// type's length bounds its own.
func (w *schemaWriter) value(b []byte, t reflect.Type, path string, lo, hi int) []byte {
	if t.Implements(formType) {
		t = reflect.Zero(t).Interface().(form).Form()
	}
	k, ok := w.props[path]
	if ok {
		w.used[path] = true
	}
	if p, ok := reflect.Zero(t).Interface().(patterned); ok {
		k.pattern = p.Pattern() // the type's own form (briefing.DigestPrefix)
	}
	if hi > 0 {
		k.minItems, k.maxItems = lo, hi
	}
	if t.Kind() == reflect.Array {
		k.minItems, k.maxItems = t.Len(), t.Len()
	}
	typ := jsonType(t, path)
	m := members{b: append(b, '{'), start: len(b) + 1}
	if typ != "" && !k.stringOr {
		m.member("type", typ)
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		m.key("items")
		m.b = w.value(m.b, t.Elem(), path+"[]", 0, 0)
	}
	k.write(&m, w.compact)
	if t.Kind() == reflect.Struct && typ == "object" { // a form, not a briefing.Position
		form := briefing.Arguments(t)
		m.key("properties")
		m.b = w.properties(m.b, form, path+"/")
		if !k.stringOr {
			m.b = w.required(m.b, form)
		}
		m.b = append(m.b, `,"additionalProperties":false`...)
	}
	return append(m.b, '}')
}

// jsonType is the JSON type of a value of Go type t: "" for an interface,
// which may hold any.
func jsonType(t reflect.Type, path string) string {
	if ty, ok := reflect.Zero(t).Interface().(typed); ok {
		return ty.JSONType()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Interface:
		return ""
	}
	panic("input schema: no JSON type for " + t.String() + " at " + path)
}

// members writes the members of one JSON object, a comma between two.
type members struct {
	b     []byte
	start int // where the first member goes
}

// key writes the next member's name.
func (m *members) key(name string) {
	if len(m.b) > m.start {
		m.b = append(m.b, ',')
	}
	m.b = append(transport.AppendString(m.b, name), ':')
}

// member writes the next member, its value v as marshal writes it.
func (m *members) member(name string, v any) {
	m.key(name)
	m.b = append(m.b, marshal(v)...)
}

// write writes k's keywords, in the schemas' order; compact leaves out
// all but enum and pattern.
func (k keywords) write(m *members, compact bool) {
	if k.enum != nil {
		m.member("enum", k.enum)
	}
	if k.pattern != "" {
		m.member("pattern", k.pattern)
	}
	if compact {
		return
	}
	for _, n := range []struct {
		name string
		n    *int64 // nil: none
	}{
		{"minLength", positive(k.minLength)}, {"maxLength", positive(k.maxLength)},
		{"minimum", k.minimum}, {"maximum", k.maximum},
		{"minItems", positive(k.minItems)}, {"maxItems", positive(k.maxItems)},
	} {
		if n.n != nil {
			m.member(n.name, *n.n)
		}
	}
	if k.dflt != nil {
		m.member("default", k.dflt)
	}
	if k.description != "" {
		m.member("description", k.description)
	}
}

// positive is a length or a number of items, nil when 0 (none).
func positive(n int) *int64 {
	if n == 0 {
		return nil
	}
	return bound(int64(n))
}

// with is the union of keyword tables (refKeywords and a tool's own).
func with(tables ...map[string]keywords) map[string]keywords {
	out := map[string]keywords{}
	for _, t := range tables {
		for path, k := range t {
			if _, dup := out[path]; dup {
				panic("input schema: two keyword entries for " + path)
			}
			out[path] = k
		}
	}
	return out
}

// refKeywords are the words of the arguments that name a result (SPEC
// section 4), briefing.ResultRef's.
var refKeywords = map[string]keywords{
	"result": {description: "Result ID from a descriptor, e.g. r3."},
	"sha256": {description: "Optional prefix (12-64 hex digits) of the result's SHA-256; a mismatch fails with digest_mismatch."},
}

// pathRefKeywords are those of a selection lookup's reference, a result or
// a file by path (briefing.PathRef).
var pathRefKeywords = with(refKeywords, map[string]keywords{
	"path": {description: "Instead of result: a file under the root, retained as inspect retains it."},
})
