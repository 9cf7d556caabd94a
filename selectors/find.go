package selectors

import (
	"bytes"
	"errors"
	"fmt"
	"regexp/syntax"
	"strconv"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
)

// MaxFindLine is how many bytes of a matching line find shows (SPEC 5.3).
const MaxFindLine = 240

// Ellipsis marks a cut line and the count of withheld matches.
const Ellipsis = "…"

// The bounds of one find (SPEC 5.3): how many patterns, how long each,
// and how large a program they compile to together. With the DFA's work
// budget they keep any find over a 16 MiB result well under a second.
const (
	MaxPatterns     = 16
	MaxPatternBytes = 1024
	MaxProgram      = 4096 // instructions of the compiled patterns together
	// findWork is the instructions a find may visit building DFA states;
	// a cached step visits none. About 0.2 s of work on the development
	// machine (BenchmarkFindWorst).
	findWork = 32 << 20
)

// Matcher matches one line, without its ending, against the patterns of
// one find: a line matches when it contains any of them.
type Matcher struct {
	literal []byte       // one case-sensitive literal, searched with bytes.Index
	prog    *syntax.Prog // otherwise: every pattern, compiled together
}

// Patterns is what a find looks for: literals, or with Regex RE2
// expressions; IgnoreCase folds as RE2's (?i) does, for literals too.
// Several says they came as find's "patterns" argument (even one of
// them), so that messages name each as patterns/i.
type Patterns struct {
	List       []string
	Regex      bool
	IgnoreCase bool
	Several    bool
}

// name is how a message names pattern i.
func (p Patterns) name(i int) string {
	if p.Several {
		return "patterns/" + strconv.Itoa(i)
	}
	return "pattern"
}

// NewMatcher compiles the patterns into one matcher, so that a find makes
// one pass over the result for all of them. An empty pattern, an invalid
// expression, or one past the caps (MaxPatterns, MaxPatternBytes,
// MaxProgram) is invalid_argument.
func NewMatcher(p Patterns) (Matcher, *errcode.Error) {
	if n := len(p.List); n < 1 || n > MaxPatterns {
		return Matcher{}, errcode.New(errcode.InvalidArgument, "patterns has %d entries; give 1 to %d", n, MaxPatterns)
	}
	for i, pat := range p.List {
		switch {
		case pat == "":
			return Matcher{}, errcode.New(errcode.InvalidArgument, "%s is empty; give a substring or an expression to find", p.name(i))
		case len(pat) > MaxPatternBytes:
			return Matcher{}, errcode.New(errcode.InvalidArgument,
				"%s is %d bytes, over the %d-byte cap of a find pattern", p.name(i), len(pat), MaxPatternBytes)
		}
	}
	if len(p.List) == 1 && !p.Regex && !p.IgnoreCase {
		return Matcher{literal: []byte(p.List[0])}, nil
	}
	subs := make([]*syntax.Regexp, len(p.List))
	for i, pat := range p.List {
		re, why := parsePattern(pat, p.Regex, p.IgnoreCase)
		if re == nil {
			return Matcher{}, errcode.New(errcode.InvalidArgument, "%s %q is not a valid RE2 expression: %s", p.name(i), pat, why)
		}
		subs[i] = re
	}
	re := subs[0]
	if len(subs) > 1 {
		re = &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
	}
	prog, err := syntax.Compile(re)
	if err != nil {
		return Matcher{}, errcode.New(errcode.InvalidArgument, "the patterns do not compile: %s", err)
	}
	if len(prog.Inst) > MaxProgram {
		return Matcher{}, errcode.New(errcode.InvalidArgument,
			"the patterns compile to %d instructions, over the cap of %d; use fewer or simpler expressions, or literals",
			len(prog.Inst), MaxProgram)
	}
	return Matcher{prog: prog}, nil
}

// parsePattern parses one pattern as regexp.Compile would parse it: an
// expression under Perl flags, prefixed with (?i) to fold, or a literal
// (folded with the same Unicode simple folding).
func parsePattern(pat string, regex, ignoreCase bool) (*syntax.Regexp, string) {
	flags := syntax.Perl
	expr := pat
	switch {
	case !regex:
		flags = syntax.Literal
		if ignoreCase {
			flags |= syntax.FoldCase
		}
	case ignoreCase:
		expr = "(?i)" + pat
	}
	re, err := syntax.Parse(expr, flags)
	if err != nil {
		why := err.Error()
		if serr := (*syntax.Error)(nil); errors.As(err, &serr) && !printable(serr.Expr) {
			// The parser's own text repeats the expression as it is, in
			// backquotes; a message is one line, so such a one is quoted.
			why = fmt.Sprintf("error parsing regexp: %s: %q", serr.Code, serr.Expr)
		}
		return nil, why
	}
	return re.Simplify(), ""
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
// "… N more" line it would still need, would pass maxBytes of text. An
// expression whose search passes the work bound fails with
// invalid_argument.
func Find(data []byte, lines Lines, m Matcher, maxMatches int, maxBytes int64) (Found, *errcode.Error) {
	var shown []int // the first maxMatches matching line numbers
	total := 0
	if err := m.each(data, lines, func(n int) {
		if len(shown) < maxMatches {
			shown = append(shown, n)
		}
		total++
	}); err != nil {
		return Found{}, err
	}
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
	return f, nil
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
func (m Matcher) each(data []byte, lines Lines, fn func(line int)) *errcode.Error {
	if m.prog != nil {
		return m.eachProgram(data, fn)
	}
	// A line's content never holds '\n', so such a literal never matches.
	if bytes.IndexByte(m.literal, '\n') >= 0 {
		return nil
	}
	// Search the whole result at once and keep the hits that lie inside one
	// line's content; after a hit, go on at the next line.
	for pos := 0; pos < len(data); {
		i := bytes.Index(data[pos:], m.literal)
		if i < 0 {
			return nil
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
	return nil
}

// eachProgram runs the compiled patterns over each line's content in turn,
// the lines found as it goes.
func (m Matcher) eachProgram(data []byte, fn func(line int)) *errcode.Error {
	d := newLineDFA(m.prog, findWork)
	for n, pos := 1, 0; pos < len(data); n++ {
		end := len(data)
		next := end
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
			if end > pos && data[end-1] == '\r' {
				end--
			}
		}
		matched, ok := d.matchLine(data[pos:end])
		if !ok {
			return errcode.New(errcode.InvalidArgument,
				"the search passed its bound of %d steps at line %d of %d bytes: the expression is too costly for this result; use a literal or a simpler expression",
				findWork, n, len(data))
		}
		if matched {
			fn(n)
		}
		pos = next
	}
	return nil
}
