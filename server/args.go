package server

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"loom-results/errcode"
	"loom-results/selectors"
)

// decodeArgs binds a tool call's raw arguments to dst, a pointer to a struct
// whose fields carry `arg:"name"` tags (SPEC section 5): an unknown or
// repeated name, a value of the wrong type, or a missing required argument
// is invalid_argument; an optional argument (a pointer field) given as null
// counts as omitted. Integers are JSON numbers with an integral value;
// beyond int64 they saturate, so that range checks answer them. Strings must
// be valid UTF-8, raw bytes and escapes alike; a field tagged
// `arg:"name,not_utf8"` answers not_utf8 with the offset in the decoded text
// instead, and one tagged `arg:"name,lenient"` takes the text as it is, for
// the caller to judge. A json.RawMessage field takes any value's exact
// bytes, unchecked.
// Pointer fields are optional; all others are required.
func decodeArgs(raw []byte, dst any) *errcode.Error {
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	fields := make(map[string]int, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("arg"), ",")
		fields[name] = i
	}
	p := &argParser{data: raw}
	p.space()
	if p.done() || p.data[p.pos] == 'n' && p.literal("null") {
		raw = []byte("{}") // no arguments at all: every required one is missing
		p = &argParser{data: raw}
	}
	seen := make(map[string]bool, len(fields))
	err := p.object(func(name string) *errcode.Error {
		i, ok := fields[name]
		if !ok {
			return errcode.New(errcode.InvalidArgument, "unknown argument %q; the arguments are %s", name, names(t))
		}
		if seen[name] {
			return errcode.New(errcode.InvalidArgument, "argument %q is given twice", name)
		}
		seen[name] = true
		return p.field(v.Field(i), t.Field(i))
	})
	if err != nil {
		return err
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("arg"), ",")
		if !seen[name] && f.Type.Kind() != reflect.Pointer {
			return errcode.New(errcode.InvalidArgument, "argument %q is required", name)
		}
	}
	return nil
}

var rawType = reflect.TypeFor[json.RawMessage]()

func names(t reflect.Type) string {
	var b strings.Builder
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("arg"), ",")
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// argParser reads the JSON of tool arguments. The message as a whole was
// already parsed by the transport, but its strings may hold raw invalid
// UTF-8, which this parser reports instead of replacing.
type argParser struct {
	data  []byte
	pos   int
	depth int
}

// maxArgDepth bounds the nesting of argument values the parser walks.
const maxArgDepth = 10000

func (p *argParser) done() bool { return p.pos >= len(p.data) }

func (p *argParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *argParser) literal(s string) bool {
	if strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(s))]), s) {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *argParser) malformed() *errcode.Error {
	return errcode.Offset(errcode.InvalidArgument, int64(p.pos), "arguments are not valid JSON at byte %d", p.pos)
}

// object reads an object, calling member for each name with the parser at
// its value; member must consume the value.
func (p *argParser) object(member func(name string) *errcode.Error) *errcode.Error {
	p.space()
	if p.done() || p.data[p.pos] != '{' {
		return errcode.New(errcode.InvalidArgument, "arguments must be a JSON object")
	}
	p.pos++
	p.space()
	if !p.done() && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		p.space()
		name, bad, err := p.str()
		if err != nil {
			return err
		}
		if bad >= 0 {
			return errcode.New(errcode.InvalidArgument, "an argument name is not valid UTF-8")
		}
		p.space()
		if p.done() || p.data[p.pos] != ':' {
			return p.malformed()
		}
		p.pos++
		p.space()
		if err := member(name); err != nil {
			return err
		}
		p.space()
		if p.done() {
			return p.malformed()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.malformed()
		}
	}
}

// field reads the value of one argument into f.
func (p *argParser) field(f reflect.Value, sf reflect.StructField) *errcode.Error {
	name, opt, _ := strings.Cut(sf.Tag.Get("arg"), ",")
	if p.done() {
		return p.malformed()
	}
	if p.data[p.pos] == 'n' && p.literal("null") {
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
		start := p.pos
		if err := p.skip(); err != nil {
			return err
		}
		f.SetBytes(append([]byte(nil), p.data[start:p.pos]...))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		s, err := p.text(name, opt)
		if err != nil {
			return err
		}
		f.SetString(s)
	case reflect.Int64:
		n, err := p.integer(name)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Bool:
		switch {
		case p.literal("true"):
			f.SetBool(true)
		case p.literal("false"):
		default:
			return wrongType(name, "a boolean")
		}
	case reflect.Slice: // []string
		if p.data[p.pos] != '[' {
			return wrongType(name, "an array of strings")
		}
		p.pos++
		list := reflect.MakeSlice(f.Type(), 0, 4)
		p.space()
		if !p.done() && p.data[p.pos] == ']' {
			p.pos++
			f.Set(list)
			return nil
		}
		for {
			p.space()
			if p.done() {
				return p.malformed()
			}
			s, err := p.text(name, opt)
			if err != nil {
				return err
			}
			list = reflect.Append(list, reflect.ValueOf(s))
			p.space()
			if p.done() {
				return p.malformed()
			}
			if p.data[p.pos] == ']' {
				p.pos++
				f.Set(list)
				return nil
			}
			if p.data[p.pos] != ',' {
				return p.malformed()
			}
			p.pos++
		}
	default:
		panic("decodeArgs: unsupported field type " + f.Type().String())
	}
	return nil
}

func wrongType(name, want string) *errcode.Error {
	return errcode.New(errcode.InvalidArgument, "argument %q must be %s", name, want)
}

// text reads a string argument that must be valid UTF-8.
func (p *argParser) text(name, opt string) (string, *errcode.Error) {
	if p.done() || p.data[p.pos] != '"' {
		return "", wrongType(name, "a string")
	}
	s, bad, err := p.str()
	if err != nil {
		return "", err
	}
	if bad >= 0 && opt != "lenient" {
		if opt == "not_utf8" {
			return "", errcode.Offset(errcode.NotUTF8, int64(bad), "argument %q is not valid UTF-8 at byte %d of its text", name, bad)
		}
		return "", errcode.New(errcode.InvalidArgument, "argument %q is not valid UTF-8 at byte %d of its text", name, bad)
	}
	return s, nil
}

// str reads a JSON string and decodes it. Raw bytes are kept as they are and
// a lone surrogate escape becomes its 3-byte form, so the decoded text is
// valid UTF-8 exactly when the JSON text was; bad is the offset in the
// decoded text of the first invalid sequence, or -1.
func (p *argParser) str() (s string, bad int, err *errcode.Error) {
	if p.done() || p.data[p.pos] != '"' {
		return "", -1, p.malformed()
	}
	p.pos++
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			raw := p.data[start:p.pos]
			p.pos++
			return string(raw), invalidAt(raw), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	out := append(make([]byte, 0, p.pos-start+16), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), invalidAt(out), nil
		case c < 0x20:
			return "", -1, p.malformed()
		case c != '\\':
			out = append(out, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			return "", -1, p.malformed()
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", -1, p.malformed()
			}
			if utf16.IsSurrogate(r) && r < 0xdc00 && p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				if r2, ok := p.hex4(); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
					out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
					continue
				}
				p.pos = save
			}
			if utf16.IsSurrogate(r) {
				// Its 3-byte (WTF-8) form: invalid UTF-8, as SPEC 5 counts it.
				out = append(out, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", -1, p.malformed()
		}
	}
	return "", -1, p.malformed()
}

func (p *argParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

func invalidAt(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// integer reads a JSON number with an integral value (1, 1.0, 1e3),
// saturating at the int64 bounds.
func (p *argParser) integer(name string) (int64, *errcode.Error) {
	start := p.pos
	for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
		p.pos++
	}
	lex := string(p.data[start:p.pos])
	n, ok := selectors.JSONInteger(lex)
	if !ok {
		if lex == "" {
			return 0, wrongType(name, "an integer")
		}
		return 0, errcode.New(errcode.InvalidArgument, "argument %q must be an integer, not %s", name, lex)
	}
	return n, nil
}

// skip passes over one JSON value of any kind.
func (p *argParser) skip() *errcode.Error {
	p.space()
	if p.done() {
		return p.malformed()
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		for p.pos++; p.pos < len(p.data); p.pos++ {
			switch p.data[p.pos] {
			case '\\':
				p.pos++
			case '"':
				p.pos++
				return nil
			}
		}
		return p.malformed()
	case c == '{' || c == '[':
		p.depth++
		if p.depth > maxArgDepth {
			return errcode.New(errcode.InvalidArgument, "arguments nest deeper than %d levels", maxArgDepth)
		}
		defer func() { p.depth-- }()
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		p.pos++
		p.space()
		if !p.done() && p.data[p.pos] == closer {
			p.pos++
			return nil
		}
		for {
			if c == '{' {
				p.space()
				if _, _, err := p.str(); err != nil {
					return err
				}
				p.space()
				if p.done() || p.data[p.pos] != ':' {
					return p.malformed()
				}
				p.pos++
			}
			if err := p.skip(); err != nil {
				return err
			}
			p.space()
			if p.done() {
				return p.malformed()
			}
			if p.data[p.pos] == closer {
				p.pos++
				return nil
			}
			if p.data[p.pos] != ',' {
				return p.malformed()
			}
			p.pos++
		}
	default:
		start := p.pos
		for p.pos < len(p.data) && strings.IndexByte(",]} \t\r\n", p.data[p.pos]) < 0 {
			p.pos++
		}
		if p.pos == start {
			return p.malformed()
		}
		return nil
	}
}
