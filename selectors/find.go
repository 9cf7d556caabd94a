package selectors

import (
	"bytes"
	"errors"
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
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
	literal []byte       // one case-sensitive literal, searched by its rarest byte (literalHits)
	fold    *foldLiteral // one ASCII literal folded, searched by its rarest byte
	prog    *syntax.Prog // otherwise: every pattern, compiled together
	// rare, when above 0, is 1 + the index of the literal's byte to
	// search by, fixed by Tune for every text searched; 0: chosen for
	// each text from a sample of it.
	rare int
}

// Tune fixes the byte a literal is searched by to the rarest in sample,
// for a find over many texts (files) that would otherwise sample each
// one: for a file of a few KiB, the sample's counts cost more than the
// search.
func (m Matcher) Tune(sample []byte) Matcher {
	switch {
	case m.literal != nil:
		m.rare = 1 + rarestByte(m.literal, sample, false)
	case m.fold != nil:
		m.rare = 1 + m.fold.rarest(sample)
	}
	return m
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
	m := Matcher{}
	if len(p.List) == 1 && !p.Regex && p.IgnoreCase {
		m.fold = newFoldLiteral(p.List[0])
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
	// The program goes with a folded literal too: a text that holds the
	// Kelvin sign or the long s, which fold to k and s, is searched by it.
	m.prog = prog
	return m, nil
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
	Line   int    `json:"line"`
	Anchor string `json:"anchor"` // the line's anchor, "41#xy" (SPEC 4.4)
	Text   string `json:"text"`   // the line without its ending, cut to MaxFindLine bytes
	Cut    bool   `json:"cut"`
}

// Found is the answer of Find.
type Found struct {
	Matches   []Match
	Total     int    // every matching line
	Truncated bool   // more matched than Matches holds
	Text      string // the text content: "N#xy: <line>\n" per match, then "… N more\n"
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

// MoreLine is the last line of a find's text when n matches were
// withheld: "… N more\n".
func MoreLine(n int) string { return moreLine(n) }

// Each calls fn with the number of every line of data that m matches, in
// order, as Find finds them; it fails as Find does.
func (m Matcher) Each(data []byte, fn func(line int)) *errcode.Error {
	return m.each(data, Lines{}, fn)
}

// Entry returns line n of data as find shows it: the match, and its line
// of text "N#xy: <line>\n", its anchor first (cut, with "…", past
// MaxFindLine bytes).
func Entry(data []byte, lines Lines, n int) (Match, string) {
	e := findEntry(data, lines, n)
	return e.match, e.line
}

type entry struct {
	match Match
	line  string // "N#xy: <line>\n"
}

func findEntry(data []byte, lines Lines, n int) entry {
	c := lines.Content(n)
	// The anchor is the whole line's, whatever is shown of it.
	anchor := Anchor(n, AnchorChars(data[c.Start:c.End]))
	cut := false
	if c.Len() > MaxFindLine {
		c.End = FloorCharBoundary(data, c.Start+MaxFindLine)
		cut = true
	}
	text := string(data[c.Start:c.End])
	line := anchor + ": " + text
	if cut {
		line += Ellipsis
	}
	return entry{Match{Line: n, Anchor: anchor, Text: text, Cut: cut}, line + "\n"}
}

// each calls fn with the number of every matching line, in order.
func (m Matcher) each(data []byte, lines Lines, fn func(line int)) *errcode.Error {
	switch {
	case m.literal != nil:
		eachHit(data, len(m.literal), literalHits(data, m.literal, m.rare-1), fn)
		return nil
	case m.fold != nil && m.fold.exact(data):
		it := m.fold.iter(data, m.rare-1)
		eachHit(data, len(m.fold.pat), it.next, fn)
		return nil
	}
	return m.eachProgram(data, fn)
}

// eachHit calls fn with the number of every line that holds a hit of n
// bytes, hits found by next (the first at or after an offset, or -1), in
// one pass over data: the lines are counted as it goes, and after a hit the
// search goes on at the next line. A hit must lie in its line's content,
// which never holds "\n" and does not end with a "\r\n" ending's "\r".
func eachHit(data []byte, n int, next func(from int) int, fn func(line int)) {
	line, pos := 1, 0 // pos: where the search goes on; line: the line pos is on
	for pos < len(data) {
		at := next(pos)
		if at < 0 {
			return
		}
		line += bytes.Count(data[pos:at], newline)
		end := len(data) // the hit's line's end, its "\n" excluded
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		content := end
		if end < len(data) && end > 0 && data[end-1] == '\r' {
			content--
		}
		if at+n <= content {
			fn(line)
			pos, line = end+1, line+1
			continue
		}
		// The hit runs into the line's end ("\r\n" for a literal ending
		// in "\r", or the "\n" itself); try again one character later.
		_, size := utf8.DecodeRune(data[at:])
		pos = at + size
	}
}

// literalHits returns the search for the hits of a case-sensitive literal
// in data, each the first at or after an offset: bytes.IndexByte on the
// literal's byte r, or when r is -1 its rarest byte in data (rarestByte),
// each candidate checked in full.
// bytes.Index looks for the first byte, which in source is often among
// the commonest ("loomNeedle4b1d" meets an "l" every 20 bytes or so). When
// candidates fail more often than bytes.Index's own cutover allows, it
// takes over: its Rabin-Karp bounds the work by the text's size.
func literalHits(data, lit []byte, r int) func(from int) int {
	if r < 0 {
		r = rarestByte(lit, data, false)
	}
	c := lit[r]
	fails, start0 := 0, -1
	return func(from int) int {
		if start0 < 0 {
			start0 = from
		}
		for {
			if fails > 4+(from-start0)>>4 {
				if i := bytes.Index(data[from:], lit); i >= 0 {
					return from + i
				}
				return -1
			}
			at := indexFrom(data, c, from+r)
			if at < 0 {
				return -1
			}
			start := at - r
			if start+len(lit) <= len(data) && bytes.Equal(data[start:start+len(lit)], lit) {
				return start
			}
			fails++
			from = start + 1
		}
	}
}

// foldLiteral is one ASCII literal matched with folded case, searched by
// the byte of it that is rarest in the text searched: each candidate is
// found by bytes.IndexByte on that byte's cases and checked in full.
type foldLiteral struct {
	pat []byte // the pattern, ASCII letters lowered
	// fragile says the pattern holds k or s: Unicode simple folding also
	// matches them to the Kelvin sign (U+212A) and the long s (U+017F).
	fragile bool
}

// newFoldLiteral returns the fast search of a folded literal, or nil when
// the pattern is not all ASCII.
func newFoldLiteral(p string) *foldLiteral {
	f := &foldLiteral{pat: make([]byte, len(p))}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= utf8.RuneSelf {
			return nil
		}
		c = lower(c)
		f.pat[i] = c
		f.fragile = f.fragile || c == 'k' || c == 's'
	}
	return f
}

// rareSample is how much of a text the choice of the searched byte reads.
const rareSample = 64 << 10

// rarest returns the index in pat of the byte whose cases occur least in
// a sample of data (rarestByte).
func (f *foldLiteral) rarest(data []byte) int { return rarestByte(f.pat, data, true) }

// rarestByte returns the index in pat of the byte that occurs least in a
// sample of data (its start), both its cases when fold is set, ties broken
// by how seldom the byte occurs in text and code in general; a few
// candidates are counted, each with one bytes.Count over the sample.
func rarestByte(pat, data []byte, fold bool) int {
	sample := data[:min(len(data), rareSample)]
	best, bestCount, bestRank := 0, -1, -1
	counted := map[byte]int{}
	for i, c := range pat {
		n, ok := counted[c]
		if !ok {
			if len(counted) == 16 {
				continue // enough candidates; the rest keep the best so far
			}
			n = bytes.Count(sample, []byte{c})
			if up := upper(c); fold && up != c {
				n += bytes.Count(sample, []byte{up})
			}
			counted[c] = n
		}
		if r := rarity(c); bestCount < 0 || n < bestCount || n == bestCount && r > bestRank {
			best, bestCount, bestRank = i, n, r
		}
	}
	return best
}

// exact reports whether the fast search finds exactly what RE2's (?i)
// finds in data: unless the pattern holds k or s and data the runes that
// fold to them.
func (f *foldLiteral) exact(data []byte) bool {
	return f != nil && (!f.fragile || !bytes.Contains(data, []byte("\u212a")) && !bytes.Contains(data, []byte("\u017f")))
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// rarity ranks a byte by how seldom it occurs in text and code: letters
// by their English frequency, digits, punctuation that code is full of,
// other punctuation; white space is the commonest.
func rarity(c byte) int {
	const byFrequency = "etaoinsrhldcumfpgwybvkxjqz"
	switch {
	case c == ' ' || c == '\t':
		return 0
	case strings.IndexByte("(){},;.=:\"'", c) >= 0:
		return 5
	case 'a' <= c && c <= 'z':
		return 1 + 26 - strings.IndexByte(byFrequency, c)
	case '0' <= c && c <= '9':
		return 14
	}
	return 20
}

// foldIter finds the hits of a folded literal in data in increasing order.
type foldIter struct {
	f        *foldLiteral
	data     []byte
	rare     int  // the index in the pattern of the byte searched for
	lo, up   byte // that byte's two cases (the same when it is no letter)
	nlo, nup int  // the next offset of each case; -1 none, -2 not looked for
}

func (f *foldLiteral) iter(data []byte, r int) *foldIter {
	if r < 0 {
		r = f.rarest(data)
	}
	it := &foldIter{f: f, data: data, rare: r, lo: f.pat[r], up: upper(f.pat[r]), nlo: -2, nup: -2}
	if it.up == it.lo {
		it.nup = -1 // one case: one stream
	}
	return it
}

// next returns the first hit that starts at or after from, or -1.
func (it *foldIter) next(from int) int {
	f, data := it.f, it.data
	for {
		at := from + it.rare // where the rare byte of a hit at from would be
		if it.nlo != -1 && it.nlo < at {
			it.nlo = indexFrom(data, it.lo, at)
		}
		if it.nup != -1 && it.nup < at {
			it.nup = indexFrom(data, it.up, at)
		}
		c := it.nlo
		if c < 0 || it.nup >= 0 && it.nup < c {
			c = it.nup
		}
		if c < 0 {
			return -1
		}
		start := c - it.rare
		if start+len(f.pat) <= len(data) && equalFold(data[start:start+len(f.pat)], f.pat) {
			return start
		}
		from = start + 1
	}
}

// indexFrom is bytes.IndexByte from offset at, as an offset of data.
func indexFrom(data []byte, c byte, at int) int {
	if at >= len(data) {
		return -1
	}
	if i := bytes.IndexByte(data[at:], c); i >= 0 {
		return at + i
	}
	return -1
}

// equalFold reports whether b equals pat, ASCII letters of b lowered.
func equalFold(b, pat []byte) bool {
	for i, c := range b {
		if lower(c) != pat[i] {
			return false
		}
	}
	return true
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
