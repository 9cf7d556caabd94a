package briefing

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

func exited(code int64) workspace.Exit { return workspace.Exit{Code: &code} }

// TestShowFailure: the rules of SPEC section 10's first failure, each on
// the smallest output that shows it, with the exact rows and tail.
func TestShowFailure(t *testing.T) {
	t.Parallel()
	l := strings.Repeat("l\n", 300) // 300 lines "l", whose anchor characters are "vs"
	cases := []struct {
		name    string
		output  string
		re      *regexp.Regexp
		exit    workspace.Exit
		preview int64
		first   *FirstFailure
		rows    string
		tail    string
	}{{
		name: "at most 20 rows, though more would fit", output: "FAIL x\n" + l, exit: exited(1), preview: 600,
		first: &FirstFailure{Line: 1, Anchor: "1#c4", Text: "FAIL x"},
		rows: "1#c4: FAIL x\n" + func() string {
			var b strings.Builder
			for n := 2; n <= 20; n++ {
				b.WriteString(strconv.Itoa(n) + "#vs: l\n")
			}
			return b.String()
		}(),
		// 13 + 8*8 + 11*9 = 176 bytes of rows: the tail has 424.
		tail: l[len(l)-424:],
	}, {
		name: "CRLF lines: matched without \\r, shown as get_lines shows them", output: "ok\r\nFAIL x\r\nnext\r\n" + strings.Repeat("l\r\n", 20),
		exit: exited(1), preview: 40,
		first: &FirstFailure{Line: 2, Anchor: "2#c4", Text: "FAIL x"},
		rows:  "2#c4: FAIL x\r\n",
		tail:  strings.Repeat("l\r\n", 8), // 40 - 14 = 26 bytes: 8 lines
	}, {
		name: "line N cut on a character boundary, ended by …\\n within the half", output: "FAIL " + strings.Repeat("é", 20) + "\n" + l,
		exit: exited(1), preview: 40,
		first: &FirstFailure{Line: 1, Anchor: "1#" + anchorOf("FAIL "+strings.Repeat("é", 20)), Text: "FAIL " + strings.Repeat("é", 20)},
		// half 20: 16 bytes of row at most, "1#xx: FAIL " is 11, and two
		// é 4 more; a third would pass 16.
		rows: "1#" + anchorOf("FAIL "+strings.Repeat("é", 20)) + ": FAIL éé…\n",
		tail: l[len(l)-20:],
	}, {
		name: "half too small for …\\n: nothing", output: "FAIL\n" + l, exit: exited(1), preview: 7,
		tail: "l\nl\nl\n",
	}, {
		name: "half just holds …\\n", output: "FAIL\n" + l, exit: exited(1), preview: 8,
		first: &FirstFailure{Line: 1, Anchor: "1#ij", Text: "FAIL"}, rows: "…\n", tail: "l\nl\n",
	}, {
		name: "a success shows none", output: "FAIL\n" + l, exit: exited(0), preview: 8, tail: "l\nl\nl\nl\n",
	}, {
		name: "timed out, though it exited 0", output: "FAIL\n" + l, exit: workspace.Exit{Code: new(int64(0)), TimedOut: true}, preview: 16,
		first: &FirstFailure{Line: 1, Anchor: "1#ij", Text: "FAIL"}, rows: "1#ij…\n", tail: "l\nl\nl\nl\n",
	}, {
		name: "cancelled", output: "FAIL\n" + l, exit: workspace.Exit{Cancelled: true}, preview: 32,
		first: &FirstFailure{Line: 1, Anchor: "1#ij", Text: "FAIL"}, rows: "1#ij: FAIL\n", tail: l[len(l)-20:],
	}, {
		name: "off", output: "FAIL\n" + l, re: regexp.MustCompile(`$.^`), exit: exited(1), preview: 8, tail: "l\nl\nl\nl\n",
	}, {
		name: "another runner's expression", output: "ok 1 - add\nnot ok 2 - sub\n" + l, re: regexp.MustCompile(`^not ok `),
		exit: exited(1), preview: 48,
		first: &FirstFailure{Line: 2, Anchor: "2#" + anchorOf("not ok 2 - sub"), Text: "not ok 2 - sub"},
		rows:  "2#" + anchorOf("not ok 2 - sub") + ": not ok 2 - sub\n", tail: l[len(l)-26:],
	}, {
		name: "the expression sees the line without its ending", output: "FAIL\n" + l, re: regexp.MustCompile(`^FAIL$`),
		exit: exited(1), preview: 32,
		first: &FirstFailure{Line: 1, Anchor: "1#ij", Text: "FAIL"}, rows: "1#ij: FAIL\n", tail: l[len(l)-20:],
	}, {
		name: "no match", output: "ok\n" + l, exit: exited(1), preview: 8, tail: "l\nl\nl\nl\n",
	}, {
		name: "the first match in the tail", output: l + "FAIL\n", exit: exited(1), preview: 8, tail: "l\nFAIL\n",
	}, {
		name: "the whole output is the tail", output: "FAIL\nl\n", exit: exited(1), preview: 8, tail: "FAIL\nl\n",
	}, {
		name: "a last line longer than the tail: it starts before it", output: "ok\nFAIL " + strings.Repeat("x", 40),
		exit: exited(1), preview: 24,
		first: &FirstFailure{Line: 2, Anchor: "2#" + anchorOf("FAIL "+strings.Repeat("x", 40)), Text: "FAIL " + strings.Repeat("x", 40)},
		rows:  "2#" + anchorOf("FAIL "+strings.Repeat("x", 40)) + ": FA…\n", tail: strings.Repeat("x", 12),
	}, {
		name: "text cut as find cuts it, at 240 bytes", output: "FAIL " + strings.Repeat("x", 300) + "\n" + l, exit: exited(1), preview: 16,
		first: &FirstFailure{Line: 1, Anchor: "1#" + anchorOf("FAIL "+strings.Repeat("x", 300)), Text: "FAIL " + strings.Repeat("x", 235)},
		rows:  "1#" + anchorOf("FAIL "+strings.Repeat("x", 300)) + "…\n", tail: "l\nl\nl\nl\n",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			text, err := results.Analyze([]byte(c.output))
			require.Nil(t, err)
			re := c.re
			if re == nil {
				re = defaultRunFailure
			} else if re.String() == `$.^` {
				re = nil // --run-failure ''
			}
			got := showFailure(text, re, c.exit, c.preview)
			assert.Equal(t, c.first, got.first)
			assert.Equal(t, c.rows, got.rows)
			assert.Equal(t, c.tail, got.tail)
			assert.LessOrEqual(t, int64(len(got.rows)), c.preview/2)
			assert.LessOrEqual(t, int64(len(got.rows)+len(got.tail)), c.preview)
			assert.True(t, strings.HasSuffix(c.output, got.tail))
		})
	}
}

// anchorOf returns the two anchor characters of a line's text.
func anchorOf(content string) string {
	c := selectors.AnchorChars([]byte(content))
	return string(c[:])
}

// TestShowFailureBudget: over random outputs and previews, a first failure
// is shown exactly when a failed run's first matching line starts before
// the tail of the whole preview; its rows are at most 20, consecutive
// from it, each its line numbered as get_lines numbers it (or line N cut
// and ended by "…\n"), within half the preview, each line starting
// before the tail; rows and tail together stay within the preview.
func TestShowFailureBudget(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 10))
	var shown, cut, none int // how often each kind came up
	pieces := []string{"FAIL", "--- FAIL: TestX (0.00s)", "ok", "", "é", "panic: x", "    x_test.go:9: got 1", "a longer line of output that goes on", "Ωmega"}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			p := pieces[rng.IntN(len(pieces))]
			b.WriteString(strings.Repeat(p, 1+rng.IntN(3)))
			if rng.IntN(8) > 0 || n > 1 {
				b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
			}
		}
		out := b.String()
		preview := int64(rng.IntN(200))
		text, err := results.Analyze([]byte(out))
		require.Nil(t, err)
		got := showFailure(text, defaultRunFailure, exited(1), preview)
		full, whole := results.Tail(text.Data, preview)
		fullStart := len(out) - len(full)

		want := 0
		if !whole {
			want = firstMatchRef(out, fullStart)
		}
		if want == 0 || preview/2 < int64(len(failureCut)) {
			require.Nil(t, got.first, "%q %d", out, preview)
			require.Equal(t, full, got.tail)
			none++
			continue
		}
		require.NotNil(t, got.first, "%q %d", out, preview)
		require.Equal(t, want, got.first.Line)
		require.LessOrEqual(t, int64(len(got.rows)), preview/2)
		require.LessOrEqual(t, int64(len(got.rows)+len(got.tail)), preview)
		require.True(t, strings.HasSuffix(out, got.tail))
		tailStart := len(out) - len(got.tail)
		rows := strings.SplitAfter(got.rows, "\n")
		rows = rows[:len(rows)-1]
		require.LessOrEqual(t, len(rows), 20)
		if strings.HasSuffix(got.rows, failureCut) && len(rows) == 1 {
			row := selectors.Anchor(want, text.Lines.LineAnchorChars(want)) + ": " + contentOf(text, want)
			require.True(t, strings.HasPrefix(row, strings.TrimSuffix(got.rows, failureCut)))
			cut++
			continue
		}
		shown++
		for k, row := range rows {
			n := want + k
			span := text.Lines.Line(n)
			require.Equal(t, selectors.Anchor(n, text.Lines.LineAnchorChars(n))+": "+out[span.Start:span.End], row)
			require.Less(t, span.Start, tailStart)
		}
	}
	t.Logf("rows shown %d, line N cut %d, none %d", shown, cut, none)
	assert.Greater(t, shown, 500)
	assert.Greater(t, cut, 500)
}

// firstMatchRef is the first line (1-based) that starts before before and
// that the default expression matches without its ending, by splitting.
func firstMatchRef(out string, before int) int {
	start := 0
	for i, line := range strings.SplitAfter(out, "\n") {
		if start >= before || line == "" {
			return 0
		}
		if defaultRunFailure.MatchString(strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")) {
			return i + 1
		}
		start += len(line)
	}
	return 0
}

func contentOf(t *results.Text, n int) string {
	c := t.Lines.Content(n)
	return string(t.Data[c.Start:c.End])
}

// BenchmarkShowFailure is the first failure's cost after a failed run of
// 16 MiB of go test's lines: with no matching line, the one pass reads
// everything before the tail; with a match on the first line, nothing
// more than the rows.
func BenchmarkShowFailure(b *testing.B) {
	line := "ok  \texample.com/calc/internal/p1\t0.011s\n"
	body := strings.Repeat(line, (16<<20)/len(line))
	for _, c := range []struct{ name, output string }{
		{"no match", body},
		{"first line", "--- FAIL: TestAdd (0.00s)\n" + body},
	} {
		text, err := results.Analyze([]byte(c.output))
		require.Nil(b, err)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.output)))
			for b.Loop() {
				showFailure(text, defaultRunFailure, exited(1), 1024)
			}
		})
	}
}
