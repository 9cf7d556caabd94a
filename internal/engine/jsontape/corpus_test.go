package jsontape

import (
	"bufio"
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

	"github.com/stretchr/testify/require"
)

// The test documents of the package: the seed corpora, every string
// literal of the tests, and generated documents that take every path of
// the scan and the walks.

// namedDoc is a test document.
type namedDoc struct {
	name string
	data []byte
}

// validCorpus returns the valid documents of the FuzzValidate corpus and
// selectors' FuzzJSONPointer corpus, the valid string literals of the
// package's tests and the generated documents of generatedCases.
func validCorpus(t *testing.T) []namedDoc {
	t.Helper()
	var docs []namedDoc
	add := func(name string, data []byte) {
		if _, err := Validate(data); err == nil {
			docs = append(docs, namedDoc{fmt.Sprintf("%03d_%s", len(docs), name), data})
		}
	}
	for _, dir := range []string{"testdata/fuzz/FuzzValidate", "../../../selectors/testdata/fuzz/FuzzJSONPointer"} {
		for _, data := range fuzzCorpus(t, dir) {
			add(filepath.Base(dir), data)
		}
	}
	for _, lit := range testLiterals(t) {
		add("literal", lit)
	}
	for _, c := range generatedCases() {
		add(c.name, c.data)
	}
	return docs
}

// fuzzCorpus returns the first []byte argument of each file of a fuzz
// seed corpus directory.
func fuzzCorpus(t testing.TB, dir string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
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

// testLiterals returns every string literal of the package's tests: the
// documents of their tables, valid and invalid.
func testLiterals(t *testing.T) [][]byte {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
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

// generatedCases generates documents that take each path of the scan and
// the walks: nesting to MaxDepth, every escape at every offset modulo 8 in
// values and names, runs of backslashes before a closing quote, strings
// and numbers that end within the last 8 bytes of the document, whitespace
// of every kind and length around every token, empty containers, values
// around minOwn bytes, arrays around checkpointEvery elements, objects
// around objectIndexMin bytes, and random documents.
func generatedCases() []namedDoc {
	var docs []namedDoc
	add := func(name, s string) { docs = append(docs, namedDoc{name, []byte(s)}) }

	add("deep_arrays", strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth))
	add("deep_objects", strings.Repeat(`{"a":`, MaxDepth-1)+`{}`+strings.Repeat("}", MaxDepth-1))
	add("deep_mixed", strings.Repeat(`[{"k" : [ 1,`, MaxDepth/3)+`"x"`+strings.Repeat(`]}]`, MaxDepth/3))
	add("deep_spaced", strings.Repeat("[ \n", MaxDepth)+strings.Repeat("\t]", MaxDepth))

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

	for _, size := range []int{minOwn - 3, minOwn - 2, minOwn - 1, minOwn, minOwn + 1} {
		str := `"` + strings.Repeat("s", size-2) + `"`
		num := strings.Repeat("9", size)
		arr := "[" + strings.Repeat("0,", (size-2)/2) + strings.Repeat("0", size%2) + "]"
		add("sized_string", str)
		add("sized_values", "["+str+","+num+","+arr+`,{"`+strings.Repeat("k", size)+`":`+arr+"}]")
		add("sized_nested", "[["+str+"],["+str+","+str+"],{\"a\":"+str+"}]")
	}
	for _, count := range []int{checkpointEvery - 1, checkpointEvery, checkpointEvery + 1, 2*checkpointEvery + 1, 10 * checkpointEvery} {
		var b strings.Builder
		b.WriteString("[")
		for i := range count {
			if i > 0 {
				b.WriteString(",")
			}
			switch i % 4 {
			case 0:
				b.WriteString(strconv.Itoa(i))
			case 1:
				fmt.Fprintf(&b, `{"i":%d,"pad":"%s"}`, i, strings.Repeat("p", minOwn))
			case 2:
				b.WriteString("[ ]")
			default:
				fmt.Fprintf(&b, `[[%d]]`, i)
			}
		}
		b.WriteString("]")
		add("elements", b.String())
		add("elements_inside", `{"a":`+b.String()+`,"b":[`+b.String()+`]}`)
	}
	for _, members := range []int{10, objectIndexMin / 8, objectIndexMin / 4, 300} {
		var b strings.Builder
		b.WriteString("{")
		for i := range members {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(`"k1":"dup","\u006b2":"escaped dup","k~/":{"x":[1,2]},"":0}`)
		add("members", b.String())
	}
	chain := strings.Repeat("[", MaxDepth-1) + `"` + strings.Repeat("c", minOwn) + `"` + strings.Repeat("]", MaxDepth-1)
	add("chain", chain)
	add("chains", "["+chain[1:len(chain)-1]+","+chain[1:len(chain)-1]+"]")

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
