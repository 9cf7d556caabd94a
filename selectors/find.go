package selectors

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
)

// MaxFindLine is how many bytes of a matching line find shows (SPEC 5.3).
const MaxFindLine = 240

// Ellipsis marks a cut line and the count of withheld matches.
const Ellipsis = "…"

// Matcher matches one line, without its ending, against a pattern.
type Matcher struct {
	literal []byte         // case-sensitive literal; nil when re is set
	re      *regexp.Regexp // regex, or a literal folded as RE2's (?i) does
}

// NewMatcher compiles pattern: a literal substring, or with regex an RE2
// expression; ignoreCase folds as RE2's (?i) does, for literals too. An empty
// pattern or an invalid expression is invalid_argument.
func NewMatcher(pattern string, regex, ignoreCase bool) (Matcher, *errcode.Error) {
	if pattern == "" {
		return Matcher{}, errcode.New(errcode.InvalidArgument, "pattern is empty; give a substring or an expression to find")
	}
	if !regex && !ignoreCase {
		return Matcher{literal: []byte(pattern)}, nil
	}
	expr := pattern
	if !regex {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		why := err.Error()
		if serr := (*syntax.Error)(nil); errors.As(err, &serr) && !printable(serr.Expr) {
			// The parser's own text repeats the expression as it is, in
			// backquotes; a message is one line, so such a one is quoted.
			why = fmt.Sprintf("error parsing regexp: %s: %q", serr.Code, serr.Expr)
		}
		return Matcher{}, errcode.New(errcode.InvalidArgument, "pattern %q is not a valid RE2 expression: %s", pattern, why)
	}
	return Matcher{re: re}, nil
}

// Match is one matching line as find shows it.
type Match struct {
	Line int    `json:"line"`
	Text string `json:"text"` // the line without its ending, cut to MaxFindLine bytes
	Cut  bool   `json:"cut"`
}

// Found is the answer of Find.
type Found struct {
	Matches   []Match
	Total     int    // every matching line
	Truncated bool   // more matched than Matches holds
	Text      string // the text content: "N: <line>\n" per match, then "… N more\n"
}

// Find returns the lines of data that match m, in order (SPEC 5.3). Shown
// matches stop at maxMatches, or at the first match that, with the
// "… N more" line it would still need, would pass maxBytes of text.
func Find(data []byte, lines Lines, m Matcher, maxMatches int, maxBytes int64) Found {
	var shown []int // the first maxMatches matching line numbers
	total := 0
	m.each(data, lines, func(n int) {
		if len(shown) < maxMatches {
			shown = append(shown, n)
		}
		total++
	})
	f := Found{Total: total}
	var text []byte
	for i, n := range shown {
		entry := findEntry(data, lines, n)
		need := len(entry.line)
		if rest := total - i - 1; rest > 0 {
			need += len(moreLine(rest))
		}
		if int64(len(text)+need) > maxBytes {
			break
		}
		text = append(text, entry.line...)
		f.Matches = append(f.Matches, entry.match)
	}
	if rest := total - len(f.Matches); rest > 0 {
		f.Truncated = true
		if more := moreLine(rest); int64(len(text)+len(more)) <= maxBytes {
			text = append(text, more...)
		}
	}
	f.Text = string(text)
	return f
}

func moreLine(n int) string { return Ellipsis + " " + strconv.Itoa(n) + " more\n" }

type entry struct {
	match Match
	line  string // "N: <line>\n"
}

func findEntry(data []byte, lines Lines, n int) entry {
	c := lines.Content(n)
	cut := false
	if c.Len() > MaxFindLine {
		c.End = FloorCharBoundary(data, c.Start+MaxFindLine)
		cut = true
	}
	text := string(data[c.Start:c.End])
	line := strconv.Itoa(n) + ": " + text
	if cut {
		line += Ellipsis
	}
	return entry{Match{Line: n, Text: text, Cut: cut}, line + "\n"}
}

// each calls fn with the number of every matching line, in order.
func (m Matcher) each(data []byte, lines Lines, fn func(line int)) {
	if m.re != nil {
		for n, line := range lines.All() {
			c := contentOf(data, line)
			if m.re.Match(data[c.Start:c.End]) {
				fn(n)
			}
		}
		return
	}
	// A line's content never holds '\n', so such a literal never matches.
	if bytes.IndexByte(m.literal, '\n') >= 0 {
		return
	}
	// Search the whole result at once and keep the hits that lie inside one
	// line's content; after a hit, go on at the next line.
	for pos := 0; pos < len(data); {
		i := bytes.Index(data[pos:], m.literal)
		if i < 0 {
			return
		}
		at := pos + i
		n := lines.LineAt(at)
		if c := lines.Content(n); at+len(m.literal) <= c.End {
			fn(n)
			pos = lines.Start(n + 1)
			continue
		}
		// The hit runs into the line ending (a literal ending in '\r'); try
		// again one character later.
		_, size := utf8.DecodeRune(data[at:])
		pos = at + size
	}
}
