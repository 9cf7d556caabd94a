package selectors

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// Pointer is a parsed RFC 6901 JSON pointer: its reference tokens, decoded.
// The zero Pointer is "", the whole document.
type Pointer struct {
	tokens []string
}

// ParsePointer parses an RFC 6901 JSON pointer (SPEC section 4.3): "" is the
// whole document; otherwise p starts with "/" and each "/" starts a token in
// which "~1" stands for "/" and "~0" for "~". Any other "~" (such as "~2" or
// a final "~") is invalid_pointer. A pointer that starts with "#" is the URI
// fragment form (RFC 6901 section 6): the rest is percent-decoded first,
// then parsed as above; a malformed "%" escape, or one that decodes to
// invalid UTF-8, is invalid_pointer. So is a pointer that is not valid UTF-8.
//
// The fragment form is read leniently: characters that a URI fragment would
// need percent-encoded (a space, say) are taken as they are.
func ParsePointer(p string) (Pointer, *errcode.Error) {
	if !utf8.ValidString(p) {
		off := ptrFirstInvalid(p)
		return Pointer{}, errcode.New(errcode.InvalidPointer,
			"pointer %q is not valid UTF-8 (byte 0x%02x at offset %d)", p, p[off], off)
	}
	s, form := p, ""
	if strings.HasPrefix(p, "#") {
		var err *errcode.Error
		if s, err = ptrPercentDecode(p); err != nil {
			return Pointer{}, err
		}
		form = fmt.Sprintf(" (decoded from the URI fragment %q)", p)
	}
	if s == "" {
		return Pointer{}, nil
	}
	if s[0] != '/' {
		return Pointer{}, errcode.New(errcode.InvalidPointer,
			"pointer %q%s must be \"\" or start with \"/\" (or be a URI fragment starting with \"#\")", s, form)
	}
	tokens := strings.Split(s[1:], "/")
	at := 1 // offset of the current token in s
	for i, tok := range tokens {
		if !strings.Contains(tok, "~") {
			at += len(tok) + 1
			continue
		}
		// Per RFC 6901 section 4, ~1 is decoded before ~0, so that "~01"
		// is "~1": a single left-to-right pass over "~x" pairs does that.
		var b strings.Builder
		for j := 0; j < len(tok); j++ {
			if tok[j] != '~' {
				b.WriteByte(tok[j])
				continue
			}
			if j+1 < len(tok) && (tok[j+1] == '0' || tok[j+1] == '1') {
				b.WriteByte("~/"[tok[j+1]-'0'])
				j++
				continue
			}
			return Pointer{}, errcode.New(errcode.InvalidPointer,
				"pointer %q%s: \"~\" at offset %d must be followed by 0 or 1 (\"~0\" is \"~\", \"~1\" is \"/\")", s, form, at+j)
		}
		tokens[i] = b.String()
		at += len(tok) + 1
	}
	return Pointer{tokens: tokens}, nil
}

// ptrPercentDecode decodes the URI fragment p ("#..."), dropping the "#".
func ptrPercentDecode(p string) (string, *errcode.Error) {
	s := p[1:]
	if !strings.Contains(s, "%") {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || jsontape.HexDigit(s[i+1]) < 0 || jsontape.HexDigit(s[i+2]) < 0 {
			return "", errcode.New(errcode.InvalidPointer,
				"pointer %q: malformed percent escape %q at offset %d: \"%%\" must be followed by two hex digits (\"%%25\" is \"%%\")",
				p, s[i:min(i+3, len(s))], i+1)
		}
		b = append(b, byte(jsontape.HexDigit(s[i+1])<<4|jsontape.HexDigit(s[i+2])))
		i += 2
	}
	if !utf8.Valid(b) {
		return "", errcode.New(errcode.InvalidPointer,
			"pointer %q decodes to %q, which is not valid UTF-8: percent escapes must spell whole UTF-8 characters", p, b)
	}
	return string(b), nil
}

// ptrFirstInvalid returns the offset of the first byte of s that does not
// start a valid UTF-8 sequence.
func ptrFirstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}

// Tokens returns a copy of the pointer's decoded reference tokens.
func (p Pointer) Tokens() []string { return append([]string(nil), p.tokens...) }

// Len returns the number of reference tokens; 0 is the whole document.
func (p Pointer) Len() int { return len(p.tokens) }

// Append returns p extended by the given tokens, taken as they are (no "~"
// escapes to decode). p is unchanged.
func (p Pointer) Append(tokens ...string) Pointer {
	all := make([]string, 0, len(p.tokens)+len(tokens))
	return Pointer{tokens: append(append(all, p.tokens...), tokens...)}
}

// ptrEscaper re-escapes a token; per RFC 6901 section 3, "~" becomes "~0"
// and "/" becomes "~1".
var ptrEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// String returns the pointer in its plain (not "#") form, each token
// re-escaped, so that ParsePointer(p.String()) gives p back.
func (p Pointer) String() string {
	var b strings.Builder
	for _, tok := range p.tokens {
		b.WriteByte('/')
		ptrEscaper.WriteString(&b, tok)
	}
	return b.String()
}

// prefix returns the first k tokens of p as a pointer for messages, with
// the whole document shown as "".
func (p Pointer) prefix(k int) string {
	if k == 0 {
		return `""`
	}
	s := Pointer{tokens: p.tokens[:k]}.String()
	if !printable(s) {
		// Messages are one line: a pointer holding a newline (or any
		// other control character) is quoted.
		return strconv.Quote(s)
	}
	return s
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}
