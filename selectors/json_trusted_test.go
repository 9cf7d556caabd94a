package selectors

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// TestIndexValidJSONSameTape checks that, on every valid document of the
// package's corpora and of the generated cases, IndexValidJSON builds
// exactly IndexJSON's tape: the same spans, kinds, string flags and
// descendant counts, and the same capacity.
//
// A container with jsonDescSaturated (2^27-1) descendants or more would
// take a document of over 256 MiB, so saturation is left to the shared
// expression both builders use.
func TestIndexValidJSONSameTape(t *testing.T) {
	t.Parallel()
	docs := validCorpus(t)
	require.Greater(t, len(docs), 400, "the corpus must not silently shrink")
	for _, doc := range docs {
		t.Run(doc.name, func(t *testing.T) {
			t.Parallel()
			requireSameTape(t, doc.data)
		})
	}
}

// TestIndexValidJSONExamples pins the tape of a few documents, so that a
// change to both builders at once does not pass unnoticed.
func TestIndexValidJSONExamples(t *testing.T) {
	t.Parallel()
	esc := uint32(jsonStrEscaped) << jsonFlagShift
	tests := []struct {
		in   string
		want []jsonNode
	}{
		{`0`, []jsonNode{{0, 1, jsonKindNumber}}},
		{` "a\"b" `, []jsonNode{{1, 7, jsonKindString | esc}}},
		{`[true,false,null,-1.5e+3,"x"]`, []jsonNode{
			{0, 29, jsonKindArray | 5<<jsonDescShift},
			{1, 5, jsonKindTrue}, {6, 11, jsonKindFalse}, {12, 16, jsonKindNull},
			{17, 24, jsonKindNumber}, {25, 28, jsonKindString},
		}},
		{`{"a\\":{},"b":[ ],"c":[{"d":"\u00e9"}]}`, []jsonNode{
			{0, 39, jsonKindObject | 5<<jsonDescShift},
			{7, 9, jsonKindObject}, {14, 17, jsonKindArray},
			{22, 38, jsonKindArray | 2<<jsonDescShift}, {23, 37, jsonKindObject | 1<<jsonDescShift},
			{28, 36, jsonKindString | esc},
		}},
	}
	for _, tt := range tests {
		t.Run(jsonTestName(tt.in), func(t *testing.T) {
			t.Parallel()
			ix, err := IndexValidJSON([]byte(tt.in))
			require.Nil(t, err)
			assert.Equal(t, tt.want, ix.nodes)
			requireSameTape(t, []byte(tt.in))
		})
	}
}

// TestIndexValidJSONInvalid feeds IndexValidJSON documents that break its
// precondition: every string literal of the package's JSON tests that
// ValidateJSON rejects, every truncation of small valid documents and
// every one-byte change to a few. It must not panic; when it fails, it
// fails with IndexJSON's error; when it builds an index, the index is
// sound enough to walk (checkSoundTape).
func TestIndexValidJSONInvalid(t *testing.T) {
	t.Parallel()
	var docs [][]byte
	for _, lit := range testLiterals(t) {
		if _, err := ValidateJSON(lit); err != nil {
			docs = append(docs, lit)
		}
	}
	for k, doc := range validCorpus(t) {
		// The generated escapes are many and alike: cut one in 16.
		if len(doc.data) > 200 || strings.Contains(doc.name, "escape") && k%16 != 0 {
			continue
		}
		for cut := range len(doc.data) {
			docs = append(docs, doc.data[:cut])
		}
	}
	base := []byte(`{"a":[1,-2.5e3,"x\"y",true,false,null,{}],"b\u00e9":{"c":[[]]}}`)
	for i := range base {
		for _, c := range []byte(`"\{}[],: 0-tfnx`) {
			doc := bytes.Clone(base)
			doc[i] = c
			docs = append(docs, doc)
		}
	}
	docs = append(docs, []byte(strings.Repeat("[", MaxJSONDepth+1)+strings.Repeat("]", MaxJSONDepth+1)),
		[]byte(`"\`), []byte(`"abcdefgh\`), []byte(`["abcdefgh\"]`), []byte(`{"a" 1}`), []byte(`{1:2}`),
		[]byte(`[1 2]`), []byte(`[}`), []byte(`{]`), []byte(`]`), []byte(`tru`), []byte(`nul`), []byte(`"\u12`))

	rejected := 0
	for _, doc := range docs {
		ix, err := IndexValidJSON(doc)
		_, want := IndexJSON(doc)
		if err != nil {
			require.Equal(t, errcode.InvalidJSON, err.Code)
			require.Equal(t, want, err, "%q", doc)
			rejected++
			continue
		}
		checkSoundTape(t, doc, ix)
	}
	assert.Greater(t, rejected, len(docs)/2, "most broken documents are noticed on the way")
}

// FuzzIndexValidJSON checks IndexValidJSON against IndexJSON: the same tape
// for every document ValidateJSON accepts and, for any other input, no
// panic, IndexJSON's error when it fails and a sound tape when it does not.
// Its seeds are FuzzValidateJSON's corpus.
func FuzzIndexValidJSON(f *testing.F) {
	for _, seed := range fuzzCorpus(f, "FuzzValidateJSON") {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ValidateJSON(data); err == nil {
			requireSameTape(t, data)
			return
		}
		ix, err := IndexValidJSON(data)
		if err != nil {
			_, want := IndexJSON(data)
			require.Equal(t, want, err)
			return
		}
		checkSoundTape(t, data, ix)
	})
}

// requireSameTape checks that IndexValidJSON and IndexJSON index valid
// document data the same way, and that IndexValidJSON did so by itself,
// without falling back on IndexJSON.
func requireSameTape(t *testing.T, data []byte) {
	t.Helper()
	want, err := IndexJSON(data)
	require.Nil(t, err, "the document must be valid")
	got, ok := jsonBuildValid(data)
	require.True(t, ok, "the trusted scan gave up on a valid document")
	require.Equal(t, len(want.nodes), len(got), "values")
	for k := range want.nodes {
		if want.nodes[k] != got[k] {
			require.Equal(t, want.nodes[k], got[k], "node %d at %d, %q", k, want.nodes[k].start,
				data[want.nodes[k].start:min(int(want.nodes[k].end), int(want.nodes[k].start)+40)])
		}
	}
	assert.Equal(t, cap(want.nodes), cap(got), "tape capacity")

	ix, err := IndexValidJSON(data)
	require.Nil(t, err)
	assert.Equal(t, want.nodes, ix.nodes)
	requireSameSplitTape(t, data, want.nodes)
}

// requireSameSplitTape checks that the two-half build gives the tape want
// for every split ValidateJSONSplit would record (every offset of a small
// document, 64 across a larger one), and that a split that does not fit
// the document is refused, not trusted.
func requireSameSplitTape(t *testing.T, data []byte, want []jsonNode) {
	t.Helper()
	step := max(1, len(data)/64)
	if len(data) <= 2000 {
		step = 1
	}
	for at := 0; at < len(data); at += step {
		_, split, err := validateSplitAt(data, at)
		require.Nil(t, err)
		if split.Offset == 0 {
			break // no ',' at or after at
		}
		got, ok := jsonBuildValidSplit(data, split)
		require.True(t, ok, "the halves did not meet at %d (after the first ',' past %d)", split.Offset, at)
		require.Equal(t, want, got, "split at %d (after the first ',' past %d)", split.Offset, at)
		ix, err := IndexValidJSONSplit(data, split)
		require.Nil(t, err)
		require.Equal(t, want, ix.nodes)

		// A split that does not fit: the halves do not meet, and the
		// index falls back on the validating build.
		wrong := JSONSplit{Offset: split.Offset, Objects: append([]bool(nil), split.Objects...)}
		wrong.Objects[len(wrong.Objects)-1] = !wrong.Objects[len(wrong.Objects)-1]
		_, ok = jsonBuildValidSplit(data, wrong)
		require.False(t, ok, "wrong kinds at %d accepted", split.Offset)
		ix, err = IndexValidJSONSplit(data, wrong)
		require.Nil(t, err)
		require.Equal(t, want, ix.nodes, "wrong kinds at %d", split.Offset)
		ix, err = IndexValidJSONSplit(data, JSONSplit{Offset: split.Offset - 1, Objects: split.Objects})
		require.Nil(t, err)
		require.Equal(t, want, ix.nodes, "offset one short of %d", split.Offset)
	}
}

// checkSoundTape checks what IndexValidJSON guarantees even on input that
// breaks its precondition, when it does not fail: at least one node, and
// every node a non-empty span of data whose descendants are on the tape.
func checkSoundTape(t *testing.T, data []byte, ix *JSONIndex) {
	t.Helper()
	require.NotEmpty(t, ix.nodes, "%q", data)
	for k, nd := range ix.nodes {
		require.True(t, nd.start < nd.end && int(nd.end) <= len(data), "node %d: %d-%d of %q", k, nd.start, nd.end, data)
		desc := int(nd.meta >> jsonDescShift)
		require.LessOrEqual(t, k+1+desc, len(ix.nodes), "node %d of %q", k, data)
	}
}

// namedDoc is a test document.
type namedDoc struct {
	name string
	data []byte
}

// validCorpus returns the valid documents of the FuzzValidateJSON and
// FuzzJSONPointer corpora, the valid string literals of json_*_test.go and
// the generated documents of trustedCases.
func validCorpus(t *testing.T) []namedDoc {
	t.Helper()
	var docs []namedDoc
	add := func(name string, data []byte) {
		if _, err := ValidateJSON(data); err == nil {
			docs = append(docs, namedDoc{fmt.Sprintf("%03d_%s", len(docs), name), data})
		}
	}
	for _, target := range []string{"FuzzValidateJSON", "FuzzJSONPointer"} {
		for _, data := range fuzzCorpus(t, target) {
			add(target, data)
		}
	}
	for _, lit := range testLiterals(t) {
		add("literal", lit)
	}
	for _, c := range trustedCases() {
		add(c.name, c.data)
	}
	return docs
}

// fuzzCorpus returns the first []byte argument of each file of a fuzz
// target's seed corpus in testdata/fuzz.
func fuzzCorpus(t testing.TB, target string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files, target)
	var out [][]byte
	for _, file := range files {
		f, err := os.Open(file)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if arg, ok := strings.CutPrefix(sc.Text(), "[]byte("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
				require.NoError(t, err, file)
				out = append(out, []byte(s))
				break
			}
		}
		require.NoError(t, sc.Err())
		require.NoError(t, f.Close())
	}
	return out
}

// testLiterals returns every string literal of the package's json_*_test.go
// files: the documents of their tables, valid and invalid.
func testLiterals(t *testing.T) [][]byte {
	t.Helper()
	files, err := filepath.Glob("json_*_test.go")
	require.NoError(t, err)
	var out [][]byte
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				out = append(out, []byte(s))
			}
			return true
		})
	}
	return out
}

// trustedCases generates documents that take each path of the trusted scan:
// nesting to MaxJSONDepth, every escape at every offset modulo 8 in values
// and names, runs of backslashes before a closing quote, strings and
// numbers that end within the last 8 bytes of the document, whitespace of
// every kind and length around every token, empty containers, and random
// documents.
func trustedCases() []namedDoc {
	var docs []namedDoc
	add := func(name, s string) { docs = append(docs, namedDoc{name, []byte(s)}) }

	add("deep_arrays", strings.Repeat("[", MaxJSONDepth)+strings.Repeat("]", MaxJSONDepth))
	add("deep_objects", strings.Repeat(`{"a":`, MaxJSONDepth-1)+`{}`+strings.Repeat("}", MaxJSONDepth-1))
	add("deep_mixed", strings.Repeat(`[{"k" : [ 1,`, MaxJSONDepth/3)+`"x"`+strings.Repeat(`]}]`, MaxJSONDepth/3))
	add("deep_spaced", strings.Repeat("[ \n", MaxJSONDepth)+strings.Repeat("\t]", MaxJSONDepth))

	escapes := []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\ud800`, `\udc00`, `\ud83d\ude00`, `\uDBFF\uDFFF`, `\"\\`, `\\\"`}
	for _, esc := range escapes {
		for pos := range 17 {
			for _, tail := range []int{0, 1, 7, 8, 9} {
				s := `"` + strings.Repeat("é", pos/2) + strings.Repeat("x", pos%2) + esc + strings.Repeat("y", tail) + `"`
				add("escape_value", s)
				add("escape_in_array", "["+s+","+s+"]")
				add("escape_name", "{"+s+":"+s+"}")
				add("escape_name_spaced", "{ "+s+" : 1 }")
			}
		}
	}
	for k := range 12 {
		add("backslashes_before_quote", `["`+strings.Repeat(`\\`, k)+`","`+strings.Repeat(`\\`, k)+`\""]`)
	}
	for n := range 24 {
		add("string_at_end", `"`+strings.Repeat("s", n)+`"`)
		add("escaped_string_at_end", `"`+strings.Repeat("s", n)+`\""`)
		add("number_at_end", "1"+strings.Repeat("2", n))
		add("number_then_spaces", "-0."+strings.Repeat("5", n)+strings.Repeat(" ", n))
	}
	for _, num := range []string{"0", "-0", "1e5", "1E+5", "-1.5e-10", "0.000001", "123456789012345678901234567890", "-9.87654321E-0123"} {
		for _, after := range []string{"", " ", "\n", "\t", "\r", ",0", "]", "}"} {
			switch after {
			case "]":
				add("number", "["+num+after)
			case "}":
				add("number", `{"n":`+num+after)
			case ",0":
				add("number", "["+num+after+"]")
			default:
				add("number", num+after)
			}
		}
	}
	for _, empty := range []string{"{}", "[]", "[ ]", "{\n}", "[[]]", "[{}]", `{"a":{}}`, `{"a":[]}`, `[[],{},[[]],{"":{}}]`} {
		add("empty", empty)
		add("empty_spaced", " \t\r\n"+empty+"\n\r\t ")
	}
	add("literals", `[true,false,null,{"t":true,"f":false,"n":null}]`)
	add("unicode", `{"é😀€":"日本語 \u00e9 😀","k":"ok"}`)

	ws := []string{"", " ", "\n", "\t", "\r", "\r\n", "        ", "         \t  ", strings.Repeat(" ", 40)}
	for k, sp := range ws {
		tokens := []string{"{", `"a"`, ":", "[", "1", ",", "-2.5e3", ",", `"x\"y"`, ",", "true", "]", ",", `"b"`, ":", "{", "}", ",", `"c"`, ":", "null", "}"}
		add(fmt.Sprintf("whitespace_%d", k), sp+strings.Join(tokens, sp)+sp)
	}

	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 40 {
		var b strings.Builder
		genJSON(rng, &b, 0, 4+k%5)
		add(fmt.Sprintf("random_%d", k), b.String())
	}
	return docs
}

// genJSON writes a random valid value, with random whitespace, nested at
// most depth levels more.
func genJSON(rng *rand.Rand, b *strings.Builder, level, depth int) {
	space := func() {
		for range rng.IntN(3) {
			b.WriteString([]string{" ", "\n", "\t", "\r", "        "}[rng.IntN(5)])
		}
	}
	pieces := []string{"a", "bc", "defghijk", "é", "😀", `\"`, `\\`, `\n`, `\u00e9`, `\ud800`, `\ud83d\ude00`, "0123456789", " "}
	str := func() {
		b.WriteByte('"')
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
	}
	space()
	switch k := rng.IntN(10); {
	case k < 2 && level < depth:
		b.WriteByte('[')
		for i := range rng.IntN(12) {
			if i > 0 {
				b.WriteByte(',')
			}
			genJSON(rng, b, level+1, depth)
		}
		space()
		b.WriteByte(']')
	case k < 4 && level < depth:
		b.WriteByte('{')
		for i := range rng.IntN(12) {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			str()
			space()
			b.WriteByte(':')
			genJSON(rng, b, level+1, depth)
		}
		space()
		b.WriteByte('}')
	case k < 6:
		str()
	case k < 8:
		b.WriteString([]string{"0", "-1", "12.5", "-0.25e+7", "6E-3", "123456789012", "1e400"}[rng.IntN(7)])
	default:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	}
	space()
}
