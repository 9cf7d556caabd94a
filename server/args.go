package server

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// decodeArgs binds a tool call's arguments to dst, a pointer to a struct
// whose fields carry `arg:"name"` tags (SPEC section 5): an unknown or
// repeated name, a value of the wrong type, or a missing required argument
// is invalid_argument; an optional argument (a pointer field) given as null
// counts as omitted, and all other fields are required. Integers are JSON
// numbers with an integral value; beyond int64 they saturate, so that range
// checks answer them. Strings must be valid UTF-8, raw bytes and escapes
// alike; a field tagged `arg:"name,not_utf8"` answers not_utf8 with the
// offset in the decoded text instead, and one tagged `arg:"name,lenient"`
// takes the text as it is, for the caller to judge. A jsontape.Sub field
// takes any value as it is, unchecked, to be read further from the same
// index (an edit's nodes).
//
// The arguments are a value of the index that the transport's one reading
// of the message built (in its mode that reports raw invalid UTF-8 instead
// of refusing it): they are walked, never scanned again, but when the
// message nests deeper than SPEC section 4.3's 1,000 levels, where the
// arguments alone are held to that limit (jsontape.Sub.Check). No
// arguments, or null, are an empty object.
func decodeArgs(args jsontape.Sub, dst any) *errcode.Error {
	v := reflect.ValueOf(dst).Elem()
	plan := planOf(v.Type())
	if !args.Present() || args.Kind() == jsontape.Null {
		return plan.missing(0) // no arguments at all: every required one is missing
	}
	if err := args.Check(); err != nil {
		return errcode.New(errcode.InvalidArgument, "arguments are not valid JSON: %s", err.Msg)
	}
	if args.Kind() != jsontape.Object {
		return errcode.New(errcode.InvalidArgument, "arguments must be a JSON object")
	}
	d := argDecoder{ix: args.Index}
	var seen uint64 // by field
	for m, val := range d.ix.Members(args.Node) {
		if m.InvalidUTF8 {
			return errcode.New(errcode.InvalidArgument, "an argument name is not valid UTF-8")
		}
		i, ok := plan.byName[m.Name]
		if !ok {
			return errcode.New(errcode.InvalidArgument, "unknown argument %q; the arguments are %s", m.Name, plan.names)
		}
		if seen&(1<<i) != 0 {
			return errcode.New(errcode.InvalidArgument, "argument %q is given twice", m.Name)
		}
		seen |= 1 << i
		if err := d.field(v.Field(i), plan.fields[i], val); err != nil {
			return err
		}
	}
	return plan.missing(seen)
}

// missing is the error of the first required argument not seen, or nil.
func (p *argPlan) missing(seen uint64) *errcode.Error {
	for i, f := range p.fields {
		if f.required && seen&(1<<i) == 0 {
			return errcode.New(errcode.InvalidArgument, "argument %q is required", f.name)
		}
	}
	return nil
}

// argField is one field of an arguments struct: its tag's name and option,
// and whether it is required (not a pointer).
type argField struct {
	name, opt string
	required  bool
}

// argPlan is what decodeArgs reads of an arguments struct type, once.
type argPlan struct {
	fields []argField     // by field index
	byName map[string]int // field index by argument name
	names  string         // the names, for messages
}

var plans sync.Map // reflect.Type -> *argPlan

func planOf(t reflect.Type) *argPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*argPlan)
	}
	if t.NumField() > 64 {
		panic("decodeArgs: more than 64 arguments in " + t.String())
	}
	p := &argPlan{fields: make([]argField, t.NumField()), byName: make(map[string]int, t.NumField()), names: "none"}
	list := make([]string, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opt, _ := strings.Cut(sf.Tag.Get("arg"), ",")
		p.fields[i] = argField{name: name, opt: opt, required: sf.Type.Kind() != reflect.Pointer}
		p.byName[name] = i
		list[i] = name
	}
	if len(list) > 0 {
		p.names = strings.Join(list, ", ")
	}
	plans.Store(t, p)
	return p
}

var subType = reflect.TypeFor[jsontape.Sub]()

type argDecoder struct {
	ix *jsontape.Index
}

// lexeme is value n's bytes.
func (d argDecoder) lexeme(n jsontape.Node) []byte { return d.ix.SubOf(n).Bytes() }

// field reads value n of one argument into f.
func (d argDecoder) field(f reflect.Value, af argField, n jsontape.Node) *errcode.Error {
	name, opt := af.name, af.opt
	kind := d.ix.Kind(n)
	if kind == jsontape.Null {
		if f.Kind() == reflect.Pointer {
			return nil
		}
		return errcode.New(errcode.InvalidArgument, "argument %q is required and cannot be null", name)
	}
	if f.Kind() == reflect.Pointer {
		f.Set(reflect.New(f.Type().Elem()))
		f = f.Elem()
	}
	if f.Type() == subType {
		// The value where it is (an expand_edit's arguments may be
		// megabytes): both transports read each message into its own
		// buffer and never reuse it.
		f.Set(reflect.ValueOf(d.ix.SubOf(n)))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		s, err := d.text(n, name, opt)
		if err != nil {
			return err
		}
		f.SetString(s)
	case reflect.Int64:
		if kind != jsontape.Number {
			return d.wrongType(name, "an integer", n)
		}
		lex := string(d.lexeme(n))
		i, ok := jsontape.Integer(lex)
		if !ok {
			return errcode.New(errcode.InvalidArgument, "argument %q must be an integer, not %s", name, lex)
		}
		f.SetInt(i)
	case reflect.Bool:
		if kind != jsontape.Boolean {
			return d.wrongType(name, "a boolean", n)
		}
		f.SetBool(d.lexeme(n)[0] == 't')
	case reflect.Slice: // []string
		if kind != jsontape.Array {
			return d.wrongType(name, "an array of strings", n)
		}
		list := make([]string, 0, 4)
		for i, el := range d.ix.Elements(n) {
			s, err := d.text(el, name+"/"+strconv.Itoa(i), opt) // the element, named as a pointer would
			if err != nil {
				return err
			}
			list = append(list, s)
		}
		f.Set(reflect.ValueOf(list))
	default:
		panic("decodeArgs: unsupported field type " + f.Type().String())
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
	return "", errcode.New(errcode.InvalidArgument, "argument %q is not valid UTF-8 at byte %d of its text", name, bad)
}
