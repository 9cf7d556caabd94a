package briefing

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// fixture is a briefing over a temporary root holding files.
func fixture(t *testing.T, cfg limits.Config, policy Policy, files map[string]string) *Briefing {
	t.Helper()
	root, _ := testroot.Open(t, files, workspace.Open)
	b := New(Options{Limits: cfg, Policy: policy, Root: root})
	t.Cleanup(b.Close)
	return b
}

const doc = `{"a": {"b": [10, 1.000000000000000000001, "x\u00e9"]}, "dup": 1, "dup": 2, "s": "\ud800"}`

func standard(t *testing.T) *Briefing {
	b := fixture(t, limits.Defaults(), Legacy, map[string]string{
		"a.txt":    "one\ntwo\nthree\n",
		"doc.json": doc,
		"bad.json": `{"a":1,}`,
	})
	for i, e := range b.inspectPaths([]string{"a.txt", "doc.json", "bad.json"}) {
		require.Nil(t, e.Err, "path %d", i)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func code(t *testing.T, err *errcode.Error) errcode.Code {
	t.Helper()
	if err == nil {
		return ""
	}
	return err.Code
}

func TestGetLines(t *testing.T) {
	t.Parallel()
	b := standard(t)
	got, err := b.getLines(Ref{Result: "r1"}, 2, nil, false)
	require.Nil(t, err)
	assert.Equal(t, "two\nthree\n", got.Text)
	assert.Equal(t, LineSelection{First: 2, Last: 3}, got.Selection)
	assert.Equal(t, int64(10), got.Bytes)
	assert.Equal(t, int64(14), got.EscapedBytes)
	assert.Equal(t, int64(14), got.Budget.BytesUsed)
	assert.Equal(t, "r1", *got.Result)
	assert.Len(t, got.SHA256, 64)
}

// TestGetLinesNumbered: numbered lines are their anchor, ": " and the
// exact line (SPEC 4.4: the anchor's characters are those of the line
// without its "\r\n" ending, or of a last line without one); the
// numbered text is what the caps and the answer measure (SPEC section 5).
func TestGetLinesNumbered(t *testing.T) {
	t.Parallel()
	lines := make([]string, 0, 120)
	for i := range 120 {
		lines = append(lines, fmt.Sprintf("l%d\t\"x\"\r\n", i+1))
	}
	cfg := limits.Defaults()
	cfg.MaxLookupBytes = 40
	b := fixture(t, cfg, Legacy, map[string]string{"a.txt": strings.Join(lines, "") + "last"})
	require.Nil(t, b.inspectPaths([]string{"a.txt"})[0].Err)

	got, err := b.getLines(Ref{Result: "r1"}, 9, ptr(int64(10)), true)
	require.Nil(t, err)
	want := "9#c7: l9\t\"x\"\r\n10#j3: l10\t\"x\"\r\n"
	assert.Equal(t, want, got.Text)
	assert.Equal(t, LineSelection{First: 9, Last: 10, Numbered: true}, got.Selection)
	assert.Equal(t, int64(len(want)), got.Bytes)
	assert.Equal(t, limits.EscapedSize(want), got.EscapedBytes)
	assert.Equal(t, got.EscapedBytes, got.Budget.BytesUsed)

	// The last line keeps its missing newline; no last means the last line.
	got, err = b.getLines(Ref{Result: "r1"}, 121, nil, true)
	require.Nil(t, err)
	assert.Equal(t, "121#gv: last", got.Text)

	// The anchors count against the lookup cap (40 here): lines 99-101 are
	// 9+10+10 bytes unnumbered, 23 more with "99#xy: ", "100#xy: " and
	// "101#xy: ".
	got, err = b.getLines(Ref{Result: "r1"}, 99, ptr(int64(101)), false)
	require.Nil(t, err)
	assert.Equal(t, int64(29), got.Bytes)
	used := b.Budget().BytesUsed
	_, err = b.getLines(Ref{Result: "r1"}, 99, ptr(int64(101)), true)
	require.NotNil(t, err)
	assert.Equal(t, errcode.LookupTooLarge, err.Code)
	assert.Equal(t, new(int64(52)), err.Size)
	assert.Equal(t, used, b.Budget().BytesUsed, "a refused lookup adds nothing")
}

func TestNumberWidths(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ first, last, want int64 }{
		{1, 1, 1}, {1, 9, 9}, {1, 10, 11}, {9, 11, 5}, {10, 99, 180}, {99, 101, 8}, {1, 1000, 9 + 180 + 2700 + 4},
		{999999999999, 1000000000000, 12 + 13},
	} {
		var want int64
		if tt.last-tt.first < 5000 {
			for n := tt.first; n <= tt.last; n++ {
				want += int64(len(strconv.FormatInt(n, 10)))
			}
			assert.Equal(t, tt.want, want, "the table: %d-%d", tt.first, tt.last)
		}
		assert.Equal(t, tt.want, numberWidths(tt.first, tt.last), "%d-%d", tt.first, tt.last)
	}
}

func TestGetRangeDefaults(t *testing.T) {
	t.Parallel()
	b := standard(t)
	got, err := b.getRange(Ref{Result: "r1"}, nil, nil)
	require.Nil(t, err)
	assert.Equal(t, "one\ntwo\nthree\n", got.Text)
	assert.Equal(t, ByteSelection{0, 14}, got.Selection)
	got, err = b.getRange(Ref{Result: "r1"}, ptr(int64(4)), nil)
	require.Nil(t, err)
	assert.Equal(t, ByteSelection{4, 14}, got.Selection)
}

func TestGetJSON(t *testing.T) {
	t.Parallel()
	b := standard(t)
	tests := []struct {
		name, pointer, as string
		text, typ         string
		plain             string
		code              errcode.Code
	}{
		{"lexeme keeps digits", "/a/b/1", AsLexeme, "1.000000000000000000001", "number", "/a/b/1", ""},
		{"object lexeme", "/a", AsLexeme, `{"b": [10, 1.000000000000000000001, "x\u00e9"]}`, "object", "/a", ""},
		{"decoded string", "/a/b/2", AsString, "xé", "string", "/a/b/2", ""},
		{"string lexeme", "/a/b/2", AsLexeme, `"x\u00e9"`, "string", "/a/b/2", ""},
		{"fragment form is echoed plain", "#/a/b/0", AsLexeme, "10", "number", "/a/b/0", ""},
		{"not a string", "/a/b/0", AsString, "", "", "", errcode.NotAString},
		{"lone surrogate as string", "/s", AsString, "", "", "", errcode.InvalidJSON},
		{"lone surrogate as lexeme", "/s", AsLexeme, `"\ud800"`, "string", "/s", ""},
		{"duplicate on the path", "/dup", AsLexeme, "", "", "", errcode.AmbiguousJSON},
		{"missing member", "/nope", AsLexeme, "", "", "", errcode.PointerNotFound},
		{"bad index", "/a/b/01", AsLexeme, "", "", "", errcode.InvalidPointer},
		{"bad escape", "/a~2", AsLexeme, "", "", "", errcode.InvalidPointer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.getJSON(Ref{Result: "r2"}, tt.pointer, tt.as)
			if tt.code != "" {
				assert.Equal(t, tt.code, code(t, err))
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.text, got.Text)
			assert.Equal(t, tt.typ, got.Type)
			assert.Equal(t, PointerSelection{tt.plain, tt.as}, got.Selection)
		})
	}
}

func TestLoneSurrogateOffset(t *testing.T) {
	t.Parallel()
	b := standard(t)
	_, err := b.getJSON(Ref{Result: "r2"}, "/s", AsString)
	require.NotNil(t, err)
	assert.Equal(t, new(int64(strings.Index(doc, `\ud800`))), err.Offset)
}

// TestCheckOrder follows SPEC section 4: the first failing check answers.
func TestCheckOrder(t *testing.T) {
	t.Parallel()
	wrong := ptr("000000000000")
	tests := []struct {
		name string
		run  func(b *Briefing) *errcode.Error
		want errcode.Code
	}{
		{"unknown result before digest", func(b *Briefing) *errcode.Error {
			_, err := b.getLines(Ref{Result: "r9", SHA256: wrong}, 1, nil, false)
			return err
		}, errcode.UnknownResult},
		{"digest before a bad range", func(b *Briefing) *errcode.Error {
			_, err := b.getLines(Ref{Result: "r1", SHA256: wrong}, 99, nil, false)
			return err
		}, errcode.DigestMismatch},
		{"digest even when the selection is valid", func(b *Briefing) *errcode.Error {
			_, err := b.getRange(Ref{Result: "r1", SHA256: wrong}, nil, nil)
			return err
		}, errcode.DigestMismatch},
		{"pointer syntax before invalid JSON", func(b *Briefing) *errcode.Error {
			_, err := b.getJSON(Ref{Result: "r3"}, "a", AsLexeme)
			return err
		}, errcode.InvalidPointer},
		{"invalid JSON before the selection", func(b *Briefing) *errcode.Error {
			_, err := b.getJSON(Ref{Result: "r3"}, "/zzz", AsLexeme)
			return err
		}, errcode.InvalidJSON},
		{"invalid JSON on a text result", func(b *Briefing) *errcode.Error {
			_, err := b.getJSON(Ref{Result: "r1"}, "", AsLexeme)
			return err
		}, errcode.InvalidJSON},
		{"selection before the caps", func(b *Briefing) *errcode.Error {
			_, err := b.getLines(Ref{Result: "r1"}, 0, nil, false)
			return err
		}, errcode.InvalidRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, code(t, tt.run(standard(t))))
		})
	}
}

func TestDigestPrefix(t *testing.T) {
	t.Parallel()
	b := standard(t)
	full, err := b.getRange(Ref{Result: "r1"}, nil, nil)
	require.Nil(t, err)
	for _, d := range []string{full.SHA256[:12], strings.ToUpper(full.SHA256[:20]), full.SHA256} {
		_, err := b.getRange(Ref{Result: "r1", SHA256: &d}, ptr(int64(0)), ptr(int64(1)))
		assert.Nil(t, err, d)
	}
	flipped := "0"
	if full.SHA256[0] == '0' {
		flipped = "1"
	}
	_, err = b.getRange(Ref{Result: "r1", SHA256: ptr(flipped + full.SHA256[1:12])}, nil, nil)
	require.NotNil(t, err)
	assert.Equal(t, errcode.DigestMismatch, err.Code)
	assert.Contains(t, err.Msg, full.SHA256[:12])
	assert.NotContains(t, err.Msg, full.SHA256[:13])

	for _, d := range []string{full.SHA256[:11], full.SHA256[:11] + "x", full.SHA256 + "0", "g" + full.SHA256[1:12]} {
		assert.Equal(t, errcode.InvalidArgument, code(t, Ref{Result: "r1", SHA256: &d}.check()), d)
	}
}

func TestLookupBudget(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxLookups = 1
	cfg.MaxLookupBytes = 5
	b := fixture(t, cfg, Legacy, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	b.inspectPaths([]string{"a.txt"})
	require.Nil(t, b.budget.StartLookup())
	_, err := b.getLines(Ref{Result: "r1"}, 1, nil, false)
	assert.Equal(t, errcode.LookupTooLarge, code(t, err))
	assert.Equal(t, int64(0), b.Budget().BytesUsed)
	assert.Equal(t, errcode.LookupLimit, code(t, b.budget.StartLookup()))
	assert.Equal(t, errcode.StepRefused, code(t, b.budget.StartLookup()))
	s := b.beginStep()
	assert.Equal(t, int64(2), s.Step)
	assert.Len(t, s.Limits, 9)
	require.Nil(t, b.budget.StartLookup())
}

func TestFind(t *testing.T) {
	t.Parallel()
	b := standard(t)
	m, err := selectors.NewMatcher(selectors.Patterns{List: []string{"t"}})
	require.Nil(t, err)
	got, err := b.find(Ref{Result: "r1"}, FindQuery{Matcher: m, MaxMatches: 1})
	require.Nil(t, err)
	assert.Equal(t, "2#h7: two\n… 1 more\n", got.Text)
	assert.Equal(t, 2, got.Total)
	assert.True(t, got.Truncated)
	assert.Equal(t, int64(len(got.Text)), got.Bytes)
	assert.Equal(t, limits.EscapedSize(got.Text), got.EscapedBytes)

	m, _ = selectors.NewMatcher(selectors.Patterns{List: []string{"zzz"}})
	got, err = b.find(Ref{Result: "r1"}, FindQuery{Matcher: m, MaxMatches: 20})
	require.Nil(t, err)
	assert.Equal(t, "no match in r1\n", got.Text, "no match is one line, never an empty text")
	assert.Equal(t, []selectors.Match{}, got.Matches)
}

func TestListResults(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PageSize = 2
	b := fixture(t, cfg, Legacy, map[string]string{"a": "1", "b": "2", "c": "3"})

	empty, err := b.listResults(0, nil)
	require.Nil(t, err)
	assert.Equal(t, int64(1), empty.Pages)
	assert.Equal(t, "no results\n", empty.Text)

	b.inspectPaths([]string{"a", "b", "c"})
	p, err := b.listResults(0, nil)
	require.Nil(t, err)
	assert.Equal(t, int64(2), p.Pages)
	assert.Equal(t, int64(3), p.Total)
	require.NotNil(t, p.Next)
	assert.Equal(t, int64(1), *p.Next)
	assert.Len(t, p.Results, 2)
	assert.Len(t, p.Results[0].SHA256, 64, "structured content keeps the full digest")
	assert.Equal(t, "r1\nr2\npage 0 of 2: page 1 holds the next\n", p.Text, "without Options.Header, a result's line is its ID")
	assert.Equal(t, limits.EscapedSize(p.Text), p.Budget.BytesUsed-empty.Budget.BytesUsed)

	last, err := b.listResults(1, nil)
	require.Nil(t, err)
	assert.Nil(t, last.Next)
	assert.Equal(t, "r3", *last.Results[0].ID)

	_, err = b.listResults(2, nil)
	assert.Equal(t, errcode.InvalidRange, code(t, err))
	_, err = b.listResults(-1, nil)
	assert.Equal(t, errcode.InvalidRange, code(t, err))
	one := int64(1)
	p, err = b.listResults(2, &one)
	require.Nil(t, err)
	assert.Equal(t, int64(3), p.Pages)
	assert.Equal(t, errcode.InvalidArgument, code(t, b.checkPageSize(3)))
	assert.Equal(t, errcode.InvalidArgument, code(t, b.checkPageSize(0)))
}

func TestInspect(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 1
	cfg.PreviewBytes = 3
	files := map[string]string{"a.txt": "hello\n", "b.txt": "world\n", "bad.bin": "a\xffb", "dir/x": "x"}
	legacy := fixture(t, cfg, Legacy, files)
	got := legacy.inspectPaths([]string{"a.txt", "./a.txt", "b.txt", "bad.bin", "dir", "../a.txt"})
	require.Nil(t, got[0].Err)
	assert.Equal(t, "r1", *got[0].Descriptor.ID)
	assert.Equal(t, "hel", *got[0].Descriptor.Preview)
	assert.True(t, *got[1].Descriptor.Reused, "the same file again is reused")
	assert.Equal(t, "a.txt", *got[1].Descriptor.Source.Path)
	// Legacy: a full store still describes the result, without an ID.
	require.Nil(t, got[2].Err)
	assert.Nil(t, got[2].Descriptor.ID)
	assert.Equal(t, "store_full", got[2].Descriptor.Reason)
	assert.Equal(t, "wor", *got[2].Descriptor.Preview)
	assert.Equal(t, errcode.NotUTF8, code(t, got[3].Err))
	assert.Equal(t, new(int64(1)), got[3].Err.Offset)
	require.Nil(t, got[4].Err, "a directory is listed")
	assert.Equal(t, results.Source{Kind: results.KindListing, Path: new("dir")}, got[4].Descriptor.Source)
	assert.Equal(t, int64(len("dir/x\n")), got[4].Descriptor.Bytes)
	assert.Equal(t, errcode.PathOutsideRoot, code(t, got[5].Err))

	bounded := fixture(t, cfg, Bounded, files)
	got = bounded.inspectPaths([]string{"a.txt", "b.txt", "a.txt"})
	require.Nil(t, got[0].Err)
	assert.Nil(t, got[0].Descriptor.Preview)
	assert.Equal(t, errcode.StoreFull, code(t, got[1].Err))
	require.Nil(t, got[2].Err, "the other paths are still read")
	assert.True(t, *got[2].Descriptor.Reused)

	// 1 to MaxPaths paths, which the binder checks before it reads one.
	paths := func(n int) string {
		return `{"paths":[` + strings.TrimSuffix(strings.Repeat(`"a",`, n), ",") + `]}`
	}
	var req InspectRequest
	err := decodeArgs(indexArgs(t, paths(0)), &req)
	require.NotNil(t, err)
	assert.Equal(t, `argument "paths" must be an array of 1 to 64 strings, not an array of 0`, err.Msg)
	err = decodeArgs(indexArgs(t, paths(65)), &req)
	require.NotNil(t, err)
	assert.Equal(t, `argument "paths" must be an array of 1 to 64 strings, not an array of 65`, err.Msg)
	require.Nil(t, decodeArgs(indexArgs(t, paths(64)), &req))
	assert.Len(t, req.Paths, 64)
}

func TestInspectTooLarge(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResultBytes = 4
	b := fixture(t, cfg, Legacy, map[string]string{"big": "12345", "ok": "1234"})
	got := b.inspectPaths([]string{"big", "ok"})
	assert.Equal(t, errcode.TooLarge, code(t, got[0].Err))
	assert.Nil(t, got[1].Err)
}

// TestInspectOverIndexLimit: with --max-result-bytes above what the indexes
// can address (4 GiB - 1; 2 GiB - 1 on a 32-bit platform), a larger file
// is too_large by its size, with size and limit, and is not read (a sparse
// file: reading it would take seconds).
func TestInspectOverIndexLimit(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResultBytes, cfg.MaxStoreBytes, cfg.MaxTotalBytes = 5<<30, 10<<30, 10<<30
	b := fixture(t, cfg, Legacy, map[string]string{"ok": "1234"})
	huge := filepath.Join(b.opts.Root.Dir(), "huge")
	require.NoError(t, os.WriteFile(huge, nil, 0o644))
	require.NoError(t, os.Truncate(huge, selectors.MaxSize+1))
	got := b.inspectPaths([]string{"huge", "ok"})
	require.NotNil(t, got[0].Err)
	assert.Equal(t, errcode.TooLarge, got[0].Err.Code)
	assert.Equal(t, new(int64(selectors.MaxSize+1)), got[0].Err.Size)
	assert.Equal(t, new(int64(selectors.MaxSize)), got[0].Err.Limit)
	assert.Contains(t, got[0].Err.Msg, fmt.Sprintf(`file "huge" is %d bytes`, int64(selectors.MaxSize)+1), "refused by its size, before reading")
	assert.Nil(t, got[1].Err)
}
