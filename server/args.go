package server

import (
	"encoding/json"
	"reflect"
	"strings"

	"loom-results/errcode"
	"loom-results/selectors"
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
// takes any value's exact bytes, unchecked.
//
// The arguments are read with the strict JSON index of package selectors,
// in its mode that reports raw invalid UTF-8 instead of refusing it.
func decodeArgs(raw []byte, dst any) *errcode.Error {
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	fields := make(map[string]int, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		fields[argName(t.Field(i))] = i
	}
	if len(strings.TrimSpace(string(raw))) == 0 || strings.TrimSpace(string(raw)) == "null" {
		raw = []byte("{}") // no arguments at all: every required one is missing
	}
	ix, err := selectors.IndexJSONWith(raw, selectors.IndexJSONOptions{AllowInvalidUTF8: true})
	if err != nil {
		return errcode.New(errcode.InvalidArgument, "arguments are not valid JSON: %s", err.Msg)
	}
	if ix.Kind(ix.Root()) != selectors.JSONObject {
		return errcode.New(errcode.InvalidArgument, "arguments must be a JSON object")
	}
	d := argDecoder{ix: ix, data: raw}
	seen := make(map[string]bool, len(fields))
	for m, val := range ix.Members(ix.Root()) {
		if m.InvalidUTF8 {
			return errcode.New(errcode.InvalidArgument, "an argument name is not valid UTF-8")
		}
		i, ok := fields[m.Name]
		if !ok {
			return errcode.New(errcode.InvalidArgument, "unknown argument %q; the arguments are %s", m.Name, names(t))
		}
		if seen[m.Name] {
			return errcode.New(errcode.InvalidArgument, "argument %q is given twice", m.Name)
		}
		seen[m.Name] = true
		if err := d.field(v.Field(i), t.Field(i), val); err != nil {
			return err
		}
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name := argName(f); !seen[name] && f.Type.Kind() != reflect.Pointer {
			return errcode.New(errcode.InvalidArgument, "argument %q is required", name)
		}
	}
	return nil
}

func argName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("arg"), ",")
	return name
}

var rawType = reflect.TypeFor[json.RawMessage]()

func names(t reflect.Type) string {
	if t.NumField() == 0 {
		return "none"
	}
	list := make([]string, t.NumField())
	for i := range list {
		list[i] = argName(t.Field(i))
	}
	return strings.Join(list, ", ")
}

type argDecoder struct {
	ix   *selectors.JSONIndex
	data []byte
}

// field reads value n of one argument into f.
func (d argDecoder) field(f reflect.Value, sf reflect.StructField, n selectors.NodeID) *errcode.Error {
	name, opt, _ := strings.Cut(sf.Tag.Get("arg"), ",")
	kind := d.ix.Kind(n)
	if kind == selectors.JSONNull {
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
		start, end := d.ix.Span(n)
		f.SetBytes(append([]byte(nil), d.data[start:end]...))
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
		if kind != selectors.JSONNumber {
			return wrongType(name, "an integer")
		}
		start, end := d.ix.Span(n)
		lex := string(d.data[start:end])
		i, ok := selectors.JSONInteger(lex)
		if !ok {
			return errcode.New(errcode.InvalidArgument, "argument %q must be an integer, not %s", name, lex)
		}
		f.SetInt(i)
	case reflect.Bool:
		if kind != selectors.JSONBoolean {
			return wrongType(name, "a boolean")
		}
		start, _ := d.ix.Span(n)
		f.SetBool(d.data[start] == 't')
	case reflect.Slice: // []string
		if kind != selectors.JSONArray {
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
func (d argDecoder) text(n selectors.NodeID, name, opt string) (string, *errcode.Error) {
	if d.ix.Kind(n) != selectors.JSONString {
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
