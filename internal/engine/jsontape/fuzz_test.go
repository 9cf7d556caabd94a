package jsontape

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/ohler55/ojg/oj"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// The fuzz targets' seed corpus is in testdata/fuzz; it runs on every
// go test. Run a target with, for example:
//
//	go test ./internal/jsontape -run x -fuzz FuzzValidate -fuzztime 60s

// FuzzValidate checks the scanner and the walks: Validate and Build
// (strict and lenient) agree; the verdict and the offset of an error match
// encoding/json and jsontext wherever their rules are ours; every value of
// the index lies where jsontext finds it, is itself a valid document of its
// type, and is found again by Element or Member; strings decode as
// encoding/json and ojg decode them.
func FuzzValidate(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, verr := Validate(data)
		ix, ierr := Build(data, Options{})
		require.Equal(t, verr, ierr, "Build and Validate must agree")
		checkAgainstOthers(t, data, verr)

		lenient, lerr := Build(data, Options{AllowInvalidUTF8: true})
		switch {
		case verr == nil:
			require.Nil(t, lerr)
		case lerr == nil:
			assert.Contains(t, verr.Msg, "invalid UTF-8", "only raw invalid UTF-8 may fail strictly and pass leniently")
		case !strings.Contains(verr.Msg, "UTF-8") && !strings.Contains(verr.Msg, "end of input"):
			assert.Equal(t, verr, lerr, "the lenient index is strict about everything but UTF-8")
		}
		if verr != nil {
			require.Equal(t, errcode.InvalidJSON, verr.Code)
			require.NotNil(t, verr.Offset, verr.Msg)
			off := *verr.Offset
			require.True(t, off >= 0 && off <= int64(len(data)), "offset %d outside 0-%d", off, len(data))
			if lerr == nil {
				checkIndex(t, data, lenient)
			}
			return
		}
		require.Equal(t, typ, ix.Kind(ix.Root()))
		require.Equal(t, typ, ix.Type())
		checkIndex(t, data, ix)
		checkSpans(t, data, ix)
	})
}

// checkAgainstOthers compares the verdict with encoding/json and jsontext.
// encoding/json accepts raw invalid UTF-8 and nests up to 10,000 levels,
// and jsontext (with AllowInvalidUTF8, which is how it accepts lone
// surrogate escapes) does too, so the verdicts are compared only for valid
// UTF-8 that fails for a reason other than depth.
func checkAgainstOthers(t *testing.T, data []byte, verr *errcode.Error) {
	if verr == nil {
		assert.True(t, json.Valid(data), "encoding/json rejects what we accept")
		assert.True(t, jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)))
		return
	}
	if !utf8.Valid(data) || strings.Contains(verr.Msg, "nesting deeper") {
		return
	}
	assert.False(t, json.Valid(data), "encoding/json accepts what we reject: %s", verr.Msg)
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	assert.False(t, jsontext.Value(data).IsValid(opts...), "jsontext accepts what we reject: %s", verr.Msg)

	// jsontext reports an unexpected character at the same offset as we do
	// (SPEC section 4.3's rule; it differs on purpose for escapes and the
	// end of input).
	d := jsontext.NewDecoder(bytes.NewReader(data), opts...)
	_, err := d.ReadValue()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && jsontextInvalidChar.MatchString(se.Error()) {
		assert.Equal(t, new(se.ByteOffset), verr.Offset, "jsontext: %v; ours: %s", err, verr.Msg)
	}
}

var jsontextInvalidChar = regexp.MustCompile(`invalid character '.*' (at start of value|after|in number|in literal|at start of string)`)

// checkIndex walks every value of ix (a bounded number of them, so that
// each input stays fast).
func checkIndex(t *testing.T, data []byte, ix *Index) {
	checks := 0
	var walk func(n Node)
	walk = func(n Node) {
		if checks++; checks > 3000 {
			return
		}
		start, end := ix.Span(n)
		require.True(t, 0 <= start && start < end && end <= len(data), "span %d-%d outside 0-%d", start, end, len(data))
		lexeme := data[start:end]
		kind := ix.Kind(n)
		require.Equal(t, Value{start, end, kind}, ix.Value(n))
		if !ix.InvalidUTF8(n) && kind != Object && kind != Array {
			typ, err := Validate(lexeme)
			require.Nil(t, err, "%q", lexeme)
			require.Equal(t, kind, typ)
		}
		switch kind {
		case String:
			checkString(t, data, ix, n)
		case Array:
			count := 0
			for i, v := range ix.Elements(n) {
				require.Equal(t, count, i)
				count++
				vs, ve := ix.Span(v)
				require.True(t, start < vs && ve < end, "element %d-%d outside its array %d-%d", vs, ve, start, end)
				got, ok := ix.Element(n, i)
				require.True(t, ok)
				require.Equal(t, v, got, "element %d", i)
				walk(v)
			}
			require.Equal(t, count, ix.Len(n))
			_, ok := ix.Element(n, count)
			require.False(t, ok)
		case Object:
			names := map[string]int{}
			for m := range ix.Members(n) {
				names[m.Name]++
			}
			count := 0
			for m, v := range ix.Members(n) {
				count++
				vs, ve := ix.Span(v)
				require.True(t, start < m.NameStart && m.NameEnd < vs && ve < end)
				require.Equal(t, byte('"'), data[m.NameStart])
				got, c := ix.Member(n, m.Name)
				require.Equal(t, min(names[m.Name], 2), c, "member %q", m.Name)
				if c == 1 {
					require.Equal(t, v, got)
				}
				walk(v)
			}
			require.Equal(t, count, ix.Len(n))
			_, c := ix.Member(n, "\x00 no such name")
			require.Zero(t, c)
		}
	}
	walk(ix.Root())
}

// checkString cross-checks the decoding of string n with encoding/json and
// ojg.
func checkString(t *testing.T, data []byte, ix *Index, n Node) {
	v := ix.Value(n)
	lexeme := data[v.Start:v.End]
	got, err := DecodeString(data, v)
	text, invalidAt := ix.StringText(n)
	require.Equal(t, firstInvalid(text), invalidAt, "StringText's invalidAt")
	if err != nil {
		require.Equal(t, errcode.InvalidJSON, err.Code)
		require.NotNil(t, err.Offset, err.Msg)
		off := int(*err.Offset)
		require.True(t, v.Start < off && off < v.End)
		require.GreaterOrEqual(t, invalidAt, 0, "StringText must report what DecodeString refuses")
		if !ix.InvalidUTF8(n) {
			require.Equal(t, []byte(`\u`), data[off:off+2], "a lone surrogate escape: %s", err.Msg)
		}
		return
	}
	require.Equal(t, got, text)
	require.Equal(t, -1, invalidAt)
	var want string
	require.NoError(t, json.Unmarshal(lexeme, &want))
	assert.Equal(t, want, got, "encoding/json decodes %q differently", lexeme)
	if !bytes.Contains(lexeme, []byte(`\u`)) {
		o, oerr := oj.Parse(lexeme)
		require.NoError(t, oerr)
		assert.Equal(t, o, got, "ojg decodes %q differently", lexeme)
	}
}

// firstInvalid is the offset of the first byte of s that does not start a
// valid UTF-8 sequence, or -1.
func firstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

// spanned is a value as an oracle finds it: its span and its RFC 6901
// pointer.
type spanned struct {
	start, end int
	pointer    string
}

// jsontextValues returns every value of the valid document data as
// jsontext's decoder finds it, in document order: the span of its lexeme
// and its pointer (the decoder's StackPointer).
func jsontextValues(t *testing.T, data []byte) []spanned {
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out []spanned
	var open []int // the open containers' values
	for {
		kind := d.PeekKind()
		container, length := d.StackIndex(d.StackDepth())
		switch {
		case kind == 0:
			_, err := d.ReadToken()
			require.ErrorIs(t, err, io.EOF)
			return out
		case kind == '{' || kind == '[':
			_, err := d.ReadToken()
			require.NoError(t, err)
			end := int(d.InputOffset())
			open = append(open, len(out))
			out = append(out, spanned{start: end - 1, pointer: string(d.StackPointer())})
		case kind == '}' || kind == ']':
			_, err := d.ReadToken()
			require.NoError(t, err)
			out[open[len(open)-1]].end = int(d.InputOffset())
			open = open[:len(open)-1]
		case container == '{' && length%2 == 0: // a name
			_, err := d.ReadToken()
			require.NoError(t, err)
		default:
			v, err := d.ReadValue()
			require.NoError(t, err)
			end := int(d.InputOffset())
			out = append(out, spanned{start: end - len(v), end: end, pointer: string(d.StackPointer())})
		}
	}
}

// checkSpans checks the spans of every value against jsontext's.
func checkSpans(t *testing.T, data []byte, ix *Index) {
	var got []spanned
	var walk func(n Node)
	walk = func(n Node) {
		start, end := ix.Span(n)
		got = append(got, spanned{start: start, end: end})
		for _, v := range ix.Elements(n) {
			walk(v)
		}
		for _, v := range ix.Members(n) {
			walk(v)
		}
	}
	walk(ix.Root())
	want := jsontextValues(t, data)
	for k := range want {
		want[k].pointer = ""
	}
	require.Equal(t, want, got)
}

// FuzzSplit checks the two-half build against the one-scan build at many
// split points: the same verdict and error, the same recorded values (as a
// large document records them), and the same walks (checkpoints may
// differ near the split, see split.go).
func FuzzSplit(f *testing.F) {
	for _, seed := range fuzzCorpus(f, "testdata/fuzz/FuzzValidate") {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkSplits(t, data, 64)
	})
}

// checkSplits builds data in two halves split near every offset (or at
// most splits of them) and compares with the one-scan build.
func checkSplits(t *testing.T, data []byte, splits int) {
	for _, opts := range []Options{{}, {AllowInvalidUTF8: true}, {MaxDepth: 3}} {
		want, werr := Build(data, opts)
		step := max(1, len(data)/splits)
		for mid := 0; mid <= len(data); mid += step {
			got, gerr := buildSplit(data, opts, mid)
			require.Equal(t, werr, gerr, "split near %d", mid)
			if werr != nil {
				continue
			}
			sparse := buildSparse(t, data, opts) // a split document has a large one's tape
			require.Equal(t, recordedValues(sparse.tape), recordedValues(got.tape), "split near %d", mid)
			require.Equal(t, want.root, got.root)
			require.Equal(t, want.top, got.top)
			require.Equal(t, want.deepest, got.deepest, "the deepest nesting, split near %d", mid)
			require.Equal(t, want.lenient, got.lenient)
			checkSameWalk(t, want, got, want.Root(), got.Root())
		}
	}
}

// recordedValues returns the spans of the recorded values of a tape.
func recordedValues(tape []entry) [][2]uint32 {
	var out [][2]uint32
	for _, e := range tape {
		if !e.checkpoint() {
			out = append(out, [2]uint32{e.start, e.end})
		}
	}
	return out
}

// checkSameWalk checks that two indexes of one document walk alike from
// a and b, and find the same elements.
func checkSameWalk(t *testing.T, x, y *Index, a, b Node) {
	require.Equal(t, x.Value(a), y.Value(b))
	var as, bs []Node
	for i, v := range x.Elements(a) {
		as = append(as, v)
		w, ok := y.Element(b, i)
		require.True(t, ok)
		require.Equal(t, x.Value(v), y.Value(w))
	}
	for _, v := range y.Elements(b) {
		bs = append(bs, v)
	}
	for _, v := range x.Members(a) {
		as = append(as, v)
	}
	for _, v := range y.Members(b) {
		bs = append(bs, v)
	}
	require.Equal(t, len(as), len(bs))
	require.Equal(t, x.Len(a), y.Len(b))
	for k := range as {
		checkSameWalk(t, x, y, as[k], bs[k])
	}
}

// TestWalkCorpus runs FuzzValidate's checks of the walks on every valid
// document of the corpus.
func TestWalkCorpus(t *testing.T) {
	t.Parallel()
	docs := validCorpus(t)
	require.Greater(t, len(docs), 500, "the corpus must not silently shrink")
	for _, doc := range docs {
		t.Run(doc.name, func(t *testing.T) {
			t.Parallel()
			ix, err := Build(doc.data, Options{})
			require.Nil(t, err)
			checkIndex(t, doc.data, ix)
			checkSpans(t, doc.data, ix)
		})
	}
}

// TestSplitCorpus builds every document of the corpus in two halves, split
// at 12 points (FuzzSplit's seeds are split at every offset of the small
// ones).
func TestSplitCorpus(t *testing.T) {
	t.Parallel()
	docs := validCorpus(t)
	for _, lit := range testLiterals(t) {
		if _, err := Validate(lit); err != nil {
			docs = append(docs, namedDoc{"invalid", lit})
		}
	}
	for _, doc := range docs {
		t.Run(doc.name, func(t *testing.T) {
			t.Parallel()
			checkSplits(t, doc.data, 12)
		})
	}
}

// TestSplitAfterTop checks documents whose top-level value is followed by
// more, which a second half cannot tell from the rest of a container it
// did not see open: at every split, the error of one scan.
func TestSplitAfterTop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64 // the offset of the error
	}{
		{`{"0": {}, "": {}},null `, 17},
		{`[[1],[2]],3`, 9},
		{`{"a":1,"b":2},{"c":3}`, 13},
		{`[1,2]]`, 5},
		{`{"a":[1,2]}}`, 11},
		{`[[1,2],[3,4]`, 12},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := Build([]byte(tt.in), Options{})
			require.NotNil(t, err)
			assert.Equal(t, errcode.Details{Offset: new(tt.want)}, err.Details, err.Msg)
			checkSplits(t, []byte(tt.in), len(tt.in))
		})
	}
}
