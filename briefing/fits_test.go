package briefing

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// TestFits: a size error of get_lines or get_range says what would fit
// (SPEC section 8): the largest last or end that, with the same first or
// start, passes both the lookup cap and the step's escaped bytes left, or
// null when nothing would; its message names it, with the size, the limit
// and the bytes left (SPEC section 2). Each case then asks for one more
// line (or byte) than fits, which fails, and for what fits, which passes.
func TestFits(t *testing.T) {
	t.Parallel()
	fives := strings.Repeat("aaaa\n", 10) // ten 5-byte lines, 6 escaped bytes each
	xs := strings.Repeat("x\n", 12)       // numbered: "N#xy: x\n", 8 bytes to line 9, then 9
	tests := []struct {
		name      string
		body      string
		lookup    int64 // --max-lookup-bytes
		step      int64 // --max-step-bytes: the bytes left
		lines     bool  // get_lines (first, last), else get_range (start, end)
		numbered  bool
		from, to  int64
		code      errcode.Code
		size      int64
		limit     int64
		fits      *int64
		msg       string
		fitsBytes int64 // the size of the selection that fits, when one does
	}{
		{name: "lines: exactly at the lookup cap", body: fives, lookup: 20, step: 1000, lines: true, from: 1, to: 10,
			code: errcode.LookupTooLarge, size: 50, limit: 20, fits: new(int64(4)), fitsBytes: 20,
			msg: "lines 1-10 are 50 bytes, over the 20-byte lookup limit; lines 1-4 fit (the step has 1000 escaped bytes left)"},
		{name: "lines: from the middle, one line fits", body: fives, lookup: 9, step: 1000, lines: true, from: 3, to: 10,
			code: errcode.LookupTooLarge, size: 40, limit: 9, fits: new(int64(3)), fitsBytes: 5,
			msg: "lines 3-10 are 40 bytes, over the 9-byte lookup limit; line 3 fits (the step has 1000 escaped bytes left)"},
		{name: "lines: the step's bytes left, smaller than the lookup cap, decide", body: fives, lookup: 20, step: 14, lines: true, from: 1, to: 10,
			code: errcode.LookupTooLarge, size: 50, limit: 20, fits: new(int64(2)), fitsBytes: 10,
			msg: "lines 1-10 are 50 bytes, over the 20-byte lookup limit; lines 1-2 fit (the step has 14 escaped bytes left)"},
		{name: "lines: escaping-heavy text against the step", body: strings.Repeat("\"\x01\"\n", 6), lookup: 8192, step: 40, lines: true, from: 1, to: 6,
			code: errcode.StepBytesExhausted, size: 74, limit: 40, fits: new(int64(3)), fitsBytes: 12,
			msg: "lines 1-6 are 74 escaped bytes, over the 40 left of the step's 40; lines 1-3 fit, or call begin_step to start a new step with a fresh budget"},
		{name: "lines: exactly the step's bytes left", body: fives, lookup: 8192, step: 20, lines: true, from: 2, to: 5,
			code: errcode.StepBytesExhausted, size: 26, limit: 20, fits: new(int64(4)), fitsBytes: 15,
			msg: "lines 2-5 are 26 escaped bytes, over the 20 left of the step's 20; lines 2-4 fit, or call begin_step to start a new step with a fresh budget"},
		{name: "lines: no line fits the lookup cap", body: strings.Repeat("a", 25) + "\nb\n", lookup: 20, step: 1000, lines: true, from: 1, to: 2,
			code: errcode.LookupTooLarge, size: 28, limit: 20,
			msg: "lines 1-2 are 28 bytes, over the 20-byte lookup limit; no line from 1 fits: get_range reads part of it; line 1 is bytes 0-26 (the step has 1000 escaped bytes left)"},
		{name: "lines: no line fits the step", body: fives, lookup: 8192, step: 7, lines: true, from: 1, to: 1,
			code: errcode.StepBytesExhausted, size: 8, limit: 7,
			msg: "line 1 is 8 escaped bytes, over the 7 left of the step's 7; no line from 1 fits: get_range reads part of it; line 1 is bytes 0-5: call begin_step to start a new step with a fresh budget"},
		{name: "lines: a last line without a newline", body: "aa\nbb\ncc", lookup: 7, step: 1000, lines: true, from: 1, to: 3,
			code: errcode.LookupTooLarge, size: 8, limit: 7, fits: new(int64(2)), fitsBytes: 6,
			msg: "lines 1-3 are 8 bytes, over the 7-byte lookup limit; lines 1-2 fit (the step has 1000 escaped bytes left)"},
		{name: "lines: multi-byte text", body: "éé\néé\néé\n", lookup: 11, step: 1000, lines: true, from: 1, to: 3,
			code: errcode.LookupTooLarge, size: 15, limit: 11, fits: new(int64(2)), fitsBytes: 10,
			msg: "lines 1-3 are 15 bytes, over the 11-byte lookup limit; lines 1-2 fit (the step has 1000 escaped bytes left)"},
		{name: "numbered: the prefixes count", body: xs, lookup: 20, step: 1000, lines: true, numbered: true, from: 1, to: 12,
			code: errcode.LookupTooLarge, size: 99, limit: 20, fits: new(int64(2)), fitsBytes: 16,
			msg: "numbered lines 1-12 are 99 bytes, over the 20-byte lookup limit; lines 1-2 fit (the step has 1000 escaped bytes left)"},
		{name: "numbered: wider numbers", body: xs, lookup: 25, step: 1000, lines: true, numbered: true, from: 8, to: 12,
			code: errcode.LookupTooLarge, size: 43, limit: 25, fits: new(int64(10)), fitsBytes: 25,
			msg: "numbered lines 8-12 are 43 bytes, over the 25-byte lookup limit; lines 8-10 fit (the step has 1000 escaped bytes left)"},
		{name: "numbered: against the step, prefixes unescaped", body: xs, lookup: 8192, step: 20, lines: true, numbered: true, from: 1, to: 12,
			code: errcode.StepBytesExhausted, size: 113, limit: 20, fits: new(int64(2)), fitsBytes: 16,
			msg: "numbered lines 1-12 are 113 escaped bytes, over the 20 left of the step's 20; lines 1-2 fit, or call begin_step to start a new step with a fresh budget"},
		{name: "numbered: no line fits", body: xs, lookup: 7, step: 1000, lines: true, numbered: true, from: 1, to: 2,
			code: errcode.LookupTooLarge, size: 16, limit: 7,
			msg: "numbered lines 1-2 are 16 bytes, over the 7-byte lookup limit; no line from 1 fits: get_range reads part of it; line 1 is bytes 0-2 (the step has 1000 escaped bytes left)"},
		{name: "range: exactly at the lookup cap", body: fives, lookup: 20, step: 1000, from: 0, to: 50,
			code: errcode.LookupTooLarge, size: 50, limit: 20, fits: new(int64(20)), fitsBytes: 20,
			msg: "bytes 0-50 are 50 bytes, over the 20-byte lookup limit; bytes 0-20 fit (the step has 1000 escaped bytes left)"},
		{name: "range: a character boundary below the cap", body: "ééééé", lookup: 5, step: 1000, from: 2, to: 10,
			code: errcode.LookupTooLarge, size: 8, limit: 5, fits: new(int64(6)), fitsBytes: 4,
			msg: "bytes 2-10 are 8 bytes, over the 5-byte lookup limit; bytes 2-6 fit (the step has 1000 escaped bytes left)"},
		{name: "range: nothing fits", body: "€€€", lookup: 2, step: 1000, from: 0, to: 9,
			code: errcode.LookupTooLarge, size: 9, limit: 2,
			msg: "bytes 0-9 are 9 bytes, over the 2-byte lookup limit; nothing from byte 0 fits (the step has 1000 escaped bytes left)"},
		{name: "range: escaped controls against the step", body: "\x01\x01\x01\x01", lookup: 8192, step: 20, from: 0, to: 4,
			code: errcode.StepBytesExhausted, size: 26, limit: 20, fits: new(int64(3)), fitsBytes: 3,
			msg: "bytes 0-4 are 26 escaped bytes, over the 20 left of the step's 20; bytes 0-3 fit, or call begin_step to start a new step with a fresh budget"},
		{name: "range: the step's bytes left cut inside a character", body: "a\"ééé", lookup: 8192, step: 8, from: 0, to: 8,
			code: errcode.StepBytesExhausted, size: 11, limit: 8, fits: new(int64(4)), fitsBytes: 4,
			msg: "bytes 0-8 are 11 escaped bytes, over the 8 left of the step's 8; bytes 0-4 fit, or call begin_step to start a new step with a fresh budget"},
		{name: "range: no character fits the step", body: "\x01abc", lookup: 8192, step: 7, from: 0, to: 4,
			code: errcode.StepBytesExhausted, size: 11, limit: 7,
			msg: "bytes 0-4 are 11 escaped bytes, over the 7 left of the step's 7; nothing from byte 0 fits: call begin_step to start a new step with a fresh budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			cfg.MaxLookupBytes, cfg.MaxStepBytes = tt.lookup, tt.step
			b := fixture(t, cfg, Legacy, map[string]string{"f.txt": tt.body})
			require.Nil(t, b.inspectPaths([]string{"f.txt"})[0].Err)
			call := func(to int64) (*Selection, *errcode.Error) {
				if tt.lines {
					return b.getLines(Ref{Result: "r1"}, tt.from, &to, tt.numbered)
				}
				return b.getRange(Ref{Result: "r1"}, &tt.from, &to)
			}
			_, err := call(tt.to)
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code)
			assert.Equal(t, tt.msg, err.Msg)
			assert.Equal(t, errcode.Details{Size: &tt.size, Limit: &tt.limit, BytesLeft: &tt.step, Fits: &errcode.Fit{To: tt.fits}}, err.Details)
			assert.Equal(t, int64(0), b.Budget().BytesUsed, "a size error adds nothing")

			// Nothing larger fits; what fits does.
			next := tt.from
			if tt.fits != nil {
				next = *tt.fits + 1
			}
			if !tt.lines {
				next = tt.from + 1
				if tt.fits != nil {
					next = *tt.fits + 1
				}
				for next < tt.to && next < int64(len(tt.body)) && tt.body[next]&0xC0 == 0x80 {
					next++ // the next character boundary
				}
			}
			if next <= tt.to {
				_, err := call(next)
				require.NotNil(t, err, "one more than fits")
			}
			if tt.fits != nil {
				got, err := call(*tt.fits)
				require.Nil(t, err, "what fits")
				assert.Equal(t, tt.fitsBytes, got.Bytes)
			}
		})
	}
}

// TestSizeErrorsWithoutFits: get_json, find and list_results have no fits;
// their size errors say what was too large, the limit and the bytes left,
// and to select less.
func TestSizeErrorsWithoutFits(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxLookupBytes, cfg.MaxStepBytes = 20, 30
	b := fixture(t, cfg, Legacy, map[string]string{"d.json": `{"a": "` + strings.Repeat("x", 30) + `"}`})
	require.Nil(t, b.inspectPaths([]string{"d.json"})[0].Err)

	_, err := b.getJSON(Ref{Result: "r1"}, "/a", AsLexeme)
	require.NotNil(t, err)
	assert.Equal(t, errcode.LookupTooLarge, err.Code)
	assert.Equal(t, `the value at "/a" is 32 bytes, over the 20-byte lookup limit; select less (the step has 30 escaped bytes left)`, err.Msg)
	assert.Equal(t, errcode.Details{Size: new(int64(32)), Limit: new(int64(20)), BytesLeft: new(int64(30))}, err.Details)

	_, err = b.getJSON(Ref{Result: "r1"}, "/a", AsString)
	require.NotNil(t, err)
	assert.Equal(t, `the value at "/a" is 30 bytes, over the 20-byte lookup limit; select less (the step has 30 escaped bytes left)`, err.Msg)

	_, err = b.getRange(Ref{Result: "r1"}, new(int64(0)), new(int64(10)))
	require.Nil(t, err)
	b.opts.Header = func(results.Descriptor) string { return strings.Repeat("h", 199) + "\n" }
	page, err := b.listResults(0, nil)
	require.NotNil(t, err, "%v", page)
	assert.Equal(t, errcode.LookupTooLarge, err.Code)
	assert.Equal(t, "page 0 (1 results) is 200 bytes, over the 20-byte lookup limit; ask for a smaller page_size (the step has 15 escaped bytes left)", err.Msg)

	cfg.MaxLookupBytes = 8192
	b = fixture(t, cfg, Legacy, map[string]string{"a.txt": strings.Repeat("a\n", 10)})
	require.Nil(t, b.inspectPaths([]string{"a.txt"})[0].Err)
	b.opts.Header = func(results.Descriptor) string { return strings.Repeat("h", 232) + "\n" }
	_, err = b.listResults(0, nil)
	require.NotNil(t, err)
	assert.Equal(t, errcode.StepBytesExhausted, err.Code)
	assert.Equal(t, "page 0 (1 results) is 236 escaped bytes, over the 30 left of the step's 30; ask for a smaller page_size or call begin_step", err.Msg)
	m, merr := selectors.NewMatcher(selectors.Patterns{List: []string{"a"}})
	require.Nil(t, merr)
	_, err = b.find(Ref{Result: "r1"}, FindQuery{Matcher: m, MaxMatches: 20})
	require.NotNil(t, err)
	assert.Equal(t, errcode.StepBytesExhausted, err.Code)
	assert.Equal(t, "the matches are 93 escaped bytes, over the 30 left of the step's 30; lower max_matches or call begin_step", err.Msg)
	assert.Equal(t, errcode.Details{Size: new(int64(93)), Limit: new(int64(30)), BytesLeft: new(int64(30))}, err.Details)

	_, err = b.findPaths([]string{"a.txt"}, FindQuery{Matcher: m, MaxMatches: 20})
	require.NotNil(t, err)
	assert.Equal(t, errcode.StepBytesExhausted, err.Code)
	assert.Equal(t, "the matches are 104 escaped bytes, over the 30 left of the step's 30; lower max_matches or call begin_step", err.Msg)
}

// TestFitsAgainstTrying compares the fits of every failing get_lines
// (numbered or not) and get_range over small texts, with caps on either
// side of the line index's shortcut, with the largest last or end found
// by trying each in turn.
func TestFitsAgainstTrying(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []string{"a", "bc", "\n", "\r\n", "é", "€", "\"", "\\", "\x01", "\t", "12345"}
	for round := range 40 {
		var sb strings.Builder
		for range 1 + rng.IntN(30) {
			sb.WriteString(pool[rng.IntN(len(pool))])
		}
		text := sb.String()
		cfg := limits.Defaults()
		cfg.MaxLookupBytes = int64(1 + rng.IntN(24))
		cfg.MaxStepBytes = int64(2 + rng.IntN(80))
		if round%2 == 0 {
			cfg.MaxStepBytes = 6*cfg.MaxLookupBytes + 2 // the shortcut's edge
		}
		lines := splitLines(text)
		measure := func(sel string) bool {
			return int64(len(sel)) <= cfg.MaxLookupBytes && limits.EscapedSize(sel) <= cfg.MaxStepBytes
		}
		numberedText := func(first, last int) string {
			var out strings.Builder
			for n := first; n <= last; n++ {
				content := strings.TrimSuffix(strings.TrimSuffix(lines[n-1], "\n"), "\r")
				if !strings.HasSuffix(lines[n-1], "\n") {
					content = lines[n-1]
				}
				out.WriteString(selectors.Anchor(n, selectors.AnchorChars([]byte(content))) + ": " + lines[n-1])
			}
			return out.String()
		}
		b := fixture(t, cfg, Legacy, map[string]string{"f.txt": text})
		require.Nil(t, b.inspectPaths([]string{"f.txt"})[0].Err)
		for _, numbered := range []bool{false, true} {
			for first := 1; first <= len(lines); first++ {
				for last := first; last <= len(lines); last++ {
					sel := strings.Join(lines[first-1:last], "")
					if numbered {
						sel = numberedText(first, last)
					}
					if measure(sel) {
						continue
					}
					want := first - 1
					for k := first; k < last; k++ {
						s := strings.Join(lines[first-1:k], "")
						if numbered {
							s = numberedText(first, k)
						}
						if measure(s) {
							want = k
						}
					}
					l := int64(last)
					_, err := b.getLines(Ref{Result: "r1"}, int64(first), &l, numbered)
					require.NotNil(t, err, "%q %d-%d", text, first, last)
					require.NotNil(t, err.Fits)
					if want < first {
						assert.Nil(t, err.Fits.To, "%q %d-%d numbered=%v in %d/%d", text, first, last, numbered, cfg.MaxLookupBytes, cfg.MaxStepBytes)
					} else if assert.NotNil(t, err.Fits.To, "%q %d-%d numbered=%v", text, first, last, numbered) {
						assert.Equal(t, int64(want), *err.Fits.To, "%q %d-%d numbered=%v in %d/%d", text, first, last, numbered, cfg.MaxLookupBytes, cfg.MaxStepBytes)
					}
				}
			}
		}
		bounds := boundaries(text)
		for i, start := range bounds {
			for _, end := range bounds[i:] {
				if measure(text[start:end]) {
					continue
				}
				want := start
				for _, e := range bounds[i:] {
					if e < end && measure(text[start:e]) {
						want = e
					}
				}
				s, e := int64(start), int64(end)
				_, err := b.getRange(Ref{Result: "r1"}, &s, &e)
				require.NotNil(t, err)
				require.NotNil(t, err.Fits)
				if want == start {
					assert.Nil(t, err.Fits.To, "%q %d-%d", text, start, end)
				} else if assert.NotNil(t, err.Fits.To, "%q %d-%d", text, start, end) {
					assert.Equal(t, int64(want), *err.Fits.To, "%q %d-%d in %d/%d", text, start, end, cfg.MaxLookupBytes, cfg.MaxStepBytes)
				}
			}
		}
	}
}

// TestFitsByPath: a lookup by path starts with its result's header line,
// which its sizes count (SPEC section 4), so what fits is what fits in the
// room the header leaves, and the message names the header too.
func TestFitsByPath(t *testing.T) {
	t.Parallel()
	fives := strings.Repeat("aaaa\n", 10)
	// A header of 10 bytes whose tab and newline escape to two each: 12.
	header := func(d results.Descriptor) string { return "HEADER\t" + *d.ID + "\n" }
	tests := []struct {
		name         string
		lookup, step int64
		lines        bool
		to           int64
		code         errcode.Code
		fits         int64
		msg          string
	}{
		{"lines under the lookup cap", 30, 1000, true, 10, errcode.LookupTooLarge, 4,
			"lines 1-10 and the header line are 60 bytes, over the 30-byte lookup limit; lines 1-4 fit (the step has 1000 escaped bytes left)"},
		{"lines under the step's bytes left", 8192, 40, true, 10, errcode.StepBytesExhausted, 4,
			"lines 1-10 and the header line are 74 escaped bytes, over the 40 left of the step's 40; lines 1-4 fit, " +
				"or call begin_step to start a new step with a fresh budget"},
		{"a range", 15, 1000, false, 50, errcode.LookupTooLarge, 5,
			"bytes 0-50 and the header line are 60 bytes, over the 15-byte lookup limit; bytes 0-5 fit (the step has 1000 escaped bytes left)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			cfg.MaxLookupBytes, cfg.MaxStepBytes = tt.lookup, tt.step
			root, _ := testroot.Open(t, map[string]string{"f.txt": fives}, workspace.Open)
			b := New(Options{Limits: cfg, Policy: Legacy, Root: root, Header: header})
			t.Cleanup(b.Close)
			ref := Ref{Path: new("f.txt")}
			call := func(to int64) (*Selection, *errcode.Error) {
				if tt.lines {
					return b.getLines(ref, 1, &to, false)
				}
				return b.getRange(ref, new(int64(0)), &to)
			}
			_, err := call(tt.to)
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code)
			assert.Equal(t, tt.msg, err.Msg)
			assert.Equal(t, &errcode.Fit{To: &tt.fits}, err.Fits)
			_, err = call(tt.fits + 1)
			require.NotNil(t, err, "one more than fits")
			got, err := call(tt.fits)
			require.Nil(t, err, "what fits")
			assert.True(t, strings.HasPrefix(got.Text, "HEADER\tr1\n"), got.Text)
		})
	}
}
