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
// argument (a request's state after its checks). After the name, the tag
// may give options: not_utf8 or lenient (how a string is judged: decode),
// and items=LO-HI, the number of elements a slice takes.
type Argument struct {
	Name string
	// Opt is the tag's option for a string: "not_utf8" or "lenient"
	// (decode).
	Opt string
	// MinItems and MaxItems bound a slice's elements (items=LO-HI); 0 is
	// none. An array type's own length bounds it instead.
	MinItems, MaxItems int
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
		name, opts, _ := strings.Cut(tag, ",")
		a := Argument{Name: name, Type: sf.Type, Required: true, index: []int{i}}
		for opt := range strings.SplitSeq(opts, ",") {
			switch items, ok := strings.CutPrefix(opt, "items="); {
			case opt == "":
			case opt == "not_utf8", opt == "lenient":
				a.Opt = opt
			case ok:
				lo, hi, _ := strings.Cut(items, "-")
				a.MinItems, _ = strconv.Atoi(lo)
				a.MaxItems, _ = strconv.Atoi(hi)
				if a.MinItems < 1 || a.MaxItems < a.MinItems {
					panic("briefing: argument " + name + " of " + t.String() + ": bad items " + items)
				}
			default:
				panic("briefing: argument " + name + " of " + t.String() + ": unknown option " + opt)
			}
		}
		if a.Type.Kind() == reflect.Pointer {
			a.Type, a.Required = a.Type.Elem(), false
		}
		out = append(out, a)
	}
	return out
}

// Raw is an argument or member taken as the JSON value it is, where the
// call's index holds it (an edit's arguments may be megabytes), to be read
// further by the tool: expand_edit's arguments, write_file's compose and
// splice, a splice's edits, an edit's text. T is the form the value is
// read as, for the input schema; the binder checks only that the value is
// of T's JSON type (an array for a slice, an object for a struct or a
// map, anything for an interface).
type Raw[T any] struct{ jsontape.Sub }

// Form is T, the form the value is read as.
func (Raw[T]) Form() reflect.Type { return reflect.TypeFor[T]() }

func (r *Raw[T]) set(v jsontape.Sub) { r.Sub = v }

// rawSetter is what a *Raw is to the binder.
type rawSetter interface {
	set(jsontape.Sub)
	Form() reflect.Type
}

// A selfBinder is a value that reads itself from the call's index (a
// Position): it checks the value's type and form, naming it by name.
type selfBinder interface {
	bind(d binder, n jsontape.Node, name valueName) *errcode.Error
	// wants says what the value must be, as a wrong type's message says
	// it: one, and several in an array.
	wants() (one, many string)
}

var (
	rawSetterType  = reflect.TypeFor[rawSetter]()
	selfBinderType = reflect.TypeFor[selfBinder]()
)

// how is how the binder reads a value of one Go type.
type how uint8

const (
	howString how = iota // a string, or a named string type (DigestPrefix)
	howInt               // int64
	howBool
	howList // a slice or an array of a value the binder reads
	howRaw  // a Raw
	howSelf // a selfBinder
)

// howOf is how the binder reads a value of type t; a type it does not
// read panics (when the plan is made, at start).
func howOf(t reflect.Type, where string) how {
	switch k := t.Kind(); {
	case reflect.PointerTo(t).Implements(rawSetterType):
		return howRaw
	case reflect.PointerTo(t).Implements(selfBinderType):
		return howSelf
	case k == reflect.String:
		return howString
	case k == reflect.Int64:
		return howInt
	case k == reflect.Bool:
		return howBool
	case k == reflect.Slice || k == reflect.Array:
		if e := howOf(t.Elem(), where); e != howList && e != howRaw {
			return howList
		}
	}
	panic("briefing: " + where + " has a type the binder does not take: " + t.String())
}

// argPlan is what the binder reads of a request type or a form, once per
// type (OpOf, the form plans).
type argPlan struct {
	args   []Argument
	how    []how          // by argument
	elem   []how          // by argument: how a list's elements are read
	byName map[string]int // argument index by name
	// kind names the plan's members in messages: "argument" for a tool's
	// arguments, "member" for a form's (SPEC section 5's one rule at every
	// depth).
	kind  string
	names string // the names, for messages
}

// planOf reads the arguments of t, a request type (kind "argument") or a
// form (kind "member"), and checks that the binder takes each field's
// type: string, int64, bool, a Raw, a selfBinder, or a slice or an array
// of one of the first three or a selfBinder.
func planOf(t reflect.Type, kind string) *argPlan {
	args := Arguments(t)
	if len(args) > 64 {
		panic("briefing: more than 64 arguments in " + t.String())
	}
	p := &argPlan{args: args, how: make([]how, len(args)), elem: make([]how, len(args)),
		byName: make(map[string]int, len(args)), kind: kind, names: "none"}
	names := make([]string, len(args))
	for i, a := range args {
		p.how[i] = howOf(a.Type, kind+" "+a.Name+" of "+t.String())
		if p.how[i] == howList {
			p.elem[i] = howOf(a.Type.Elem(), kind+" "+a.Name+" of "+t.String())
		}
		if a.MaxItems > 0 && a.Type.Kind() != reflect.Slice {
			panic("briefing: " + kind + " " + a.Name + " of " + t.String() + ": items= on a type that is not a slice")
		}
		p.byName[a.Name] = i
		names[i] = a.Name
	}
	if len(names) > 0 {
		p.names = strings.Join(names, ", ")
	}
	return p
}

// The plans of the forms that write_file's compose and splice and
// expand_edit's nodes hold (SPEC 5.1, 5.2).
var (
	splicePlan = planOf(reflect.TypeFor[SpliceForm](), "member")
	editPlan   = planOf(reflect.TypeFor[EditForm](), "member")
	partPlan   = planOf(reflect.TypeFor[PartForm](), "member")
)

// decode binds a tool call's arguments to v, a request struct of the
// plan's type (SPEC section 5), as bind binds any object. No arguments, or
// null, are an empty object.
//
// The arguments are a value of the index that the transport's one reading
// of the message built (in its mode that reports raw invalid UTF-8 instead
// of refusing it): they are walked, never scanned again, but when the
// message nests deeper than SPEC section 4.3's 1,000 levels, where the
// arguments alone are held to that limit (jsontape.Sub.Check).
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
	return p.bind(args.Index, args.Node, v)
}

// bind binds object n of ix to v, a struct of the plan's type, by the one
// rule of SPEC section 5 at every depth (a tool's arguments, a splice, an
// edit, a reference): an unknown or repeated name, a value of the wrong
// type, or a missing required one is invalid_argument, with one message
// for each fault whatever the depth; an optional one (a pointer field)
// given as null counts as omitted, and all other fields are required.
// Integers are JSON numbers with an integral value; beyond int64 they
// saturate, so that range checks answer them. Strings must be valid UTF-8,
// raw bytes and escapes alike; a field tagged `arg:"name,not_utf8"`
// answers not_utf8 with the offset in the decoded text instead, and one
// tagged `arg:"name,lenient"` takes the text as it is, for the tool to
// judge. A Raw field takes a value of its form's JSON type as it is, to be
// read further from the same index (an edit's nodes). Members are read in
// document order; the first fault is the answer.
func (p *argPlan) bind(ix *jsontape.Index, n jsontape.Node, v reflect.Value) *errcode.Error {
	d := binder{ix: ix, kind: p.kind}
	var seen uint64 // by argument
	for m, val := range ix.Members(n) {
		if m.InvalidUTF8 {
			return errcode.New(errcode.InvalidArgument, "%s name is not valid UTF-8", article(p.kind))
		}
		i, ok := p.byName[m.Name]
		if !ok {
			return errcode.New(errcode.InvalidArgument, "unknown %s %s; the %ss are %s", p.kind, quoted(m.Name), p.kind, p.names)
		}
		if seen&(1<<i) != 0 {
			return givenTwice(p.kind, m.Name)
		}
		seen |= 1 << i
		if err := d.field(v.FieldByIndex(p.args[i].index), p.args[i], p.how[i], p.elem[i], val); err != nil {
			return err
		}
	}
	return p.missing(seen)
}

// bindForm binds object n of ix to *form, a struct of the plan's type.
func (p *argPlan) bindForm(ix *jsontape.Index, n jsontape.Node, form any) *errcode.Error {
	return p.bind(ix, n, reflect.ValueOf(form).Elem())
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
			return errcode.New(errcode.InvalidArgument, "%s %s is required", p.kind, quoted(a.Name))
		}
	}
	return nil
}

// article is kind with its indefinite article: "an argument", "a member".
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// A binder reads the values of one object's members from the call's
// index; kind names them in messages ("argument", "member").
type binder struct {
	ix   *jsontape.Index
	kind string
}

// valueName names a value in messages: an argument or member, or element
// i of one (base/i, as a pointer names it); i is -1 for the member
// itself. It is made a string only for an error.
type valueName struct {
	base string
	i    int
}

func (v valueName) String() string {
	if v.i < 0 {
		return v.base
	}
	return v.base + "/" + strconv.Itoa(v.i)
}

// field reads value n of argument a into f, as h says (and elem, for a
// list's elements).
func (d binder) field(f reflect.Value, a Argument, h, elem how, n jsontape.Node) *errcode.Error {
	if d.ix.Kind(n) == jsontape.Null {
		if !a.Required {
			return nil
		}
		return errcode.New(errcode.InvalidArgument, "%s %s is required and cannot be null", d.kind, quoted(a.Name))
	}
	if !a.Required {
		f.Set(reflect.New(a.Type))
		f = f.Elem()
	}
	if h == howRaw {
		r := f.Addr().Interface().(rawSetter)
		if want := jsonKindOf(r.Form()); want != "" && d.ix.Kind(n) != want {
			return d.wrongType(valueName{a.Name, -1}, article(string(want)), n)
		}
		// The value where it is: both transports read each message into
		// its own buffer and never reuse it.
		r.set(d.ix.SubOf(n))
		return nil
	}
	return d.value(f, a, h, elem, valueName{a.Name, -1}, n)
}

// jsonKindOf is the JSON type of a Raw's form t: "" for an interface,
// which may hold any.
func jsonKindOf(t reflect.Type) jsontape.Type {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return jsontape.Array
	case reflect.Struct, reflect.Map:
		return jsontape.Object
	}
	return ""
}

// value reads value n into f, a value of argument a (the argument itself,
// or an element of its list) named name in messages, as h says (and
// elem, for a list's elements).
func (d binder) value(f reflect.Value, a Argument, h, elem how, name valueName, n jsontape.Node) *errcode.Error {
	switch h {
	case howSelf:
		return f.Addr().Interface().(selfBinder).bind(d, n, name)
	case howString:
		s, err := d.text(n, name, a.Opt)
		if err != nil {
			return err
		}
		f.SetString(s)
	case howInt:
		i, ok := d.integer(n)
		if !ok {
			return d.wrongType(name, "an integer", n)
		}
		f.SetInt(i)
	case howBool:
		if d.ix.Kind(n) != jsontape.Boolean {
			return d.wrongType(name, "a boolean", n)
		}
		f.SetBool(d.ix.SubOf(n).Bytes()[0] == 't')
	default: // howList
		return d.list(f, a, elem, name, n)
	}
	return nil
}

// list reads array n into f, a slice or an array whose elements are read
// as elem says: its count first (an array type's length, or the
// argument's items=LO-HI), then each element, named name/0, name/1 as a
// pointer would name it.
func (d binder) list(f reflect.Value, a Argument, elem how, name valueName, n jsontape.Node) *errcode.Error {
	t := f.Type()
	lo, hi := a.MinItems, a.MaxItems
	if t.Kind() == reflect.Array {
		lo, hi = t.Len(), t.Len()
	}
	want := func() string { return "an array of " + count(lo, hi) + many(t.Elem()) }
	if d.ix.Kind(n) != jsontape.Array {
		return d.wrongType(name, want(), n)
	}
	got := d.ix.Len(n)
	if hi > 0 && (got < lo || got > hi) {
		return errcode.New(errcode.InvalidArgument, "%s %s must be %s, not an array of %d", d.kind, quoted(name.String()), want(), got)
	}
	if t.Kind() == reflect.Slice {
		f.Set(reflect.MakeSlice(t, got, got))
	}
	for i, el := range d.ix.Elements(n) {
		if err := d.value(f.Index(i), a, elem, 0, valueName{name.base, i}, el); err != nil {
			return err
		}
	}
	return nil
}

// count says how many elements an array takes, for its want: "2 ", "1 or
// 2 ", "1 to 4 ", or "" (any).
func count(lo, hi int) string {
	switch {
	case hi == 0:
		return ""
	case lo == hi:
		return strconv.Itoa(lo) + " "
	case hi == lo+1:
		return strconv.Itoa(lo) + " or " + strconv.Itoa(hi) + " "
	}
	return strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + " "
}

// many names several values of type t, for an array's want.
func many(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(selfBinderType) {
		_, m := reflect.New(t).Interface().(selfBinder).wants()
		return m
	}
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Int64:
		return "integers"
	}
	return "booleans"
}

// integer reads number n as an integer: false when it is not a number or
// has no integral value.
func (d binder) integer(n jsontape.Node) (int64, bool) {
	if d.ix.Kind(n) != jsontape.Number {
		return 0, false
	}
	return jsontape.Integer(string(d.ix.SubOf(n).Bytes()))
}

// wrongType is the one error of a value of the wrong type, at any depth:
// it names the value (an argument, or a member by its path inside the
// object the error's at names) and what was given, so that the fix is
// plain: `argument "first" must be an integer, not "12"`, `member
// "lines/0" must be a line number or an anchor ("41#xy"), not 1.5`.
func (d binder) wrongType(name valueName, want string, n jsontape.Node) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "%s %s must be %s, not %s", d.kind, quoted(name.String()), want, given(d.ix, n))
}

// given names value n for a message: its type with an article, or, for a
// number or a boolean, the value as written (an integer is wanted, and 1.5
// says more than "a number").
func given(ix *jsontape.Index, n jsontape.Node) string {
	switch k := ix.Kind(n); k {
	case jsontape.Number, jsontape.Boolean:
		if start, end := ix.Span(n); end-start > 40 {
			return "a " + string(k)
		}
		return string(ix.SubOf(n).Bytes())
	case jsontape.Null:
		return "null"
	default:
		return article(string(k))
	}
}

// text reads a string, which must be valid UTF-8 unless opt says
// otherwise. A lone surrogate escape decodes to its 3-byte form, so it is
// invalid exactly as a raw invalid byte is (SPEC section 5).
func (d binder) text(n jsontape.Node, name valueName, opt string) (string, *errcode.Error) {
	if d.ix.Kind(n) != jsontape.String {
		return "", d.wrongType(name, "a string", n)
	}
	s, bad := d.ix.StringText(n)
	switch {
	case bad < 0 || opt == "lenient":
		return s, nil
	case opt == "not_utf8":
		return "", errcode.Offset(errcode.NotUTF8, int64(bad), "%s %s is not valid UTF-8 at byte %d of its text", d.kind, quoted(name.String()), bad)
	}
	return "", notUTF8(d.kind, name.String(), bad)
}

// notUTF8 is the one message of a string that is not valid UTF-8 at any
// depth (kind as givenTwice's), with the offset of its first bad byte in
// the decoded text.
func notUTF8(kind, name string, bad int) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "%s %s is not valid UTF-8 at byte %d of its text", kind, quoted(name), bad)
}
