package briefing

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// editDoc is r3 of editBriefing: a JSON document with a long number, a lone
// surrogate escape and a duplicate member.
const editDoc = `{"a": {"b": [10, 1.000000000000000000001, "x\u00e9"]}, "s": "\ud800", "dup": 1, "dup": 2}`

// editFiles are the files that editBriefing inspects, r1 to r6 in order.
var editFiles = []struct{ name, body string }{
	{"a.txt", "one\ntwo\nthree\n"},  // r1: 14 bytes, 3 lines
	{"u.txt", "héllo\nwörld\n"},     // r2: é is bytes 1-2, ö bytes 8-9
	{"doc.json", editDoc},           // r3
	{"crlf.txt", "a\r\nb\r\nc\r\n"}, // r4
	{"nonl.txt", "x\ny"},            // r5: no final newline
	{"empty.txt", ""},               // r6: 0 lines
}

// editBriefing is a briefing that holds editFiles as r1 to r6.
func editBriefing(t *testing.T, cfg limits.Config, policy Policy) *Briefing {
	t.Helper()
	files := make(map[string]string, len(editFiles))
	names := make([]string, 0, len(editFiles))
	for _, f := range editFiles {
		files[f.name] = f.body
		names = append(names, f.name)
	}
	b := fixture(t, cfg, policy, files)
	for i, e := range b.inspectPaths(names) {
		require.Nil(t, e.Err, names[i])
		require.Equal(t, "r"+strconv.Itoa(i+1), *e.Descriptor.ID)
	}
	return b
}

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func expand(b *Briefing, args string) (*Expanded, *errcode.Error) {
	return expandEdit(b, jsonSub(args))
}

// unresolved checks that err is unresolved_edit and returns its at and
// cause.
func unresolved(t *testing.T, err *errcode.Error) (string, *errcode.Error) {
	t.Helper()
	require.NotNil(t, err, "want unresolved_edit")
	require.Equal(t, errcode.UnresolvedEdit, err.Code, err.Error())
	require.NotNil(t, err.At, "at detail: %+v", err.Details)
	require.NotNil(t, err.Cause, "cause detail: %+v", err.Details)
	assert.Equal(t, errcode.Details{At: err.At, Cause: err.Cause}, err.Details, "at and cause only")
	return *err.At, err.Cause
}

type expandCase struct {
	name  string
	args  string
	want  string   // the expanded arguments, byte for byte
	texts []string // each expansion's text, in document order
	ats   []string
	parts []int
}

func runExpandCases(t *testing.T, tests []expandCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := editBriefing(t, limits.Defaults(), Legacy)
			got, err := expand(b, tt.args)
			require.Nil(t, err)
			assert.Equal(t, tt.want, string(got.Arguments))
			require.Len(t, got.Expansions, len(tt.texts))
			var total int64
			var lines strings.Builder
			for i, x := range got.Expansions {
				want := tt.texts[i]
				assert.Equal(t, tt.ats[i], x.At)
				assert.Equal(t, int64(len(want)), x.Bytes)
				assert.Equal(t, hexSum(want), x.SHA256)
				assert.Equal(t, tt.parts[i], x.Parts)
				require.NotNil(t, x.Result)
				r, rerr := b.store.Get(*x.Result)
				require.Nil(t, rerr)
				assert.Equal(t, want, string(r.Text.Data), "the retained expansion")
				assert.True(t, r.Complete)
				assert.Equal(t, results.KindEdit, r.Source.Kind)
				assert.Equal(t, tt.ats[i], *r.Source.At)
				total += int64(len(want))
				lines.WriteString(tt.ats[i] + ": " + strconv.Itoa(len(want)) + " bytes sha256=" + hexSum(want)[:12] + " result=" + *x.Result + "\n")
			}
			assert.Equal(t, lines.String(), got.Text)
			assert.Equal(t, total, got.Budget.ExpandBytesUsed)
			assert.Equal(t, limits.Defaults().MaxExpandBytes-total, got.Budget.ExpandBytesLeft)
			assert.False(t, got.Budget.Refused)
			assert.Equal(t, int64(0), got.Budget.LookupsUsed, "expand_edit is not a lookup")
		})
	}
}

func TestExpandCompose(t *testing.T) {
	t.Parallel()
	one := []int{1}
	c := []string{"/c"}
	runExpandCases(t, []expandCase{
		{"whole result", `{"path":"a.txt","content":{"$compose":[{"result":"r1"}]}}`,
			`{"path":"a.txt","content":"one\ntwo\nthree\n"}`, []string{"one\ntwo\nthree\n"}, []string{"/content"}, one},
		{"byte range", `{"c":{"$compose":[{"result":"r1","bytes":[4,7]}]}}`, `{"c":"two"}`, []string{"two"}, c, one},
		{"empty byte range at the end", `{"c":{"$compose":[{"result":"r1","bytes":[14,14]}]}}`, `{"c":""}`, []string{""}, c, one},
		{"byte range on character boundaries", `{"c":{"$compose":[{"result":"r2","bytes":[1,3]}]}}`, `{"c":"é"}`, []string{"é"}, c, one},
		{"line range", `{"c":{"$compose":[{"result":"r1","lines":[2,2]}]}}`, `{"c":"two\n"}`, []string{"two\n"}, c, one},
		{"lines [first] runs to the last line", `{"c":{"$compose":[{"result":"r1","lines":[2]}]}}`,
			`{"c":"two\nthree\n"}`, []string{"two\nthree\n"}, c, one},
		{"lines [first] on the last line", `{"c":{"$compose":[{"result":"r1","lines":[3]}]}}`, `{"c":"three\n"}`, []string{"three\n"}, c, one},
		{"integral numbers are integers", `{"c":{"$compose":[{"result":"r1","lines":[2.0,20e-1]}]}}`, `{"c":"two\n"}`, []string{"two\n"}, c, one},
		{"pointer lexeme keeps every digit", `{"c":{"$compose":[{"result":"r3","pointer":"/a/b/1"}]}}`,
			`{"c":"1.000000000000000000001"}`, []string{"1.000000000000000000001"}, c, one},
		{"pointer lexeme of an object", `{"c":{"$compose":[{"result":"r3","pointer":"/a"}]}}`,
			`{"c":"{\"b\": [10, 1.000000000000000000001, \"x\\u00e9\"]}"}`,
			[]string{`{"b": [10, 1.000000000000000000001, "x\u00e9"]}`}, c, one},
		{"pointer as string", `{"c":{"$compose":[{"result":"r3","pointer":"/a/b/2","as":"string"}]}}`, `{"c":"xé"}`, []string{"xé"}, c, one},
		{"pointer explicit lexeme", `{"c":{"$compose":[{"result":"r3","pointer":"/a/b/2","as":"lexeme"}]}}`,
			`{"c":"\"x\\u00e9\""}`, []string{`"x\u00e9"`}, c, one},
		{"lone surrogate lexeme", `{"c":{"$compose":[{"result":"r3","pointer":"/s"}]}}`,
			`{"c":"\"\\ud800\""}`, []string{`"\ud800"`}, c, one},
		{"fragment pointer", `{"c":{"$compose":[{"result":"r3","pointer":"#/a/b/0"}]}}`, `{"c":"10"}`, []string{"10"}, c, one},
		{"nulls count as omitted", `{"c":{"$compose":[{"result":"r1","sha256":null,"bytes":null,"lines":[2],"pointer":null,"as":null}]}}`,
			`{"c":"two\nthree\n"}`, []string{"two\nthree\n"}, c, one},
		{"digest prefix in either case", `{"c":{"$compose":[{"result":"r1","sha256":"` + strings.ToUpper(hexSum(editFiles[0].body)[:20]) + `","lines":[1,1]},` +
			`{"result":"r1","sha256":"` + hexSum(editFiles[0].body) + `","bytes":[0,0]}]}}`,
			`{"c":"one\n"}`, []string{"one\n"}, c, []int{2}},
		{"dollar and backslash stay literal", `{"c":{"$compose":["$1 \\n ${x} $compose \\\\ $$"]}}`,
			`{"c":"$1 \\n ${x} $compose \\\\ $$"}`, []string{`$1 \n ${x} $compose \\ $$`}, c, one},
		{"literal escapes decode", `{"c":{"$compose":["tab\there \"q\" \u00e9 \ud83d\ude00 \u0001\/"]}}`,
			`{"c":"tab\there \"q\" é 😀 \u0001/"}`, []string{"tab\there \"q\" é 😀 \x01/"}, c, one},
		{"literals and references in order", `{"c":{"$compose":["// head\n",{"result":"r1","lines":[1,1]},"mid\n",{"result":"r1","bytes":[8,14]}]}}`,
			`{"c":"// head\none\nmid\nthree\n"}`, []string{"// head\none\nmid\nthree\n"}, c, []int{4}},
		{"empty compose", `{"c":{"$compose":[]}}`, `{"c":""}`, []string{""}, c, []int{0}},
		{"CRLF lines keep their endings", `{"c":{"$compose":[{"result":"r4","lines":[2,3]}]}}`,
			`{"c":"b\r\nc\r\n"}`, []string{"b\r\nc\r\n"}, c, one},
		{"CRLF whole result and bytes", `{"c":{"$compose":[{"result":"r4","bytes":[0,3]},"x\r\n",{"result":"r4"}]}}`,
			`{"c":"a\r\nx\r\na\r\nb\r\nc\r\n"}`, []string{"a\r\nx\r\na\r\nb\r\nc\r\n"}, c, []int{3}},
		{"last line without newline", `{"c":{"$compose":[{"result":"r5","lines":[2]},"!"]}}`, `{"c":"y!"}`, []string{"y!"}, c, []int{2}},
		{"whole empty result", `{"c":{"$compose":[{"result":"r6"},{"result":"r6","bytes":[0,0]}]}}`, `{"c":""}`, []string{""}, c, []int{2}},
		{"nodes in arrays and objects", `{"edits":[{"old":"x","new":{"$compose":["a"]}},{"old":"y","new":{"$compose":["b",{"result":"r1","lines":[1,1]}]}}],"meta":{"n":[1,{"$compose":["c"]}]}}`,
			`{"edits":[{"old":"x","new":"a"},{"old":"y","new":"bone\n"}],"meta":{"n":[1,"c"]}}`,
			[]string{"a", "bone\n", "c"}, []string{"/edits/0/new", "/edits/1/new", "/meta/n/1"}, []int{1, 2, 1}},
		{"names are escaped in pointers", `{"a/b":{"m~n":{"$compose":["z"]}},"":{"$compose":["e"]},"~1":[{"$compose":["f"]}]}`,
			`{"a/b":{"m~n":"z"},"":"e","~1":["f"]}`, []string{"z", "e", "f"}, []string{"/a~1b/m~0n", "/", "/~01/0"}, []int{1, 1, 1}},
		{"an escaped $compose name is reserved too", `{"c":{"\u0024compose":["a"]}}`, `{"c":"a"}`, []string{"a"}, c, one},
		{"everything outside nodes is unchanged", `{"n":1.000000000000000000001,"s":"\ud800","k":{"\udc00":-0.0},"e":1E+2,"w": [ 1 , 2 ],"c":{"$compose":["x"]},"u":"\u00e9\/"}`,
			`{"n":1.000000000000000000001,"s":"\ud800","k":{"\udc00":-0.0},"e":1E+2,"w": [ 1 , 2 ],"c":"x","u":"\u00e9\/"}`, []string{"x"}, c, one},
		{"whitespace around a node stays", "{\"c\" :\n\t{ \"$compose\" : [ \"a\" , {\"result\" : \"r1\", \"lines\":[1,1]} ] } ,\"d\":1 }",
			"{\"c\" :\n\t\"aone\\n\" ,\"d\":1 }", []string{"aone\n"}, c, []int{2}},
		{"control characters are escaped", `{"c":{"$compose":["\"\\\b\f\n\r\t\u0000\u001f\u007f"]}}`,
			`{"c":"\"\\\b\f\n\r\t\u0000\u001f` + "\x7f" + `"}`, []string{"\"\\\b\f\n\r\t\x00\x1f\x7f"}, c, one},
		{"no nodes", `{"path":"a","x":[1,{"y":null}],"result":"r1","lines":[1,1]}`,
			`{"path":"a","x":[1,{"y":null}],"result":"r1","lines":[1,1]}`, nil, nil, nil},
		{"reserved names as plain strings", `{"c":"$compose","d":["$splice",{"k":"$compose"}]}`,
			`{"c":"$compose","d":["$splice",{"k":"$compose"}]}`, nil, nil, nil},
	})
}

func TestExpandSplice(t *testing.T) {
	t.Parallel()
	c := []string{"/c"}
	splice := func(result, edits string) string {
		return `{"c":{"$splice":{"result":"` + result + `","edits":` + edits + `}}}`
	}
	quoted := func(s string) string { return string(limits.AppendEscaped(nil, s)) }
	tests := []struct {
		name, result, edits, want string
		parts                     int
	}{
		{"replace one line", "r1", `[{"lines":[2,2],"text":"TWO\n"}]`, "one\nTWO\nthree\n", 1},
		{"replace two lines by one", "r1", `[{"lines":[1,2],"text":"x\n"}]`, "x\nthree\n", 1},
		{"replace by more lines", "r1", `[{"lines":[2,2],"text":"2a\n2b\n2c\n"}]`, "one\n2a\n2b\n2c\nthree\n", 1},
		{"delete a line", "r1", `[{"lines":[2,2],"text":""}]`, "one\nthree\n", 1},
		{"delete every line", "r1", `[{"lines":[1,3],"text":""}]`, "", 1},
		{"insert before the first line", "r1", `[{"before":1,"text":"zero\n"}]`, "zero\none\ntwo\nthree\n", 1},
		{"insert before n", "r1", `[{"before":3,"text":"2.5\n"}]`, "one\ntwo\n2.5\nthree\n", 1},
		{"append at lines+1", "r1", `[{"before":4,"text":"four\n"}]`, "one\ntwo\nthree\nfour\n", 1},
		{"append after a last line without newline", "r5", `[{"before":3,"text":"\nz\n"}]`, "x\ny\nz\n", 1},
		{"replace the last line without newline", "r5", `[{"lines":[2,2],"text":"Y"}]`, "x\nY", 1},
		{"the last edit through the last line may end without newline", "r1", `[{"lines":[1,1],"text":"1\n"},{"lines":[2,3],"text":"end"}]`, "1\nend", 2},
		{"an append may end without newline", "r1", `[{"before":4,"text":"four"}]`, "one\ntwo\nthree\nfour", 1},
		{"an append after a last line without newline may end without one", "r5", `[{"before":3,"text":"\nz"}]`, "x\ny\nz", 1},
		{"an append into a 0-line result", "r6", `[{"before":1,"text":"only"}]`, "only", 1},
		{"a compose text that ends with a stored line", "r1", `[{"lines":[1,1],"text":{"$compose":["x",{"result":"r1","lines":[3,3]}]}}]`, "xthree\ntwo\nthree\n", 1},
		{"empty edits return the stored text", "r1", `[]`, "one\ntwo\nthree\n", 0},
		{"insertion before n then a replacement at n", "r1", `[{"before":2,"text":"1.5\n"},{"lines":[2,2],"text":"2\n"}]`, "one\n1.5\n2\nthree\n", 2},
		{"a replacement then an insertion after it", "r1", `[{"lines":[1,1],"text":"1\n"},{"before":2,"text":"ins\n"}]`, "1\nins\ntwo\nthree\n", 2},
		{"line numbers refer to the stored result", "r1", `[{"lines":[1,1],"text":"a\nb\nc\n"},{"lines":[3,3],"text":"C\n"}]`, "a\nb\nc\ntwo\nC\n", 2},
		{"several edits", "r1", `[{"before":1,"text":"0\n"},{"lines":[2,2],"text":""},{"before":4,"text":"4\n"}]`, "0\none\nthree\n4\n", 3},
		{"adjacent replacements", "r1", `[{"lines":[1,1],"text":"A\n"},{"lines":[2,3],"text":"B\n"}]`, "A\nB\n", 2},
		{"CRLF lines keep their endings", "r4", `[{"lines":[2,2],"text":"B\r\n"}]`, "a\r\nB\r\nc\r\n", 1},
		{"CRLF append from the result itself", "r4", `[{"before":4,"text":{"$compose":[{"result":"r4","lines":[1,1]}]}}]`, "a\r\nb\r\nc\r\na\r\n", 1},
		{"compose in an edit's text", "r1", `[{"lines":[2,2],"text":{"$compose":["<",{"result":"r1","lines":[3,3]}]}}]`, "one\n<three\nthree\n", 1},
		{"empty compose in an edit's text", "r1", `[{"lines":[2,2],"text":{"$compose":[]}}]`, "one\nthree\n", 1},
		{"insert into a 0-line result", "r6", `[{"before":1,"text":"new\n"}]`, "new\n", 1},
		{"empty edits on a 0-line result", "r6", `[]`, "", 0},
		{"multi-byte text", "r2", `[{"lines":[2,2],"text":"wörld! ✓\n"}]`, "héllo\nwörld! ✓\n", 1},
		{"dollar and backslash stay literal", "r1", `[{"lines":[1,1],"text":"\\$1 $& \\\\n\n"}]`, "\\$1 $& \\\\n\ntwo\nthree\n", 1},
		{"integral float line numbers", "r1", `[{"lines":[2.0,2e0],"text":"2\n"},{"before":3.0,"text":"i\n"}]`, "one\n2\ni\nthree\n", 2},
	}
	var cases []expandCase
	for _, tt := range tests {
		cases = append(cases, expandCase{tt.name, splice(tt.result, tt.edits), `{"c":` + quoted(tt.want) + `}`,
			[]string{tt.want}, c, []int{tt.parts}})
	}
	cases = append(cases,
		expandCase{"sha256 given, and null", `{"c":{"$splice":{"sha256":"` + hexSum(editFiles[0].body)[:12] + `","result":"r1","edits":[]}},` +
			`"d":{"$splice":{"result":"r1","sha256":null,"edits":[{"before":1,"text":"0\n"}]}}}`,
			`{"c":"one\ntwo\nthree\n","d":"0\none\ntwo\nthree\n"}`, []string{"one\ntwo\nthree\n", "0\none\ntwo\nthree\n"}, []string{"/c", "/d"}, []int{0, 1}},
		expandCase{"splice and compose side by side, nested", `{"files":[{"p~":{"$splice":{"result":"r5","edits":[{"lines":[1,1],"text":"X\n"}]}}},{"$compose":["k"]}]}`,
			`{"files":[{"p~":"X\ny"},"k"]}`, []string{"X\ny", "k"}, []string{"/files/0/p~0", "/files/1"}, []int{1, 1}},
	)
	runExpandCases(t, cases)
}

type failCase struct {
	name    string
	args    string
	at      string
	code    errcode.Code     // the cause's code
	details *errcode.Details // the cause's details, when given
	msg     string           // a part of the cause's message, when given
}

// runFailCases checks that each call fails with unresolved_edit at the
// given part and cause, refuses the step, retains nothing and charges no
// expansion bytes.
func runFailCases(t *testing.T, tests []failCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := editBriefing(t, limits.Defaults(), Legacy)
			got, err := expand(b, tt.args)
			assert.Nil(t, got)
			at, cause := unresolved(t, err)
			assert.Equal(t, tt.at, at)
			assert.Equal(t, tt.code, cause.Code, cause.Error())
			if tt.details != nil {
				assert.Equal(t, *tt.details, cause.Details)
			}
			if tt.msg != "" {
				assert.Contains(t, cause.Msg, tt.msg)
			}
			assert.Contains(t, err.Msg, strconv.Quote(tt.at), "the message names the part")
			assert.Contains(t, err.Msg, cause.Msg, "the message carries the cause")
			assert.Equal(t, len(editFiles), b.store.Len(), "nothing is retained")
			snap := b.Budget()
			assert.True(t, snap.Refused, "the step is refused")
			assert.Equal(t, int64(0), snap.ExpandBytesUsed)
		})
	}
}

func TestExpandComposeUnresolved(t *testing.T) {
	t.Parallel()
	ref := func(r string) string { return `{"c":{"$compose":["x",` + r + `]}}` }
	const p1 = "/c/$compose/1"
	ia := errcode.InvalidArgument
	wrong := "0" + hexSum(editFiles[0].body)[1:12]
	if hexSum(editFiles[0].body)[0] == '0' {
		wrong = "1" + wrong[1:]
	}
	runFailCases(t, []failCase{
		// Malformed nodes: at is the node, the cause invalid_argument.
		{"extra member", `{"c":{"$compose":["a"],"x":1}}`, "/c", ia, nil, "reserved"},
		{"extra member first", `{"c":{"x":1,"$compose":["a"]}}`, "/c", ia, nil, ""},
		{"string value", `{"c":{"$compose":"a"}}`, "/c", ia, nil, ""},
		{"object value", `{"c":{"$compose":{"result":"r1"}}}`, "/c", ia, nil, ""},
		{"null value", `{"c":{"$compose":null}}`, "/c", ia, nil, ""},
		{"compose and splice together", `{"c":{"$compose":[],"$splice":{"result":"r1","edits":[]}}}`, "/c", ia, nil, ""},
		{"repeated $compose", `{"c":{"$compose":[],"$compose":[]}}`, "/c", ia, nil, ""},
		{"splice with an array value", `{"c":{"$splice":[]}}`, "/c", ia, nil, ""},
		{"splice with null", `{"c":{"$splice":null}}`, "/c", ia, nil, ""},
		{"arguments itself a compose node", `{"$compose":["a"]}`, "", ia, nil, ""},
		{"arguments itself a splice node", `{"$splice":{"result":"r1","edits":[]}}`, "", ia, nil, ""},
		{"arguments with a reserved member among others", `{"path":"x","$compose":["a"]}`, "", ia, nil, ""},
		{"malformed node deep in an array", `{"e":[0,{"n":{"$compose":1}}]}`, "/e/1/n", ia, nil, ""},
		{"malformed node under escaped names", `{"a/b":{"~":{"$splice":"x"}}}`, "/a~1b/~0", ia, nil, ""},

		// Parts of the wrong form.
		{"part number", ref(`5`), p1, ia, nil, ""},
		{"part null", ref(`null`), p1, ia, nil, ""},
		{"part array", ref(`["a"]`), p1, ia, nil, ""},
		{"part boolean", ref(`true`), p1, ia, nil, ""},
		{"unknown member", ref(`{"result":"r1","line":[1,1]}`), p1, ia, nil, `"line"`},
		{"unknown member given as null", ref(`{"result":"r1","line":null}`), p1, ia, nil, `"line"`},
		{"repeated member", ref(`{"result":"r1","result":"r1"}`), p1, ia, nil, ""},
		{"repeated null member", ref(`{"result":"r1","sha256":null,"sha256":null}`), p1, ia, nil, ""},
		{"missing result", ref(`{"lines":[1,1]}`), p1, ia, nil, ""},
		{"empty reference", ref(`{}`), p1, ia, nil, ""},
		{"result null", ref(`{"result":null}`), p1, ia, nil, ""},
		{"result number", ref(`{"result":1}`), p1, ia, nil, "member \"result\" must be a string, not 1"},
		{"bytes and lines", ref(`{"result":"r1","bytes":[0,1],"lines":[1,1]}`), p1, ia, nil, "at most one"},
		{"lines and pointer", ref(`{"result":"r3","lines":[1,1],"pointer":""}`), p1, ia, nil, ""},
		{"bytes and pointer", ref(`{"result":"r3","bytes":[0,1],"pointer":""}`), p1, ia, nil, ""},
		{"as without pointer", ref(`{"result":"r1","as":"lexeme"}`), p1, ia, nil, "as"},
		{"as with lines", ref(`{"result":"r1","lines":[1,1],"as":"string"}`), p1, ia, nil, ""},
		{"as with a null pointer", ref(`{"result":"r3","pointer":null,"as":"string"}`), p1, ia, nil, ""},
		{"as of an unknown value", ref(`{"result":"r3","pointer":"","as":"raw"}`), p1, ia, nil, ""},
		{"as a number", ref(`{"result":"r3","pointer":"","as":1}`), p1, ia, nil, "member \"as\" must be a string, not 1"},
		{"bytes with one integer", ref(`{"result":"r1","bytes":[0]}`), p1, ia, nil, "member \"bytes\" must be an array of 2 integers, not an array of 1"},
		{"bytes with three integers", ref(`{"result":"r1","bytes":[0,1,2]}`), p1, ia, nil, "member \"bytes\" must be an array of 2 integers, not an array of 3"},
		{"bytes a string", ref(`{"result":"r1","bytes":"0-1"}`), p1, ia, nil, "member \"bytes\" must be an array of 2 integers, not a string"},
		{"bytes a fraction", ref(`{"result":"r1","bytes":[0.5,1]}`), p1, ia, nil, "member \"bytes/0\" must be an integer, not 0.5"},
		{"bytes with a string element", ref(`{"result":"r1","bytes":["0",1]}`), p1, ia, nil, "member \"bytes/0\" must be an integer, not a string"},
		{"bytes with null elements", ref(`{"result":"r1","bytes":[null,null]}`), p1, ia, nil, "member \"bytes/0\" must be an integer, not null"},
		{"lines empty", ref(`{"result":"r1","lines":[]}`), p1, ia, nil, "member \"lines\" must be an array of 1 or 2 line numbers or anchors, not an array of 0"},
		{"lines with three integers", ref(`{"result":"r1","lines":[1,2,3]}`), p1, ia, nil, "member \"lines\" must be an array of 1 or 2 line numbers or anchors, not an array of 3"},
		{"lines a number", ref(`{"result":"r1","lines":1}`), p1, ia, nil, "member \"lines\" must be an array of 1 or 2 line numbers or anchors, not 1"},
		{"lines a fraction", ref(`{"result":"r1","lines":[1.5]}`), p1, ia, nil, "member \"lines/0\" must be a line number or an anchor (\"41#xy\"), not 1.5"},
		{"pointer a number", ref(`{"result":"r3","pointer":5}`), p1, ia, nil, "member \"pointer\" must be a string, not 5"},
		{"sha256 too short", ref(`{"result":"r1","sha256":"abc"}`), p1, ia, nil, ""},
		{"sha256 not hex", ref(`{"result":"r1","sha256":"zzzzzzzzzzzz"}`), p1, ia, nil, ""},
		{"sha256 too long", ref(`{"result":"r1","sha256":"` + strings.Repeat("a", 65) + `"}`), p1, ia, nil, ""},
		{"sha256 a number", ref(`{"result":"r1","sha256":123456789012}`), p1, ia, nil, ""},
		{"form before an unknown result", ref(`{"result":"r99","bytes":[0]}`), p1, ia, nil, ""},

		// The result and its digest.
		{"unknown result", ref(`{"result":"r99"}`), p1, errcode.UnknownResult, nil, `"r99"`},
		{"result id with a leading zero", ref(`{"result":"r01"}`), p1, errcode.UnknownResult, nil, ""},
		{"result id in upper case", ref(`{"result":"R1"}`), p1, errcode.UnknownResult, nil, ""},
		{"wrong digest", ref(`{"result":"r1","sha256":"` + wrong + `"}`), p1, errcode.DigestMismatch, nil, hexSum(editFiles[0].body)[:12]},
		{"digest before the selection", ref(`{"result":"r1","sha256":"` + wrong + `","bytes":[99,100]}`), p1, errcode.DigestMismatch, nil, ""},
		{"unknown result before the digest", ref(`{"result":"r99","sha256":"` + wrong + `"}`), p1, errcode.UnknownResult, nil, ""},

		// Byte ranges.
		{"bytes start after end", ref(`{"result":"r1","bytes":[5,3]}`), p1, errcode.InvalidRange, &errcode.Details{Size: new(int64(14))}, "5-3"},
		{"bytes past the end", ref(`{"result":"r1","bytes":[0,15]}`), p1, errcode.InvalidRange, &errcode.Details{Size: new(int64(14))}, ""},
		{"bytes negative", ref(`{"result":"r1","bytes":[-1,2]}`), p1, errcode.InvalidRange, &errcode.Details{Size: new(int64(14))}, ""},
		{"bytes start inside a character", ref(`{"result":"r2","bytes":[2,6]}`), p1, errcode.NotCharBoundary,
			&errcode.Details{Offset: new(int64(2)), Before: new(int64(1)), After: new(int64(3))}, ""},
		{"bytes end inside a character", ref(`{"result":"r2","bytes":[0,9]}`), p1, errcode.NotCharBoundary,
			&errcode.Details{Offset: new(int64(9)), Before: new(int64(8)), After: new(int64(10))}, ""},
		{"start boundary before end range", ref(`{"result":"r2","bytes":[2,99]}`), p1, errcode.NotCharBoundary,
			&errcode.Details{Offset: new(int64(2)), Before: new(int64(1)), After: new(int64(3))}, ""},
		{"start range before start boundary", ref(`{"result":"r2","bytes":[99,2]}`), p1, errcode.InvalidRange, &errcode.Details{Size: new(int64(14))}, ""},

		// Line ranges.
		{"line zero", ref(`{"result":"r1","lines":[0,1]}`), p1, errcode.InvalidRange, &errcode.Details{Lines: new(int64(3))}, "lines 0-1 outside 1-3"},
		{"last before first", ref(`{"result":"r1","lines":[2,1]}`), p1, errcode.InvalidRange, &errcode.Details{Lines: new(int64(3))}, ""},
		{"lines past the end", ref(`{"result":"r1","lines":[3,4]}`), p1, errcode.InvalidRange, &errcode.Details{Lines: new(int64(3))}, ""},
		{"lines [first] past the end", ref(`{"result":"r1","lines":[4]}`), p1, errcode.InvalidRange, &errcode.Details{Lines: new(int64(3))}, ""},
		{"lines on a 0-line result", ref(`{"result":"r6","lines":[1]}`), p1, errcode.InvalidRange, &errcode.Details{Lines: new(int64(0))}, ""},
		{"lines [1,1] on a 0-line result", ref(`{"result":"r6","lines":[1,1]}`), p1, errcode.InvalidRange, &errcode.Details{Lines: new(int64(0))}, ""},

		// JSON pointers.
		{"pointer syntax", ref(`{"result":"r3","pointer":"a"}`), p1, errcode.InvalidPointer, nil, ""},
		{"pointer escape", ref(`{"result":"r3","pointer":"/a~2"}`), p1, errcode.InvalidPointer, nil, ""},
		{"pointer on a text result", ref(`{"result":"r1","pointer":""}`), p1, errcode.InvalidJSON, &errcode.Details{Offset: new(int64(0))}, ""},
		{"pointer syntax before invalid JSON", ref(`{"result":"r1","pointer":"a"}`), p1, errcode.InvalidPointer, nil, ""},
		{"pointer not found", ref(`{"result":"r3","pointer":"/zz"}`), p1, errcode.PointerNotFound, nil, ""},
		{"index past the end", ref(`{"result":"r3","pointer":"/a/b/3"}`), p1, errcode.PointerNotFound, nil, ""},
		{"ambiguous member", ref(`{"result":"r3","pointer":"/dup"}`), p1, errcode.AmbiguousJSON, nil, ""},
		{"as string on a number", ref(`{"result":"r3","pointer":"/a/b/0","as":"string"}`), p1, errcode.NotAString, nil, ""},
		{"as string on a lone surrogate", ref(`{"result":"r3","pointer":"/s","as":"string"}`), p1, errcode.InvalidJSON,
			&errcode.Details{Offset: new(int64(strings.Index(editDoc, `\ud800`)))}, ""},

		// Literal text must be valid UTF-8.
		{"literal with raw invalid UTF-8", "{\"c\":{\"$compose\":[\"x\",\"a\xffb\"]}}", p1, errcode.NotUTF8, &errcode.Details{Offset: new(int64(1))}, ""},
		{"literal with a truncated sequence", "{\"c\":{\"$compose\":[\"x\",\"\\n\xe2\x82\"]}}", p1, errcode.NotUTF8, &errcode.Details{Offset: new(int64(1))}, ""},
		{"literal with a lone surrogate escape", `{"c":{"$compose":["x","ab\ud800"]}}`, p1, errcode.NotUTF8, &errcode.Details{Offset: new(int64(2))}, ""},
		{"literal with a lone low surrogate", `{"c":{"$compose":["x","\udc00"]}}`, p1, errcode.NotUTF8, &errcode.Details{Offset: new(int64(0))}, ""},
		{"literal with reversed surrogates", `{"c":{"$compose":["x","é\udc00\ud800"]}}`, p1, errcode.NotUTF8, &errcode.Details{Offset: new(int64(2))}, ""},

		// Pointers of nested nodes.
		{"part in an array element", `{"edits":[{"old":"x","new":{"$compose":[5]}}]}`, "/edits/0/new/$compose/0", ia, nil, ""},
		{"part under escaped names", `{"a/b":{"m~n":{"$compose":["ok",{"result":"r99"}]}}}`, "/a~1b/m~0n/$compose/1", errcode.UnknownResult, nil, ""},
		{"part under an empty name", `{"":{"$compose":[{"result":"r99"}]}}`, "//$compose/0", errcode.UnknownResult, nil, ""},
	})
}

func TestExpandSpliceUnresolved(t *testing.T) {
	t.Parallel()
	splice := func(result, edits string) string {
		return `{"c":{"$splice":{"result":"` + result + `","edits":` + edits + `}}}`
	}
	e0, e1, e2 := "/c/$splice/edits/0", "/c/$splice/edits/1", "/c/$splice/edits/2"
	ia, ir := errcode.InvalidArgument, errcode.InvalidRange
	three := &errcode.Details{Lines: new(int64(3))}
	wrong := "0" + hexSum(editFiles[0].body)[1:12]
	if hexSum(editFiles[0].body)[0] == '0' {
		wrong = "1" + wrong[1:]
	}
	runFailCases(t, []failCase{
		// An edit of the wrong form: at the edit, invalid_argument.
		{"edit a number", splice("r1", `[5]`), e0, ia, nil, `an edit must be an object, not 5: {"lines": [first, last], "text"}, {"before": n, "text"} or {"after": n, "text"}, each position a line number or its anchor ("41#xy")`},
		{"edit null", splice("r1", `[null]`), e0, ia, nil, "an edit must be an object, not null: "},
		{"edit an array", splice("r1", `[[1,1]]`), e0, ia, nil, "not an array"},
		{"both lines and before", splice("r1", `[{"lines":[1,1],"before":1,"text":""}]`), e0, ia, nil, ""},
		{"neither lines nor before", splice("r1", `[{"text":"x"}]`), e0, ia, nil, ""},
		{"missing text", splice("r1", `[{"lines":[1,1]}]`), e0, ia, nil, ""},
		{"text null", splice("r1", `[{"lines":[1,1],"text":null}]`), e0, ia, nil, ""},
		{"text a number", splice("r1", `[{"lines":[1,1],"text":5}]`), e0, ia, nil, ""},
		{"text an array", splice("r1", `[{"lines":[1,1],"text":["a"]}]`), e0, ia, nil, ""},
		{"text an object that is no node", splice("r1", `[{"lines":[1,1],"text":{"x":"a"}}]`), e0, ia, nil, ""},
		{"lines with one number", splice("r1", `[{"lines":[1],"text":""}]`), e0, ia, nil, "member \"lines\" must be an array of 2 line numbers or anchors, not an array of 1"},
		{"lines with three numbers", splice("r1", `[{"lines":[1,1,1],"text":""}]`), e0, ia, nil, "member \"lines\" must be an array of 2 line numbers or anchors, not an array of 3"},
		{"lines a number", splice("r1", `[{"lines":1,"text":""}]`), e0, ia, nil, "member \"lines\" must be an array of 2 line numbers or anchors, not 1"},
		{"lines a fraction", splice("r1", `[{"lines":[1,1.5],"text":""}]`), e0, ia, nil, "member \"lines/1\" must be a line number or an anchor (\"41#xy\"), not 1.5"},
		{"before a string", splice("r1", `[{"before":"1","text":""}]`), e0, ia, nil, "member \"before\" is \"1\", not an anchor: an anchor is a line number, \"#\" and the line's two characters (a-z, 2-7), as numbered get_lines and find show it: \"41#xy\""},
		{"before a fraction", splice("r1", `[{"before":1.5,"text":""}]`), e0, ia, nil, "member \"before\" must be a line number or an anchor (\"41#xy\"), not 1.5"},
		{"before an array", splice("r1", `[{"before":[1],"text":""}]`), e0, ia, nil, "member \"before\" must be a line number or an anchor (\"41#xy\"), not an array"},
		{"unknown edit member", splice("r1", `[{"lines":[1,1],"text":"","x":1}]`), e0, ia, nil, ""},
		{"repeated edit member", splice("r1", `[{"lines":[1,1],"lines":[1,1],"text":""}]`), e0, ia, nil, ""},
		{"repeated text", splice("r1", `[{"before":1,"text":"a","text":"b"}]`), e0, ia, nil, ""},
		{"second edit of the wrong form", splice("r1", `[{"before":1,"text":""},{"before":2}]`), e1, ia, nil, ""},

		// A malformed $compose (or $splice) object as text: at that object.
		{"compose text with a string", splice("r1", `[{"lines":[1,1],"text":{"$compose":"a"}}]`), e0 + "/text", ia, nil, ""},
		{"compose text with an extra member", splice("r1", `[{"lines":[1,1],"text":{"$compose":[],"x":1}}]`), e0 + "/text", ia, nil, ""},
		{"a splice as text", splice("r1", `[{"lines":[1,1],"text":{"$splice":{"result":"r1","edits":[]}}}]`), e0 + "/text", ia, nil, ""},

		// Line numbers: at the edit, invalid_range.
		{"replacement of line zero", splice("r1", `[{"lines":[0,1],"text":""}]`), e0, ir, three, "lines 0-1 outside 1-3"},
		{"replacement past the end", splice("r1", `[{"lines":[3,4],"text":""}]`), e0, ir, three, ""},
		{"replacement last before first", splice("r1", `[{"lines":[2,1],"text":""}]`), e0, ir, three, ""},
		{"insertion before line zero", splice("r1", `[{"before":0,"text":""}]`), e0, ir, three, "outside 1-4"},
		{"insertion past lines+1", splice("r1", `[{"before":5,"text":""}]`), e0, ir, three, ""},
		{"insertion at a negative line", splice("r1", `[{"before":-1,"text":""}]`), e0, ir, three, ""},
		{"huge line numbers", splice("r1", `[{"lines":[1,1e30],"text":""}]`), e0, ir, three, ""},
		{"replacement in a 0-line result", splice("r6", `[{"lines":[1,1],"text":"x"}]`), e0, ir, &errcode.Details{Lines: new(int64(0))}, ""},
		{"insertion before 2 in a 0-line result", splice("r6", `[{"before":2,"text":"x"}]`), e0, ir, &errcode.Details{Lines: new(int64(0))}, ""},

		// Order: at the later edit, invalid_range naming both.
		{"out of order", splice("r1", `[{"lines":[3,3],"text":""},{"lines":[1,1],"text":""}]`), e1, ir, three,
			"edit 1 (lines 1-1) comes before edit 0 (lines 3-3)"},
		{"overlapping", splice("r1", `[{"lines":[1,2],"text":""},{"lines":[2,3],"text":""}]`), e1, ir, three,
			"edit 1 (lines 2-3) overlaps edit 0 (lines 1-2)"},
		{"the same line twice", splice("r1", `[{"lines":[2,2],"text":""},{"lines":[2,2],"text":""}]`), e1, ir, three, "edit 1 (lines 2-2)"},
		{"two insertions before the same line", splice("r1", `[{"before":2,"text":"a\n"},{"before":2,"text":"b\n"}]`), e1, ir, three,
			"edit 1 (before line 2) overlaps edit 0 (before line 2)"},
		{"two appends", splice("r1", `[{"before":4,"text":"a\n"},{"before":4,"text":"b"}]`), e1, ir, three, ""},
		{"insertion inside a replaced range", splice("r1", `[{"lines":[1,2],"text":""},{"before":2,"text":""}]`), e1, ir, three,
			"edit 1 (before line 2) overlaps edit 0 (lines 1-2)"},
		{"insertion before a replacement's own first line", splice("r1", `[{"lines":[2,2],"text":""},{"before":2,"text":""}]`), e1, ir, three, ""},
		{"insertion out of order", splice("r1", `[{"before":3,"text":""},{"before":1,"text":""}]`), e1, ir, three,
			"edit 1 (before line 1) comes before edit 0 (before line 3)"},
		{"replacement before an earlier insertion", splice("r1", `[{"before":3,"text":""},{"lines":[1,2],"text":""}]`), e1, ir, three, ""},
		{"third edit out of order", splice("r1", `[{"before":1,"text":""},{"lines":[2,2],"text":""},{"lines":[1,1],"text":""}]`), e2, ir, three,
			"edit 2 (lines 1-1) comes before edit 1 (lines 2-2)"},
		{"line numbers refer to the stored result", splice("r1", `[{"lines":[1,1],"text":"a\nb\nc\nd\n"},{"lines":[4,4],"text":""}]`), e1, ir, three, "outside 1-3"},

		// Within an edit: form, then line numbers, then order, then text.
		{"form before line numbers", splice("r1", `[{"lines":[9],"text":""}]`), e0, ia, nil, ""},
		// The kind of text is checked with the text, last.
		{"line numbers before the kind of text", splice("r1", `[{"lines":[9,9],"text":5}]`), e0, ir, three, "lines 9-9 outside 1-3"},
		{"order before the kind of text", splice("r1", `[{"lines":[3,3],"text":""},{"lines":[1,1],"text":5}]`), e1, ir, three, ""},
		{"text of the wrong kind", splice("r1", `[{"lines":[1,1],"text":5}]`), e0, ia, nil, ""},
		{"line numbers before order", splice("r1", `[{"lines":[3,3],"text":""},{"lines":[9,9],"text":""}]`), e1, ir, three, "lines 9-9 outside 1-3"},
		{"order before text", splice("r1", "[{\"lines\":[3,3],\"text\":\"\"},{\"lines\":[1,1],\"text\":\"\xff\"}]"), e1, ir, three, ""},
		{"order before a compose text", splice("r1", `[{"lines":[3,3],"text":""},{"lines":[1,1],"text":{"$compose":[{"result":"r99"}]}}]`), e1, ir, three, ""},

		// Text.
		{"text with raw invalid UTF-8", splice("r1", "[{\"lines\":[1,1],\"text\":\"ok\xc3(\"}]"), e0, errcode.NotUTF8, &errcode.Details{Offset: new(int64(2))}, ""},
		{"text with a lone surrogate escape", splice("r1", `[{"before":1,"text":"\n\udbff"}]`), e0, errcode.NotUTF8, &errcode.Details{Offset: new(int64(1))}, ""},
		{"failing part of a compose text", splice("r1", `[{"lines":[1,1],"text":"ok\n"},{"lines":[2,2],"text":{"$compose":["a",{"result":"r99"}]}}]`),
			"/c/$splice/edits/1/text/$compose/1", errcode.UnknownResult, nil, ""},
		{"not_utf8 part of a compose text", splice("r1", "[{\"lines\":[1,1],\"text\":{\"$compose\":[\"\xff\"]}}]"),
			"/c/$splice/edits/0/text/$compose/0", errcode.NotUTF8, &errcode.Details{Offset: new(int64(0))}, ""},
		{"bad range in a compose text", splice("r1", `[{"lines":[1,1],"text":{"$compose":[{"result":"r2","bytes":[2,3]}]}}]`),
			"/c/$splice/edits/0/text/$compose/0", errcode.NotCharBoundary, nil, ""},

		// The newline rule (SPEC 5.2): a text that does not end with "\n"
		// would join what follows, unless it is the last edit and reaches
		// the end of the result. Checked with the text, after the order,
		// before any later edit.
		{"replacement without newline joins the next line", splice("r1", `[{"lines":[1,1],"text":"ONE"}]`), e0, ia, nil,
			`text does not end with "\n": it would join line 2`},
		{"insertion without newline joins line n", splice("r1", `[{"before":2,"text":"x"}]`), e0, ia, nil, "it would join line 2"},
		{"a compose text without newline", splice("r1", `[{"lines":[2,2],"text":{"$compose":[{"result":"r1","lines":[1,1]},"tail"]}}]`), e0, ia, nil,
			"it would join line 3"},
		{"a compose text of a line without newline", splice("r1", `[{"before":1,"text":{"$compose":[{"result":"r5","lines":[2,2]}]}}]`), e0, ia, nil,
			"it would join line 1"},
		{"the last line, but a later edit follows", splice("r1", `[{"lines":[3,3],"text":"x"},{"before":4,"text":"y\n"}]`), e0, ia, nil,
			"it would join line 4"},
		{"an append that a later append follows", splice("r1", `[{"before":4,"text":"x"},{"before":4,"text":"y"}]`), e0, ia, nil,
			"it would join line 4"},
		{"the last edit, not at the end", splice("r1", `[{"before":1,"text":"0\n"},{"lines":[2,2],"text":"x"}]`), e1, ia, nil,
			"it would join line 3"},
		{"order before the newline rule", splice("r1", `[{"lines":[3,3],"text":"x"},{"lines":[1,1],"text":"y"}]`), e0, ia, nil, "join line 4"},
		{"the rule before a later edit's form", splice("r1", `[{"lines":[1,1],"text":"x"},{"x":1}]`), e0, ia, nil, "join line 2"},
		{"the text's own failure before the rule", splice("r1", "[{\"lines\":[1,1],\"text\":\"x\xff\"}]"), e0, errcode.NotUTF8, nil, ""},

		// The splice's own members: at the splice node.
		{"unknown splice member", `{"c":{"$splice":{"result":"r1","edits":[],"x":1}}}`, "/c", ia, nil, `"x"`},
		{"unknown splice member given as null", `{"c":{"$splice":{"result":"r1","edits":[],"x":null}}}`, "/c", ia, nil, `"x"`},
		{"repeated splice member", `{"c":{"$splice":{"result":"r1","result":"r1","edits":[]}}}`, "/c", ia, nil, ""},
		{"missing result", `{"c":{"$splice":{"edits":[]}}}`, "/c", ia, nil, ""},
		{"result a number", `{"c":{"$splice":{"result":1,"edits":[]}}}`, "/c", ia, nil, ""},
		{"result null", `{"c":{"$splice":{"result":null,"edits":[]}}}`, "/c", ia, nil, ""},
		{"sha256 of a bad form", `{"c":{"$splice":{"result":"r1","sha256":"xyz","edits":[]}}}`, "/c", ia, nil, ""},
		{"sha256 a number", `{"c":{"$splice":{"result":"r1","sha256":1,"edits":[]}}}`, "/c", ia, nil, ""},
		{"missing edits", `{"c":{"$splice":{"result":"r1"}}}`, "/c", ia, nil, ""},
		{"edits an object", `{"c":{"$splice":{"result":"r1","edits":{}}}}`, "/c", ia, nil, ""},
		{"edits null", `{"c":{"$splice":{"result":"r1","edits":null}}}`, "/c", ia, nil, ""},
		{"members before the edits", `{"c":{"$splice":{"result":"r1","edits":[5],"x":1}}}`, "/c", ia, nil, ""},
		{"unknown result", `{"c":{"$splice":{"result":"r99","edits":[]}}}`, "/c", errcode.UnknownResult, nil, ""},
		{"wrong digest", `{"c":{"$splice":{"result":"r1","sha256":"` + wrong + `","edits":[]}}}`, "/c", errcode.DigestMismatch, nil, ""},
		{"the reference before the edits", `{"c":{"$splice":{"result":"r99","edits":[5]}}}`, "/c", errcode.UnknownResult, nil, ""},
		{"splice under an escaped name", `{"a~b":[{"$splice":{"result":"r1","edits":[{"before":9,"text":""}]}}]}`,
			"/a~0b/0/$splice/edits/0", ir, three, ""},
	})
}

// TestExpandDocumentOrder checks SPEC 5.1: nodes in document order, parts
// left to right, the first failure is the answer.
func TestExpandDocumentOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, args, at string
		code           errcode.Code
		msg            string
	}{
		{"first failing node", `{"a":{"$compose":[{"result":"r98"}]},"b":{"$compose":[{"result":"r99"}]}}`, "/a/$compose/0", errcode.UnknownResult, `"r98"`},
		{"first failing part", `{"c":{"$compose":[{"result":"r98"},{"result":"r99"}]}}`, "/c/$compose/0", errcode.UnknownResult, `"r98"`},
		{"a failure after a valid node", `{"a":{"$compose":["ok"]},"b":{"$compose":["ok",{"result":"r1","bytes":[0,99]}]}}`, "/b/$compose/1", errcode.InvalidRange, ""},
		{"array elements in order", `{"e":[{"$compose":["ok"]},{"$compose":[5]},{"$compose":[{"result":"r99"}]}]}`, "/e/1/$compose/0", errcode.InvalidArgument, ""},
		{"a malformed node before a failing part", `{"a":{"$compose":1},"b":{"$compose":[{"result":"r99"}]}}`, "/a", errcode.InvalidArgument, ""},
		{"a failing splice edit before a later node", `{"a":{"$splice":{"result":"r1","edits":[{"before":9,"text":""}]}},"b":{"$compose":[5]}}`, "/a/$splice/edits/0", errcode.InvalidRange, ""},
		{"a splice's first failing edit", `{"a":{"$splice":{"result":"r1","edits":[{"before":9,"text":""},5]}}}`, "/a/$splice/edits/0", errcode.InvalidRange, ""},
		{"depth first", `{"a":{"x":[{"y":{"$compose":[{"result":"r97"}]}}]},"b":{"$compose":[{"result":"r99"}]}}`, "/a/x/0/y/$compose/0", errcode.UnknownResult, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := editBriefing(t, limits.Defaults(), Legacy)
			_, err := expand(b, tt.args)
			at, cause := unresolved(t, err)
			assert.Equal(t, tt.at, at)
			assert.Equal(t, tt.code, cause.Code)
			assert.Contains(t, cause.Msg, tt.msg)
			assert.Equal(t, len(editFiles), b.store.Len(), "nothing is retained")
		})
	}
}

// TestExpandInvalidArguments checks the call's own argument errors: they
// fail the whole call with invalid_argument, retain nothing and refuse
// nothing, wherever they are in the document. (Arguments that are not JSON
// never reach it: they are a message that is not JSON, which the
// transport refuses.)
func TestExpandInvalidArguments(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, args string }{
		{"an array", `[{"$compose":["a"]}]`},
		{"a string", `"x"`},
		{"null", `null`},
		{"raw invalid UTF-8 in a string", "{\"p\":\"a\xffb\",\"c\":{\"$compose\":[\"x\"]}}"},
		{"raw invalid UTF-8 in a nested string", "{\"p\":[1,{\"q\":\"\xc0\xaf\"}]}"},
		{"raw invalid UTF-8 in a member name", "{\"p\xff\":1}"},
		{"raw invalid UTF-8 after a failing node", "{\"c\":{\"$compose\":[{\"result\":\"r99\"}]},\"p\":\"\xff\"}"},
		{"raw invalid UTF-8 after a malformed node", "{\"c\":{\"$compose\":1},\"p\":[\"\xed\xa0\x80\"]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := editBriefing(t, limits.Defaults(), Legacy)
			got, err := expand(b, tt.args)
			assert.Nil(t, got)
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidArgument, err.Code, err.Error())
			assert.False(t, b.Budget().Refused, "an argument error refuses nothing")
			assert.Nil(t, b.budget.CheckEdit())
			assert.Equal(t, len(editFiles), b.store.Len())
		})
	}
}

// TestExpandLoneSurrogateOutsideNodes checks that an escaped lone surrogate
// outside any node is returned as it was written, and names the edit's at
// and path in its 3-byte form.
func TestExpandLoneSurrogateOutsideNodes(t *testing.T) {
	t.Parallel()
	b := editBriefing(t, limits.Defaults(), Legacy)
	args := `{"s":"\ud800","t":["x\uDFFFy"],"\udc00":{"$compose":["ok"]},"path":"\ud800.go"}`
	got, err := expand(b, args)
	require.Nil(t, err)
	assert.Equal(t, `{"s":"\ud800","t":["x\uDFFFy"],"\udc00":"ok","path":"\ud800.go"}`, string(got.Arguments))
	require.Len(t, got.Expansions, 1)
	r, rerr := b.store.Get(*got.Expansions[0].Result)
	require.Nil(t, rerr)
	// A top-level string path names the edit (SPEC section 3), a lone
	// surrogate escape kept in its 3-byte form as at pointers are.
	require.NotNil(t, r.Source.Path)
	assert.Equal(t, "/\xed\xb0\x80", *r.Source.At)
	assert.Equal(t, "\xed\xa0\x80.go", *r.Source.Path)
}

func TestExpandStepRefusal(t *testing.T) {
	t.Parallel()
	b := editBriefing(t, limits.Defaults(), Legacy)
	_, err := expand(b, `{"c":{"$compose":[{"result":"r99"}]}}`)
	unresolved(t, err)
	assert.True(t, b.Budget().Refused)
	assert.Equal(t, errcode.StepRefused, code(t, b.budget.CheckEdit()), "the next expand_edit")
	assert.Equal(t, errcode.StepRefused, code(t, b.budget.StartLookup()), "the next lookup")
	assert.Equal(t, errcode.StepRefused, code(t, b.budget.CheckEdit()), "until begin_step")
	s := b.beginStep()
	assert.Equal(t, int64(2), s.Step)
	assert.Nil(t, b.budget.CheckEdit())
	assert.Nil(t, b.budget.StartLookup())
	got, err := expand(b, `{"c":{"$compose":[{"result":"r1"}]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r7", *got.Expansions[0].Result)
	assert.False(t, got.Budget.Refused)
	assert.Equal(t, int64(2), got.Budget.Step)

	// A malformed node refuses the step as well, arguments itself included.
	for _, args := range []string{`{"c":{"$compose":"x"}}`, `{"$compose":[]}`, `{"c":{"$splice":{"result":"r1","edits":[5]}}}`} {
		b.beginStep()
		_, err := expand(b, args)
		unresolved(t, err)
		assert.True(t, b.Budget().Refused, args)
		assert.Equal(t, errcode.StepRefused, code(t, b.budget.CheckEdit()), args)
	}
}

func TestExpandRetainsEdits(t *testing.T) {
	t.Parallel()
	b := editBriefing(t, limits.Defaults(), Legacy)
	args := `{"path":"a.txt","content":{"$splice":{"result":"r1","edits":[{"lines":[2,2],"text":"TWO\n"}]}},"old":{"$compose":["two\n"]}}`
	got, err := expand(b, args)
	require.Nil(t, err)
	require.Len(t, got.Expansions, 2)
	assert.Equal(t, []Expansion{
		{At: "/content", Bytes: 14, SHA256: hexSum("one\nTWO\nthree\n"), Parts: 1, Result: ptr("r7")},
		{At: "/old", Bytes: 4, SHA256: hexSum("two\n"), Parts: 1, Result: ptr("r8")},
	}, got.Expansions)
	assert.Equal(t, "/content: 14 bytes sha256="+hexSum("one\nTWO\nthree\n")[:12]+" result=r7\n"+
		"/old: 4 bytes sha256="+hexSum("two\n")[:12]+" result=r8\n", got.Text)
	assert.NotContains(t, got.Text, "TWO", "the text content never holds the body")
	for i, at := range []string{"/content", "/old"} {
		r, rerr := b.store.Get("r" + strconv.Itoa(7+i))
		require.Nil(t, rerr)
		assert.Equal(t, results.Source{Kind: results.KindEdit, At: ptr(at), Path: ptr("a.txt")}, r.Source)
		assert.True(t, r.Complete)
	}
	assert.Equal(t, int64(18), got.Budget.ExpandBytesUsed)

	// The same call again reuses both results and uses no capacity, but
	// still counts its expanded bytes.
	again, err := expand(b, args)
	require.Nil(t, err)
	assert.Equal(t, got.Expansions, again.Expansions)
	assert.Equal(t, got.Arguments, again.Arguments)
	assert.Equal(t, 8, b.store.Len())
	assert.Equal(t, int64(36), again.Budget.ExpandBytesUsed)

	// The same text at another pointer, or under another path, is a new
	// result: the source differs.
	moved, err := expand(b, `{"path":"a.txt","other":{"$compose":["two\n"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r9", *moved.Expansions[0].Result)
	renamed, err := expand(b, `{"path":"b.txt","old":{"$compose":["two\n"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r10", *renamed.Expansions[0].Result)
	same, err := expand(b, `{"old":{"$compose":[{"result":"r1","lines":[2,2]}]},"path":"a.txt"}`)
	require.Nil(t, err)
	assert.Equal(t, "r8", *same.Expansions[0].Result, "equal text, at and path: reused")
}

func TestExpandPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, args string
		path       *string
	}{
		{"string path", `{"path":"a.go","c":{"$compose":["x"]}}`, ptr("a.go")},
		{"path after the node", `{"c":{"$compose":["x"]},"path":"dir/b.go"}`, ptr("dir/b.go")},
		{"escaped path", `{"path":"d\/\u00e9.go","c":{"$compose":["x"]}}`, ptr("d/é.go")},
		{"path a compose node", `{"path":{"$compose":["b",".go"]},"c":{"$compose":["x"]}}`, ptr("b.go")},
		{"path a splice node", `{"path":{"$splice":{"result":"r5","edits":[{"lines":[2,2],"text":"z.go"}]}},"c":{"$compose":["x"]}}`, ptr("x\nz.go")},
		{"no path", `{"file":"a.go","c":{"$compose":["x"]}}`, nil},
		{"path a number", `{"path":5,"c":{"$compose":["x"]}}`, nil},
		{"path null", `{"path":null,"c":{"$compose":["x"]}}`, nil},
		{"path an object", `{"path":{"p":"a.go"},"c":{"$compose":["x"]}}`, nil},
		{"nested path is not top-level", `{"d":{"path":"a.go","c":{"$compose":["x"]}}}`, nil},
		{"path in an array", `{"d":[{"path":"a.go"}],"c":{"$compose":["x"]}}`, nil},
		{"empty path is a string", `{"path":"","c":{"$compose":["x"]}}`, ptr("")},
		{"repeated path is ambiguous", `{"path":"a.go","path":"b.go","c":{"$compose":["x"]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := editBriefing(t, limits.Defaults(), Legacy)
			got, err := expand(b, tt.args)
			require.Nil(t, err)
			for _, x := range got.Expansions {
				r, rerr := b.store.Get(*x.Result)
				require.Nil(t, rerr)
				assert.Equal(t, tt.path, r.Source.Path, x.At)
				assert.Equal(t, x.At, *r.Source.At)
			}
		})
	}
}

// TestExpandCap checks --max-expand-bytes: checked after every part
// resolves, expansion_too_large adds nothing and refuses nothing.
func TestExpandCap(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxExpandBytes = 20
	b := editBriefing(t, cfg, Legacy)

	_, err := expand(b, `{"a":{"$compose":[{"result":"r1"}]},"b":{"$compose":["1234567"]}}`) // 14 + 7
	require.NotNil(t, err)
	assert.Equal(t, errcode.ExpansionTooLarge, err.Code)
	assert.Equal(t, new(int64(21)), err.Size)
	assert.Equal(t, new(int64(20)), err.Limit)
	snap := b.Budget()
	assert.False(t, snap.Refused)
	assert.Equal(t, int64(0), snap.ExpandBytesUsed)
	assert.Equal(t, len(editFiles), b.store.Len())

	// An unresolved part after the nodes that pass the cap still wins.
	_, err = expand(b, `{"a":{"$compose":[{"result":"r1"},{"result":"r1"}]},"b":{"$compose":[{"result":"r99"}]}}`)
	at, cause := unresolved(t, err)
	assert.Equal(t, "/b/$compose/0", at)
	assert.Equal(t, errcode.UnknownResult, cause.Code)
	b.beginStep()

	// Exactly the cap passes; then one more byte does not.
	got, err := expand(b, `{"a":{"$compose":[{"result":"r1"},"123456"]}}`)
	require.Nil(t, err)
	assert.Equal(t, int64(20), got.Budget.ExpandBytesUsed)
	assert.Equal(t, int64(0), got.Budget.ExpandBytesLeft)
	_, err = expand(b, `{"a":{"$compose":["x"]}}`)
	require.NotNil(t, err)
	assert.Equal(t, errcode.ExpansionTooLarge, err.Code)
	assert.Contains(t, err.Msg, "0 left")
	// An empty expansion still fits.
	got, err = expand(b, `{"a":{"$compose":[]},"b":{"$splice":{"result":"r6","edits":[]}}}`)
	require.Nil(t, err)
	assert.Len(t, got.Expansions, 2)
	assert.Nil(t, b.budget.CheckEdit(), "expansion_too_large does not refuse the step")

	// A splice counts its whole resulting text, not its edits.
	b.beginStep()
	_, err = expand(b, `{"a":{"$splice":{"result":"r1","edits":[{"before":1,"text":"123456\n"}]}}}`) // 14 + 7
	require.NotNil(t, err)
	assert.Equal(t, errcode.ExpansionTooLarge, err.Code)
	assert.Equal(t, new(int64(21)), err.Size)
	got, err = expand(b, `{"a":{"$splice":{"result":"r1","edits":[{"lines":[1,1],"text":"123456\n"}]}}}`) // 17
	require.Nil(t, err)
	assert.Equal(t, int64(17), got.Budget.ExpandBytesUsed)
}

// TestExpandLegacyStoreFull checks SPEC 5.1 in legacy context: a full store
// answers result null and still expands.
func TestExpandLegacyStoreFull(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = int64(len(editFiles)) + 1
	b := editBriefing(t, cfg, Legacy)
	got, err := expand(b, `{"a":{"$compose":["x"]},"b":{"$compose":["y"]}}`)
	require.Nil(t, err)
	require.Len(t, got.Expansions, 2)
	assert.Equal(t, "r7", *got.Expansions[0].Result)
	assert.Nil(t, got.Expansions[1].Result)
	assert.Equal(t, "/a: 1 bytes sha256="+hexSum("x")[:12]+" result=r7\n/b: 1 bytes sha256="+hexSum("y")[:12]+" result=null\n", got.Text)
	assert.Equal(t, `{"a":"x","b":"y"}`, string(got.Arguments))
	assert.Equal(t, int64(2), got.Budget.ExpandBytesUsed)
	assert.Equal(t, 7, b.store.Len())

	// A reused expansion still has its ID in a full store.
	again, err := expand(b, `{"a":{"$compose":["x"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r7", *again.Expansions[0].Result)

	// An expansion over --max-result-bytes is not retained either.
	cfg = limits.Defaults()
	cfg.MaxResultBytes = int64(len(editDoc)) // the largest file
	b = editBriefing(t, cfg, Legacy)
	got, err = expand(b, `{"a":{"$compose":[{"result":"r3"},"!"]}}`)
	require.Nil(t, err)
	assert.Nil(t, got.Expansions[0].Result)
	assert.Equal(t, int64(len(editDoc)+1), got.Expansions[0].Bytes)
	assert.Equal(t, len(editFiles), b.store.Len())
}

// TestExpandBoundedStoreFull checks SPEC 5.1 in bounded context: store_full
// is checked last, is all or nothing, adds no expansion bytes and refuses
// nothing.
func TestExpandBoundedStoreFull(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = int64(len(editFiles)) + 1
	b := editBriefing(t, cfg, Bounded)

	_, err := expand(b, `{"a":{"$compose":["x"]},"b":{"$compose":["y"]}}`)
	require.NotNil(t, err)
	assert.Equal(t, errcode.StoreFull, err.Code)
	assert.Equal(t, len(editFiles), b.store.Len(), "all or nothing")
	snap := b.Budget()
	assert.Equal(t, int64(0), snap.ExpandBytesUsed)
	assert.False(t, snap.Refused)

	// An unresolved part wins over a full store.
	_, err = expand(b, `{"a":{"$compose":["x"]},"b":{"$compose":["y"]},"c":{"$compose":[5]}}`)
	unresolved(t, err)
	b.beginStep()

	// The expansion cap is checked before the store.
	cfg.MaxExpandBytes = 1
	capped := editBriefing(t, cfg, Bounded)
	_, err = expand(capped, `{"a":{"$compose":["x"]},"b":{"$compose":["y"]}}`)
	assert.Equal(t, errcode.ExpansionTooLarge, code(t, err))

	// One fits; the same node twice (one source) is one result.
	got, err := expand(b, `{"a":{"$compose":["x"]},"a":{"$compose":["x"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r7", *got.Expansions[0].Result)
	assert.Equal(t, "r7", *got.Expansions[1].Result)
	assert.Equal(t, 7, b.store.Len())
	// Now full: a reused expansion still succeeds, a new one fails.
	got, err = expand(b, `{"a":{"$compose":["x"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r7", *got.Expansions[0].Result)
	before := b.Budget().ExpandBytesUsed
	_, err = expand(b, `{"a":{"$compose":["x"]},"b":{"$compose":["y"]}}`)
	assert.Equal(t, errcode.StoreFull, code(t, err))
	assert.Equal(t, before, b.Budget().ExpandBytesUsed)

	// The byte caps too.
	cfg = limits.Defaults()
	cfg.MaxStoreBytes = int64(len(editFiles[0].body)+len(editFiles[1].body)+len(editDoc)+len(editFiles[3].body)+len(editFiles[4].body)) + 3
	b = editBriefing(t, cfg, Bounded)
	_, err = expand(b, `{"a":{"$compose":["xy"]},"b":{"$compose":["zw"]}}`)
	assert.Equal(t, errcode.StoreFull, code(t, err))
	assert.Equal(t, new(int64(4)), err.Size)
	assert.Equal(t, len(editFiles), b.store.Len())
	got, err = expand(b, `{"a":{"$compose":["xyz"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r7", *got.Expansions[0].Result)
}

// TestExpandProcessQuota checks that --max-total-bytes, shared by the
// briefings of a process, is handled like a full store, all or nothing.
func TestExpandProcessQuota(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	quota := results.NewQuota(10)
	other := New(Options{Limits: cfg, Policy: Bounded, Quota: quota})
	t.Cleanup(other.Close)
	_, err := other.retainOutput(Output{Label: "a", Text: "12345678"})
	require.Nil(t, err)

	b := New(Options{Limits: cfg, Policy: Bounded, Quota: quota})
	_, err = expand(b, `{"a":{"$compose":["xy"]},"b":{"$compose":["z"]}}`)
	assert.Equal(t, errcode.StoreFull, code(t, err))
	assert.Equal(t, int64(8), quota.Used(), "nothing reserved")
	assert.Equal(t, 0, b.store.Len())
	got, err := expand(b, `{"a":{"$compose":["x"]},"b":{"$compose":["z"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r2", *got.Expansions[1].Result)
	assert.Equal(t, int64(10), quota.Used())
	b.Close()
	assert.Equal(t, int64(8), quota.Used(), "a closed briefing gives its bytes back")

	legacy := New(Options{Limits: cfg, Policy: Legacy, Quota: quota})
	t.Cleanup(legacy.Close)
	got, err = expand(legacy, `{"a":{"$compose":["x"]},"b":{"$compose":["yz"]},"c":{"$compose":["w"]}}`)
	require.Nil(t, err)
	assert.Equal(t, "r1", *got.Expansions[0].Result)
	assert.Nil(t, got.Expansions[1].Result, "2 bytes do not fit the 1 left")
	assert.Equal(t, "r2", *got.Expansions[2].Result, "legacy keeps what fits, one result at a time")
	assert.Equal(t, int64(10), quota.Used())
}

// jsonSub indexes a JSON value as the transport indexes a message (raw invalid
// UTF-8 allowed), for ExpandEdit and WriteFileRequest.
func jsonSub[T ~string | ~[]byte](v T) jsontape.Sub {
	ix, err := jsontape.Build([]byte(v), jsontape.Options{AllowInvalidUTF8: true})
	if err != nil {
		panic(err)
	}
	return ix.SubOf(ix.Root())
}
