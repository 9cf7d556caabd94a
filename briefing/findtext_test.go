package briefing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// TestFindSaysWhatItSkipped: a find always says something (SPEC 5.3): no
// match is the line "no match in <ID>" or "no match in N files" (N the
// files searched, the word always plural), and a find over paths that
// skipped files ends with the line that names at most 5 of them in walk
// order with their codes, then " and M more". The text cap counts that
// line as it counts "… N more", and keeps it when matches are withheld
// for it; when not even it fits, the text is empty.
func TestFindSaysWhatItSkipped(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.go":     "package a\n",
		"b.png":    "\x89PNG\r\n\x1a\n\x00\xff",
		"big.log":  strings.Repeat("TODO\n", 20), // 100 bytes, over --max-result-bytes 64
		"m.txt":    strings.Repeat("x\n", 10),
		"only/big": strings.Repeat("TODO\n", 20),
		"only/ok":  "nothing here\n",
	}
	for i := range 6 {
		files["z/"+string(rune('1'+i))+".bin"] = "\xff"
	}
	const six = "skipped 9 files: b.png (not_utf8), big.log (too_large), only/big (too_large), z/1.bin (not_utf8), z/2.bin (not_utf8) and 4 more\n"
	// The match lines as find shows them, whatever their prefix.
	entry := func(data string, n int) string {
		text, err := results.Analyze([]byte(data))
		require.Nil(t, err)
		_, line := selectors.Entry(text.Data, text.Lines, n)
		return line
	}
	mLines := func(n int) string {
		var sb strings.Builder
		for i := 1; i <= n; i++ {
			sb.WriteString(entry(files["m.txt"], i))
		}
		return sb.String()
	}
	tests := []struct {
		name       string
		paths      []string
		pattern    string
		maxBytes   int64
		want       string
		total      int
		searched   int
		skipped    int
		truncated  bool
		maxMatches int
	}{
		{name: "no match anywhere", paths: []string{"."}, pattern: "nowhere",
			want: "no match in 3 files\n" + six, searched: 3, skipped: 9},
		{name: "the only match is in a skipped file", paths: []string{"only"}, pattern: "TODO",
			want: "no match in 1 files\nskipped 1 files: only/big (too_large)\n", searched: 1, skipped: 1},
		{name: "no file skipped", paths: []string{"a.go", "m.txt"}, pattern: "nowhere",
			want: "no match in 2 files\n", searched: 2},
		{name: "matches, then the skipped line", paths: []string{"."}, pattern: "x",
			want: "r1 m.txt:\n" + mLines(10) + six, total: 10, searched: 3, skipped: 9},
		{name: "max_matches: the more line, then the skipped line", paths: []string{"."}, pattern: "x", maxMatches: 2,
			want: "r1 m.txt:\n" + mLines(2) + "… 8 more\n" + six, total: 10, searched: 3, skipped: 9, truncated: true},
		{name: "matches withheld for the skipped line", paths: []string{"."}, pattern: "x",
			maxBytes: int64(len("r1 m.txt:\n"+mLines(3)+"… 7 more\n"+six)) + 1,
			want:     "r1 m.txt:\n" + mLines(3) + "… 7 more\n" + six, total: 10, searched: 3, skipped: 9, truncated: true},
		{name: "no match, the cap holds the skipped line only", paths: []string{"."}, pattern: "nowhere",
			maxBytes: int64(len(six)) + 5, want: six, searched: 3, skipped: 9},
		{name: "not even the skipped line fits", paths: []string{"."}, pattern: "nowhere",
			maxBytes: int64(len(six)) - 1, want: "", searched: 3, skipped: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			cfg.MaxResultBytes = 64
			if tt.maxBytes > 0 {
				cfg.MaxLookupBytes = tt.maxBytes
			}
			b := fixture(t, cfg, Legacy, files)
			m, merr := selectors.NewMatcher(selectors.Patterns{List: []string{tt.pattern}})
			require.Nil(t, merr)
			maxMatches := tt.maxMatches
			if maxMatches == 0 {
				maxMatches = DefaultMaxMatches
			}
			got, err := b.findPaths(tt.paths, FindQuery{Matcher: m, MaxMatches: maxMatches})
			require.Nil(t, err)
			assert.Equal(t, tt.want, got.Text)
			assert.LessOrEqual(t, int64(len(got.Text)), cfg.MaxLookupBytes)
			assert.Equal(t, tt.total, got.Total)
			assert.Equal(t, tt.truncated, got.Truncated)
			assert.Equal(t, tt.searched, got.FilesSearched)
			assert.Equal(t, tt.skipped, got.FilesSkipped)
			assert.Equal(t, int64(len(got.Text)), got.Bytes)
		})
	}
}

// TestFindNoMatchInResult: a find of one result that matches nothing is
// the line "no match in <ID>", charged as its text; empty when the lookup
// cap cannot hold it.
func TestFindNoMatchInResult(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		maxBytes int64
		want     string
	}{
		{8192, "no match in r1\n"},
		{15, "no match in r1\n"},
		{14, ""},
	} {
		cfg := limits.Defaults()
		cfg.MaxLookupBytes = tt.maxBytes
		b := fixture(t, cfg, Legacy, map[string]string{"a.txt": "one\n"})
		require.Nil(t, b.inspectPaths([]string{"a.txt"})[0].Err)
		m, merr := selectors.NewMatcher(selectors.Patterns{List: []string{"zzz"}})
		require.Nil(t, merr)
		got, err := b.find(Ref{Result: "r1"}, FindQuery{Matcher: m, MaxMatches: 20})
		require.Nil(t, err)
		assert.Equal(t, tt.want, got.Text, "cap %d", tt.maxBytes)
		assert.Equal(t, 0, got.Total)
		assert.Equal(t, limits.EscapedSize(tt.want), got.Budget.BytesUsed)
	}
}
