package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/jsontape"
)

// decodeArgs binds a tool call's raw arguments to dst, a pointer to a struct
// whose fields carry `arg:"name"` tags (SPEC section 5): an unknown or
// repeated name, a value of the wrong type, or a missing required argument
// is invalid_argument; an optional argument (a pointer field) given as null
// counts as omitted, and all other fields are required. Integers are JSON
// numbers with an integral value; beyond int64 they saturate, so that range
// checks answer them. Strings must be valid UTF-8, raw bytes and escapes
// alike; a field tagged `arg:"name,not_utf8"` answers not_utf8 with the
// offset in the decoded text instead, and one tagged `arg:"name,lenient"`
// takes the text as it is, for the caller to judge. A json.RawMessage field
// takes any value's exact bytes, unchecked: a slice of raw, not a copy.
//
// The arguments are read with the strict JSON index of package jsontape,
// in its mode that reports raw invalid UTF-8 instead of refusing it.
func decodeArgs(raw []byte, dst any) *errcode.Error {
	v := reflect.ValueOf(dst).Elem()
	plan := planOf(v.Type())
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		raw = []byte("{}") // no arguments at all: every required one is missing
	}
	ix, err := jsontape.Build(raw, jsontape.Options{AllowInvalidUTF8: true})
	if err != nil {
		return errcode.New(errcode.InvalidArgument, "arguments are not valid JSON: %s", err.Msg)
	}
	if ix.Kind(ix.Root()) != jsontape.Object {
		return errcode.New(errcode.InvalidArgument, "arguments must be a JSON object")
	}
	d := argDecoder{ix: ix, data: raw}
	var seen uint64 // by field
	for m, val := range ix.Members(ix.Root()) {
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
	for i, f := range plan.fields {
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

var rawType = reflect.TypeFor[json.RawMessage]()

type argDecoder struct {
	ix   *jsontape.Index
	data []byte
}

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
	if f.Type() == rawType {
		// The value's bytes in raw, not a copy (an expand_edit's
		// arguments may be megabytes): both transports read each message
		// into its own buffer and never reuse it.
		start, end := d.ix.Span(n)
		f.SetBytes(d.data[start:end:end])
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
			return wrongType(name, "an integer")
		}
		start, end := d.ix.Span(n)
		lex := string(d.data[start:end])
		i, ok := jsontape.Integer(lex)
		if !ok {
			return errcode.New(errcode.InvalidArgument, "argument %q must be an integer, not %s", name, lex)
		}
		f.SetInt(i)
	case reflect.Bool:
		if kind != jsontape.Boolean {
			return wrongType(name, "a boolean")
		}
		start, _ := d.ix.Span(n)
		f.SetBool(d.data[start] == 't')
	case reflect.Slice: // []string
		if kind != jsontape.Array {
			return wrongType(name, "an array of strings")
		}
		list := make([]string, 0, 4)
		for _, el := range d.ix.Elements(n) {
			s, err := d.text(el, name, opt)
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

func wrongType(name, want string) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "argument %q must be %s", name, want)
}

// text reads a string argument, which must be valid UTF-8 unless opt says
// otherwise. A lone surrogate escape decodes to its 3-byte form, so it is
// invalid exactly as a raw invalid byte is (SPEC section 5).
func (d argDecoder) text(n jsontape.Node, name, opt string) (string, *errcode.Error) {
	if d.ix.Kind(n) != jsontape.String {
		return "", wrongType(name, "a string")
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
