package results

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextName is how a text content shows a name that the client chose (a
// path, an edit's pointer): as it is, unless it holds a control character
// (C0, DEL, C1) or a line or paragraph separator, any of which could end
// the line it is shown on and begin a forged one (a file named
// "n\nr9 file forged.go: ..." read as a second descriptor in inspect's
// text), or begins with a double quote, which would read as a quoted name;
// such a name is quoted as Go quotes it (strconv.Quote), as messages quote
// paths. The structured content carries the name exactly, JSON-escaped.
func TextName(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return strconv.Quote(s)
		}
		i += n
	}
	return s
}
