package briefing

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// An Argument is one argument of a request type, or one member of a form
// (SpliceForm), as its field's `arg:"name"` tag names it. The fields of an
// embedded struct are its own (PathRef); a field without the tag is not an
// argument (a request's state after its checks).
type Argument struct {
	Name string
	// Opt is the tag's option: "not_utf8" or "lenient" (decode).
	Opt string
	// Type is the field's type, without the pointer of an optional
	// argument.
	Type reflect.Type
	// Required: the field is not a pointer. A pointer field is optional,
	// and null counts as omitted (SPEC section 5).
	Required bool
	index    []int
}

// Arguments lists the arguments of a request type or the members of a
// form, in field order: the order of the input schema's properties and of
// the names an unknown argument's message lists. The binder and the input
// schemas both read the tags here.
func Arguments(t reflect.Type) []Argument {
	var out []Argument
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			for _, a := range Arguments(sf.Type) {
				a.index = append([]int{i}, a.index...)
				out = append(out, a)
			}
			continue
		}
		tag, ok := sf.Tag.Lookup("arg")
		if !ok {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		a := Argument{Name: name, Opt: opt, Type: sf.Type, Required: true, index: []int{i}}
		if a.Type.Kind() == reflect.Pointer {
			a.Type, a.Required = a.Type.Elem(), false
		}
		out = append(out, a)
	}
	return out
}

// Raw is an argument taken as the JSON value it is, where the call's index
// holds it (an edit's arguments may be megabytes): the tool walks it,
// judging what it holds (expand_edit's arguments, write_file's compose and
// splice). T is the form the tool reads it as (a SpliceForm, an object),
// for the input schema; the binder checks nothing of it.
type Raw[T any] struct{ jsontape.Sub }

// Form is T, the form the value is read as.
func (Raw[T]) Form() reflect.Type { return reflect.TypeFor[T]() }

func (r *Raw[T]) set(v jsontape.Sub) { r.Sub = v }

// rawSetter is what a *Raw is to the binder.
type rawSetter interface{ set(jsontape.Sub) }

var rawSetterType = reflect.TypeFor[rawSetter]()

// argPlan is what the binder reads of a request type, once per type (OpOf).
type argPlan struct {
	args   []Argument
	raw    []bool         // by argument: a Raw
	byName map[string]int // argument index by name
	names  string         // the names, for messages
}

// planOf reads request type t's arguments and checks that the binder
// takes each field's type: string, int64, bool, []string, or a Raw.
func planOf(t reflect.Type) *argPlan {
	args := Arguments(t)
	if len(args) > 64 {
		panic("briefing: more than 64 arguments in " + t.String())
	}
	p := &argPlan{args: args, raw: make([]bool, len(args)), byName: make(map[string]int, len(args)), names: "none"}
	names := make([]string, len(args))
	for i, a := range args {
		switch k := a.Type.Kind(); {
		case reflect.PointerTo(a.Type).Implements(rawSetterType):
			p.raw[i] = true
		case k == reflect.String, k == reflect.Int64, k == reflect.Bool,
			k == reflect.Slice && a.Type.Elem().Kind() == reflect.String:
		default:
			panic("briefing: argument " + a.Name + " of " + t.String() + " has a type the binder does not take: " + a.Type.String())
		}
		p.byName[a.Name] = i
		names[i] = a.Name
	}
	if len(names) > 0 {
		p.names = strings.Join(names, ", ")
	}
	return p
}

// decode binds a tool call's arguments to v, a request struct of the
// plan's type (SPEC section 5): an unknown or repeated name, a value of
// the wrong type, or a missing required argument is invalid_argument; an
// optional argument (a pointer field) given as null counts as omitted, and
// all other fields are required. Integers are JSON numbers with an
// integral value; beyond int64 they saturate, so that range checks answer
// them. Strings must be valid UTF-8, raw bytes and escapes alike; a field
// tagged `arg:"name,not_utf8"` answers not_utf8 with the offset in the
// decoded text instead, and one tagged `arg:"name,lenient"` takes the text
// as it is, for the tool to judge. A Raw field takes any value as it is,
// unchecked, to be read further from the same index (an edit's nodes).
//
// The arguments are a value of the index that the transport's one reading
// of the message built (in its mode that reports raw invalid UTF-8 instead
// of refusing it): they are walked, never scanned again, but when the
// message nests deeper than SPEC section 4.3's 1,000 levels, where the
// arguments alone are held to that limit (jsontape.Sub.Check). No
// arguments, or null, are an empty object.
func (p *argPlan) decode(args jsontape.Sub, v reflect.Value) *errcode.Error {
	if !args.Present() || args.Kind() == jsontape.Null {
		return p.missing(0) // no arguments at all: every required one is missing
	}
	if err := args.Check(); err != nil {
		return errcode.New(errcode.InvalidArgument, "arguments are not valid JSON: %s", err.Msg)
	}
	if args.Kind() != jsontape.Object {
		return errcode.New(errcode.InvalidArgument, "arguments must be a JSON object")
	}
	d := argDecoder{ix: args.Index}
	var seen uint64 // by argument
	for m, val := range d.ix.Members(args.Node) {
		if m.InvalidUTF8 {
			return errcode.New(errcode.InvalidArgument, "an argument name is not valid UTF-8")
		}
		i, ok := p.byName[m.Name]
		if !ok {
			return errcode.New(errcode.InvalidArgument, "unknown argument %q; the arguments are %s", m.Name, p.names)
		}
		if seen&(1<<i) != 0 {
			return givenTwice("argument", m.Name)
		}
		seen |= 1 << i
		if err := d.field(v.FieldByIndex(p.args[i].index), p.args[i], p.raw[i], val); err != nil {
			return err
		}
	}
	return p.missing(seen)
}

// givenTwice is the one message of a name given twice in one object, at
// any depth: kind is "argument" for a tool's arguments and "member" for an
// object inside them (a splice, an edit, a reference), whose place the
// error's at gives.
func givenTwice(kind, name string) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "%s %s is given twice", kind, quoted(name))
}

// missing is the error of the first required argument not seen, or nil.
func (p *argPlan) missing(seen uint64) *errcode.Error {
	for i, a := range p.args {
		if a.Required && seen&(1<<i) == 0 {
			return errcode.New(errcode.InvalidArgument, "argument %q is required", a.Name)
		}
	}
	return nil
}

type argDecoder struct {
	ix *jsontape.Index
}

// lexeme is value n's bytes.
func (d argDecoder) lexeme(n jsontape.Node) []byte { return d.ix.SubOf(n).Bytes() }

// field reads value n of argument a into f; raw says a is a Raw.
func (d argDecoder) field(f reflect.Value, a Argument, raw bool, n jsontape.Node) *errcode.Error {
	kind := d.ix.Kind(n)
	if kind == jsontape.Null {
		if !a.Required {
			return nil
		}
		return errcode.New(errcode.InvalidArgument, "argument %q is required and cannot be null", a.Name)
	}
	if !a.Required {
		f.Set(reflect.New(a.Type))
		f = f.Elem()
	}
	if raw {
		// The value where it is: both transports read each message into
		// its own buffer and never reuse it.
		f.Addr().Interface().(rawSetter).set(d.ix.SubOf(n))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		s, err := d.text(n, a.Name, a.Opt)
		if err != nil {
			return err
		}
		f.SetString(s)
	case reflect.Int64:
		if kind != jsontape.Number {
			return d.wrongType(a.Name, "an integer", n)
		}
		lex := string(d.lexeme(n))
		i, ok := jsontape.Integer(lex)
		if !ok {
			return errcode.New(errcode.InvalidArgument, "argument %q must be an integer, not %s", a.Name, lex)
		}
		f.SetInt(i)
	case reflect.Bool:
		if kind != jsontape.Boolean {
			return d.wrongType(a.Name, "a boolean", n)
		}
		f.SetBool(d.lexeme(n)[0] == 't')
	default: // []string (planOf)
		if kind != jsontape.Array {
			return d.wrongType(a.Name, "an array of strings", n)
		}
		list := make([]string, 0, 4)
		for i, el := range d.ix.Elements(n) {
			s, err := d.text(el, a.Name+"/"+strconv.Itoa(i), a.Opt) // the element, named as a pointer would
			if err != nil {
				return err
			}
			list = append(list, s)
		}
		f.Set(reflect.ValueOf(list))
	}
	return nil
}

// wrongType is the error of argument name given value n of the wrong type:
// it says what was given, so that the fix is plain ("argument \"first\" must
// be an integer, not a string").
func (d argDecoder) wrongType(name, want string, n jsontape.Node) *errcode.Error {
	var got string
	switch k := d.ix.Kind(n); k {
	case jsontape.Array, jsontape.Object:
		got = "an " + string(k)
	case jsontape.Boolean:
		got = string(d.lexeme(n))
	default: // null is never a wrong type: it is omitted or required
		got = "a " + string(k)
	}
	return errcode.New(errcode.InvalidArgument, "argument %q must be %s, not %s", name, want, got)
}

// text reads a string argument, which must be valid UTF-8 unless opt says
// otherwise. A lone surrogate escape decodes to its 3-byte form, so it is
// invalid exactly as a raw invalid byte is (SPEC section 5).
func (d argDecoder) text(n jsontape.Node, name, opt string) (string, *errcode.Error) {
	if d.ix.Kind(n) != jsontape.String {
		return "", d.wrongType(name, "a string", n)
	}
	s, bad := d.ix.StringText(n)
	switch {
	case bad < 0 || opt == "lenient":
		return s, nil
	case opt == "not_utf8":
		return "", errcode.Offset(errcode.NotUTF8, int64(bad), "argument %q is not valid UTF-8 at byte %d of its text", name, bad)
	}
	return "", notUTF8("argument", name, bad)
}

// notUTF8 is the one message of a string that is not valid UTF-8 at any
// depth (kind as givenTwice's), with the offset of its first bad byte in
// the decoded text.
func notUTF8(kind, name string, bad int) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "%s %q is not valid UTF-8 at byte %d of its text", kind, name, bad)
}
