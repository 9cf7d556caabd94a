package selectors

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func find(t *testing.T, text, pattern string, regex, fold bool, maxMatches int, maxBytes int64) Found {
	t.Helper()
	data := []byte(text)
	l, err := ScanText(data)
	require.Nil(t, err)
	m, err := NewMatcher(Patterns{List: []string{pattern}, Regex: regex, IgnoreCase: fold})
	require.Nil(t, err)
	f, err := Find(data, l, m, maxMatches, maxBytes)
	require.Nil(t, err)
	return f
}

func TestFind(t *testing.T) {
	t.Parallel()
	text := "func a() {}\r\nvar x = 1\nfunc b() {}\nFUNC C\nfunky"
	tests := []struct {
		name    string
		pattern string
		regex   bool
		fold    bool
		want    string
		total   int
	}{
		{"literal", "func", false, false, "1#bo: func a() {}\n3#ur: func b() {}\n", 2},
		{"literal folded", "func", false, true, "1#bo: func a() {}\n3#ur: func b() {}\n4#yp: FUNC C\n", 3},
		{"regex anchors at line ends", `^func [ab]\(\) \{\}$`, true, false, "1#bo: func a() {}\n3#ur: func b() {}\n", 2},
		{"regex folded", `^func`, true, true, "1#bo: func a() {}\n3#ur: func b() {}\n4#yp: FUNC C\n", 3},
		{"literal metacharacters stay literal", "()", false, false, "1#bo: func a() {}\n3#ur: func b() {}\n", 2},
		{"no match is empty", "nothing", false, false, "", 0},
		{"a literal never spans lines", "{}\r\nvar", false, false, "", 0},
		{"the line ending is not matched", "{}\r", false, false, "", 0},
		{"dollar before CRLF", `\{\}$`, true, false, "1#bo: func a() {}\n3#ur: func b() {}\n", 2},
		{"last line without newline", "funky", false, false, "5#p6: funky\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := find(t, text, tt.pattern, tt.regex, tt.fold, 20, 8192)
			assert.Equal(t, tt.want, got.Text)
			assert.Equal(t, tt.total, got.Total)
			assert.False(t, got.Truncated)
		})
	}
}

func TestFindUnicodeFolding(t *testing.T) {
	t.Parallel()
	// RE2's (?i) folds K with the Kelvin sign and ſ with s.
	got := find(t, "\u212a\nſ\nk\n", "k", false, true, 20, 8192)
	assert.Equal(t, "1#fp: \u212a\n3#qj: k\n", got.Text)
	got = find(t, "\u212a\nſ\nS\n", "s", false, true, 20, 8192)
	assert.Equal(t, "2#hj: ſ\n3#rx: S\n", got.Text)
}

func TestFindMaxMatches(t *testing.T) {
	t.Parallel()
	got := find(t, strings.Repeat("x\n", 25), "x", false, false, 20, 8192)
	assert.Equal(t, 25, got.Total)
	assert.True(t, got.Truncated)
	assert.Len(t, got.Matches, 20)
	assert.True(t, strings.HasSuffix(got.Text, "20#fv: x\n… 5 more\n"), got.Text)
}

func TestFindCutsLongLines(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("a", 239) + "€" + "tail"
	got := find(t, line+"\n", "tail", false, false, 20, 8192)
	require.Len(t, got.Matches, 1)
	assert.Equal(t, Match{Line: 1, Anchor: "1#ec", Text: strings.Repeat("a", 239), Cut: true}, got.Matches[0])
	assert.Equal(t, "1#ec: "+strings.Repeat("a", 239)+"…\n", got.Text)
}

func TestFindByteCap(t *testing.T) {
	t.Parallel()
	// Each entry "N#jt: xxxxxxxx\n" is 15 bytes; "… 2 more\n" is 11.
	text := strings.Repeat("xxxxxxxx\n", 4)
	tests := []struct {
		name     string
		maxBytes int64
		want     string
		shown    int
	}{
		{"all fit", 60, "1#jt: xxxxxxxx\n2#jt: xxxxxxxx\n3#jt: xxxxxxxx\n4#jt: xxxxxxxx\n", 4},
		// Three entries would need 45 + "… 1 more\n" (11) = 56 > 55.
		{"room kept for the more line", 55, "1#jt: xxxxxxxx\n2#jt: xxxxxxxx\n… 2 more\n", 2},
		{"only the more line fits", 11, "… 4 more\n", 0},
		{"not even the more line fits", 10, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := find(t, text, "x", false, false, 20, tt.maxBytes)
			assert.Equal(t, tt.want, got.Text)
			assert.Len(t, got.Matches, tt.shown)
			assert.Equal(t, 4, got.Total)
			assert.Equal(t, tt.shown < 4, got.Truncated)
			assert.LessOrEqual(t, int64(len(got.Text)), tt.maxBytes)
		})
	}
}

func TestNewMatcherErrors(t *testing.T) {
	t.Parallel()
	one := func(p string, regex, fold bool) Patterns {
		return Patterns{List: []string{p}, Regex: regex, IgnoreCase: fold}
	}
	_, err := NewMatcher(one("", false, false))
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidArgument, err.Code)
	_, err = NewMatcher(one("(", true, false))
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidArgument, err.Code)
	_, err = NewMatcher(one("(", false, true))
	assert.Nil(t, err, "a folded literal is quoted, not parsed")
}

// TestFindMatchesRegexp holds the compiled search to Go's regexp, line by
// line, over expressions with every kind of instruction: anchors, word
// boundaries, classes, folding, alternation, repetition, empty matches
// and non-ASCII runes, and several patterns at once.
func TestFindMatchesRegexp(t *testing.T) {
	t.Parallel()
	text := "func a() {}\r\nvar x = 1\nFUNC Ω b\n\n  indented\tTab\nωmega Ωmega\nkelvin \u212a and ſ\naaab\nab\r\nend"
	exprs := []string{
		`^func`, `\}$`, `^$`, `\bx\b`, `\Bdent`, `[[:upper:]]{2,}`, `\d+`, `(?i)ωMEGA`, `a*b`, `a+?b$`,
		`^\s+\w+\t`, `x|y|z`, `(?i)k`, `(?i)S`, `.`, `^.{3}$`, `(a|ab)(c|bcd)?`, `\pL+ \pL+$`, `\A\z`, `(?m)^a`,
		`(?s).+`, `[^a-z ]`, `\x{212a}`, `b\b`, `=\s1`, `(?i:FUNC) a`, `^(?:a|b)*$`, `q?`,
	}
	lines := strings.Split(text, "\n")
	for _, expr := range exprs {
		for _, fold := range []bool{false, true} {
			re := regexp.MustCompile(map[bool]string{false: "", true: "(?i)"}[fold] + expr)
			var want []int
			for i, l := range lines {
				if re.MatchString(strings.TrimSuffix(l, "\r")) {
					want = append(want, i+1)
				}
			}
			got := find(t, text, expr, true, fold, 100, 1<<20)
			var lineNums []int
			for _, m := range got.Matches {
				lineNums = append(lineNums, m.Line)
			}
			assert.Equal(t, want, lineNums, "%q fold=%v", expr, fold)
		}
	}
	// Several patterns: any of them.
	l, err := ScanText([]byte(text))
	require.Nil(t, err)
	m, err := NewMatcher(Patterns{List: []string{`^var`, `Tab$`, `^ab`}, Regex: true, Several: true})
	require.Nil(t, err)
	got, err := Find([]byte(text), l, m, 100, 1<<20)
	require.Nil(t, err)
	assert.Equal(t, "2#g6: var x = 1\n5#wv:   indented\tTab\n9#7o: ab\n", got.Text)
	m, err = NewMatcher(Patterns{List: []string{"Ω", "kelvin", "ab"}, Several: true})
	require.Nil(t, err)
	got, err = Find([]byte(text), l, m, 100, 1<<20)
	require.Nil(t, err)
	assert.Equal(t, "3#cl: FUNC Ω b\n5#wv:   indented\tTab\n6#vk: ωmega Ωmega\n7#dn: kelvin \u212a and ſ\n8#qx: aaab\n9#7o: ab\n", got.Text)
	m, err = NewMatcher(Patterns{List: []string{"func", "K"}, IgnoreCase: true, Several: true})
	require.Nil(t, err)
	got, err = Find([]byte(text), l, m, 100, 1<<20)
	require.Nil(t, err)
	assert.Equal(t, "1#bo: func a() {}\n3#cl: FUNC Ω b\n7#dn: kelvin \u212a and ſ\n", got.Text)
}

// TestNewMatcherPatterns: the bounds of patterns (SPEC 5.3 and the work
// bound), each error naming the pattern by its index.
func TestNewMatcherPatterns(t *testing.T) {
	t.Parallel()
	several := func(regex bool, list ...string) Patterns { return Patterns{List: list, Regex: regex, Several: true} }
	tests := []struct {
		name string
		p    Patterns
		msg  string
	}{
		{"none", several(false), "patterns has 0 entries; give 1 to 16"},
		{"seventeen", several(false, strings.Split(strings.Repeat("a,", 17)[:33], ",")...), "patterns has 17 entries; give 1 to 16"},
		{"an empty one", several(false, "a", ""), "patterns/1 is empty; give a substring or an expression to find"},
		{"an invalid one", several(true, "a", "b", "(c"), "patterns/2 \"(c\" is not a valid RE2 expression: error parsing regexp: missing closing ): `(c`"},
		{"one too long", several(false, "a", strings.Repeat("x", 1025)), "patterns/1 is 1025 bytes, over the 1024-byte cap of a find pattern"},
		{"a single pattern too long", Patterns{List: []string{strings.Repeat("x", 1025)}}, "pattern is 1025 bytes, over the 1024-byte cap of a find pattern"},
		{"a program too large", several(true, `[a-z]{1000}b`, `[a-z]{1000}c`, `[a-z]{1000}d`, `[a-z]{1000}e`, `[a-z]{100}f`),
			"the patterns compile to 4111 instructions, over the cap of 4096; use fewer or simpler expressions, or literals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewMatcher(tt.p)
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidArgument, err.Code)
			assert.Equal(t, tt.msg, err.Msg)
		})
	}
	_, err := NewMatcher(several(true, `[a-z]{1000}b`))
	assert.Nil(t, err, "a thousand repetitions are within the caps")
}

// TestFindWorkBound: a search whose DFA keeps building new states stops
// at the work bound with invalid_argument instead of running on, and a
// costly-looking but cacheable one finishes.
func TestFindWorkBound(t *testing.T) {
	t.Parallel()
	// Every a or b after an a 20 places back doubles the states: (a|b)*a(a|b){20}
	// needs up to 2^21 of them, far past the cache.
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = "ab"[rng.IntN(2)]
	}
	l, err := ScanText(data)
	require.Nil(t, err)
	m, err := NewMatcher(Patterns{List: []string{`(a|b)*a(a|b){20}c`}, Regex: true})
	require.Nil(t, err)
	_, err = Find(data, l, m, 20, 8192)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidArgument, err.Code)
	assert.Contains(t, err.Msg, "the search passed its bound of 33554432 steps at line 1")

	// Two 64 KiB lines of a: [a-z]{1000}b builds about 1,000 states once.
	data = []byte(strings.Repeat("a", 64<<10) + "\n" + strings.Repeat("a", 64<<10) + "\n")
	l, err = ScanText(data)
	require.Nil(t, err)
	m, err = NewMatcher(Patterns{List: []string{`[a-z]{1000}b`}, Regex: true})
	require.Nil(t, err)
	got, err := Find(data, l, m, 1, 8192)
	require.Nil(t, err)
	assert.Equal(t, 0, got.Total)
}

// FuzzFindRegexp compares the compiled search with Go's regexp, line by
// line, for any expression both accept and any valid UTF-8 text.
func FuzzFindRegexp(f *testing.F) {
	f.Add(`^a\b`, "a b\nab\n", false)
	f.Add(`(?i)k|ſ`, "\u212a\nK\nx\n", true)
	f.Add(`x*$`, "\r\n\n", false)
	f.Add(`[^\n]`, "é\n\n", false)
	f.Fuzz(func(t *testing.T, expr, text string, fold bool) {
		if !utf8.ValidString(text) || !utf8.ValidString(expr) || expr == "" || len(expr) > MaxPatternBytes {
			return
		}
		prefix := ""
		if fold {
			prefix = "(?i)"
		}
		re, err := regexp.Compile(prefix + expr)
		if err != nil {
			return
		}
		m, cerr := NewMatcher(Patterns{List: []string{expr}, Regex: true, IgnoreCase: fold})
		if cerr != nil {
			require.Contains(t, cerr.Msg, "over the cap", "%q compiles for regexp", expr)
			return
		}
		data := []byte(text)
		l, serr := ScanText(data)
		require.Nil(t, serr)
		var want []int
		for n, span := range l.All() {
			if re.Match(data[contentOf(data, span).Start:contentOf(data, span).End]) {
				want = append(want, n)
			}
		}
		var got []int
		werr := m.each(data, l, func(n int) { got = append(got, n) })
		if werr != nil {
			return // past the work bound
		}
		assert.Equal(t, want, got, "%q over %q", expr, text)
	})
}

// BenchmarkFindWorst runs finds over 16 MiB that cost the most the caps
// allow: a single 16 MiB line, the largest program, a DFA that outgrows
// its cache, Unicode folding, sixteen patterns, no match anywhere.
func BenchmarkFindWorst(b *testing.B) {
	source := benchSource(16 << 20)
	oneLine := bytes.Repeat([]byte("a"), 16<<20)
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 16<<20)
	for i := range random {
		random[i] = "ab\n"[min(2, rng.IntN(40))]
	}
	sixteen := make([]string, 16)
	for i := range sixteen {
		sixteen[i] = "handler" + strconv.Itoa(i) + "_missing"
	}
	for _, bc := range []struct {
		name string
		data []byte
		p    Patterns
	}{
		{"literal", source, Patterns{List: []string{"no such text"}}},
		{"literal-fold", source, Patterns{List: []string{"NO SUCH TEXT"}, IgnoreCase: true}},
		{"literal-fold-unicode", source, Patterns{List: []string{"ωmega"}, IgnoreCase: true}},
		{"sixteen-literals", source, Patterns{List: sixteen}},
		{"regex-class", source, Patterns{List: []string{`\w+Error\(`}, Regex: true}},
		{"regex-rep1000-one-line", oneLine, Patterns{List: []string{`[a-z]{1000}b`}, Regex: true}},
		{"regex-4-rep1000", source, Patterns{List: []string{`[a-z]{1000}b`, `[a-z]{1000}c`, `[a-z]{1000}d`, `[a-z]{1000}e`}, Regex: true}},
		{"regex-blowup", random, Patterns{List: []string{`(a|b)*a(a|b){12}c`}, Regex: true}},
	} {
		l, err := ScanText(bc.data)
		require.Nil(b, err)
		m, cerr := NewMatcher(bc.p)
		require.Nil(b, cerr)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				Find(bc.data, l, m, 20, 8192)
			}
		})
	}
}

// benchSource is n bytes of Go-like source lines.
func benchSource(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\tfunc (s *Server) handle%d(ctx context.Context, req Request) error { return nil }\n", i)
	}
	return b.Bytes()[:n]
}

// BenchmarkFind16MiB is find over 16 MiB of source lines, the cases
// `grep -F -c` and `grep -c -i` are measured against (cmd/loom-perf): a
// literal on one line and on every line, and the same folded.
func BenchmarkFind16MiB(b *testing.B) {
	data := benchSource(16 << 20)
	l, err := ScanText(data)
	require.Nil(b, err)
	for _, bc := range []struct {
		name string
		p    Patterns
	}{
		{"literal-one-line", Patterns{List: []string{"handle12345("}}},
		{"literal-every-line", Patterns{List: []string{"Request) error"}}},
		{"fold-one-line", Patterns{List: []string{"HANDLE12345("}, IgnoreCase: true}},
		{"fold-every-line", Patterns{List: []string{"REQUEST) ERROR"}, IgnoreCase: true}},
		{"fold-none", Patterns{List: []string{"NO SUCH"}, IgnoreCase: true}},
		{"two-literals", Patterns{List: []string{"handle12345(", "handle54321("}}},
	} {
		m, cerr := NewMatcher(bc.p)
		require.Nil(b, cerr)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Find(data, l, m, 20, 8192)
			}
		})
	}
}

// TestFindFoldedLiteral holds the fast search of folded ASCII literals
// (and of plain literals) to Go's regexp, line by line, over random texts
// with CRLF endings, lone CRs, the runes that fold to k and s, and runes
// whose lower case is ASCII but whose simple folding is not (İ, ı).
func TestFindFoldedLiteral(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	alphabet := []string{"a", "B", "k", "S", "s", "K", "x", "\r", "\r\n", "\n", " ", "\u212a", "\u017f", "İ", "ı", "é", "-", "ab", "Ab"}
	patterns := []string{"a", "ab", "AB", "k", "S", "sk", "b\r", "x a", "-", "ka", "İ", "abab", "é"}
	for round := range 400 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		text := b.String()
		if round%2 == 0 {
			// Half the texts hold no rune that folds to k or s, so that the
			// fast search runs.
			text = strings.NewReplacer("\u212a", "K", "\u017f", "s").Replace(text)
		}
		data := []byte(text)
		l, err := ScanText(data)
		require.Nil(t, err)
		for _, p := range patterns {
			for _, fold := range []bool{false, true} {
				m, cerr := NewMatcher(Patterns{List: []string{p}, IgnoreCase: fold})
				require.Nil(t, cerr)
				prefix := ""
				if fold {
					prefix = "(?i)"
				}
				re := regexp.MustCompile(prefix + regexp.QuoteMeta(p))
				var want, got []int
				for n, span := range l.All() {
					c := contentOf(data, span)
					if re.Match(data[c.Start:c.End]) {
						want = append(want, n)
					}
				}
				require.Nil(t, m.each(data, l, func(n int) { got = append(got, n) }))
				require.Equal(t, want, got, "%q fold=%v in %q", p, fold, text)
			}
		}
	}
	m, _ := NewMatcher(Patterns{List: []string{"sk"}, IgnoreCase: true})
	require.NotNil(t, m.fold)
	assert.True(t, m.fold.exact([]byte("SK sk")))
	assert.False(t, m.fold.exact([]byte("s\u212a")), "the Kelvin sign folds to k: the program searches")
	m, _ = NewMatcher(Patterns{List: []string{"é"}, IgnoreCase: true})
	assert.Nil(t, m.fold, "a non-ASCII pattern folds through the program")
}

// TestLiteralHits holds the rarest-byte search of a case-sensitive literal
// to bytes.Index from every offset: on text where the rarest byte is
// everywhere (so that the fallback to bytes.Index takes over), where a
// candidate overlaps the next hit, and at the text's end.
func TestLiteralHits(t *testing.T) {
	t.Parallel()
	cases := []struct{ data, lit string }{
		{strings.Repeat("a", 5000) + "b" + strings.Repeat("a", 300) + "ab", "aab"},
		{strings.Repeat("ab", 3000) + "abc", "ababc"},
		{"xx loomNeedle4b1d yy\nlen(loom) loomNeedle4b1", "loomNeedle4b1d"},
		{"q", "q"},
		{"", "q"},
		{"zzzq", "zq"},
		{strings.Repeat("\x00\xff", 40000) + "\xff\x00", "\xff\x00\xff\x00"},
	}
	for _, c := range cases {
		data, lit := []byte(c.data), []byte(c.lit)
		next := literalHits(data, lit, -1)
		for from := 0; from <= len(data); from++ {
			want := bytes.Index(data[from:], lit)
			if want >= 0 {
				want += from
			}
			if got := next(from); got != want {
				t.Fatalf("%q in %.40q... from %d: got %d, want %d", c.lit, c.data, from, got, want)
			}
		}
	}
}
