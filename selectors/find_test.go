package selectors

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func find(t *testing.T, text, pattern string, regex, fold bool, maxMatches int, maxBytes int64) Found {
	t.Helper()
	data := []byte(text)
	l, err := ScanText(data)
	require.Nil(t, err)
	m, err := NewMatcher(pattern, regex, fold)
	require.Nil(t, err)
	return Find(data, l, m, maxMatches, maxBytes)
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
		{"literal", "func", false, false, "1: func a() {}\n3: func b() {}\n", 2},
		{"literal folded", "func", false, true, "1: func a() {}\n3: func b() {}\n4: FUNC C\n", 3},
		{"regex anchors at line ends", `^func [ab]\(\) \{\}$`, true, false, "1: func a() {}\n3: func b() {}\n", 2},
		{"regex folded", `^func`, true, true, "1: func a() {}\n3: func b() {}\n4: FUNC C\n", 3},
		{"literal metacharacters stay literal", "()", false, false, "1: func a() {}\n3: func b() {}\n", 2},
		{"no match is empty", "nothing", false, false, "", 0},
		{"a literal never spans lines", "{}\r\nvar", false, false, "", 0},
		{"the line ending is not matched", "{}\r", false, false, "", 0},
		{"dollar before CRLF", `\{\}$`, true, false, "1: func a() {}\n3: func b() {}\n", 2},
		{"last line without newline", "funky", false, false, "5: funky\n", 1},
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
	assert.Equal(t, "1: \u212a\n3: k\n", got.Text)
	got = find(t, "\u212a\nſ\nS\n", "s", false, true, 20, 8192)
	assert.Equal(t, "2: ſ\n3: S\n", got.Text)
}

func TestFindMaxMatches(t *testing.T) {
	t.Parallel()
	got := find(t, strings.Repeat("x\n", 25), "x", false, false, 20, 8192)
	assert.Equal(t, 25, got.Total)
	assert.True(t, got.Truncated)
	assert.Len(t, got.Matches, 20)
	assert.True(t, strings.HasSuffix(got.Text, "20: x\n… 5 more\n"), got.Text)
}

func TestFindCutsLongLines(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("a", 239) + "€" + "tail"
	got := find(t, line+"\n", "tail", false, false, 20, 8192)
	require.Len(t, got.Matches, 1)
	assert.Equal(t, Match{Line: 1, Text: strings.Repeat("a", 239), Cut: true}, got.Matches[0])
	assert.Equal(t, "1: "+strings.Repeat("a", 239)+"…\n", got.Text)
}

func TestFindByteCap(t *testing.T) {
	t.Parallel()
	// Each entry "N: xxxxxxxx\n" is 12 bytes; "… 2 more\n" is 11.
	text := strings.Repeat("xxxxxxxx\n", 4)
	tests := []struct {
		name     string
		maxBytes int64
		want     string
		shown    int
	}{
		{"all fit", 48, "1: xxxxxxxx\n2: xxxxxxxx\n3: xxxxxxxx\n4: xxxxxxxx\n", 4},
		// Three entries would need 36 + "… 1 more\n" (11) = 47 > 46.
		{"room kept for the more line", 46, "1: xxxxxxxx\n2: xxxxxxxx\n… 2 more\n", 2},
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
	_, err := NewMatcher("", false, false)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidArgument, err.Code)
	_, err = NewMatcher("(", true, false)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidArgument, err.Code)
	_, err = NewMatcher("(", false, true)
	assert.Nil(t, err, "a folded literal is quoted, not parsed")
}
