package briefing

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// anchorFiles are the files of the anchor tests, inspected as r1 to r7.
// Their lines' anchors, computed independently (the first two characters
// of the lowercase base32 SHA-256 of each line without its ending):
// one 1#o2, two 2#h7, three 3#rn; a 1#zk, b 2#hy, c 3#fz (CRLF); x 1#fv,
// y 2#uh (no final newline); héllo 1#hr, "" 2#4o, wörld 3#q3; near.txt's
// "same" (lines 10 and 14) #bf, l11 #ot, l12 #54, l30 #wv, l35 #hm; the
// 100 é of long.txt 1#6q, zz 2#jj.
var anchorFiles = []struct{ name, body string }{
	{"lf.txt", "one\ntwo\nthree\n"},                   // r1
	{"crlf.txt", "a\r\nb\r\nc\r\n"},                   // r2
	{"nonl.txt", "x\ny"},                              // r3
	{"uni.txt", "héllo\n\nwörld\n"},                   // r4: non-ASCII, an empty line
	{"near.txt", nearText()},                          // r5: 40 lines, "same" at 10 and 14
	{"empty.txt", ""},                                 // r6
	{"long.txt", strings.Repeat("é", 100) + "\nzz\n"}, // r7
}

// nearText is 40 lines "l1".."l40", but for lines 10 and 14, "same".
func nearText() string {
	var sb strings.Builder
	for n := 1; n <= 40; n++ {
		if n == 10 || n == 14 {
			sb.WriteString("same\n")
			continue
		}
		fmt.Fprintf(&sb, "l%d\n", n)
	}
	return sb.String()
}

// anchorBriefing inspects anchorFiles as r1 to r7, with --steps model when
// model is set.
func anchorBriefing(t *testing.T, model bool) *Briefing {
	t.Helper()
	files := map[string]string{}
	var names []string
	for _, f := range anchorFiles {
		files[f.name] = f.body
		names = append(names, f.name)
	}
	root, _ := testroot.Open(t, files, workspace.Open)
	opts := Options{Limits: limits.Defaults(), Policy: Legacy, Root: root}
	if model {
		opts.Steps = limits.ModelSteps
	}
	b := New(opts)
	t.Cleanup(b.Close)
	for i, e := range b.inspectPaths(names) {
		require.Nil(t, e.Err)
		require.Equal(t, "r"+strconv.Itoa(i+1), *e.Descriptor.ID)
	}
	return b
}

const (
	notAnchor = `not an anchor: an anchor is a line number, "#" and the line's two characters (a-z, 2-7), as numbered get_lines and find show it: "41#xy"`
	tooFar    = `: read the lines again with numbered get_lines or find and send their anchors`
)

// anchorCase is one splice (or compose, when compose is set) of the
// anchor tests: its text when it resolves, else the failing part's at and
// its cause.
type anchorCase struct {
	name    string
	model   bool   // --steps model
	result  string // the spliced result
	edits   string // the edits, or with compose the parts
	compose bool
	want    string       // the text, when it resolves
	at      string       // else the failing part: edits/N or $compose/N
	code    errcode.Code // and its cause
	msg     string
}

func runAnchorCases(t *testing.T, tests []anchorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := anchorBriefing(t, tt.model)
			args := `{"content":{"$splice":{"result":"` + tt.result + `","edits":` + tt.edits + `}}}`
			at := "/content/$splice/" + tt.at
			if tt.compose {
				args = `{"content":{"$compose":` + tt.edits + `}}`
				at = "/content/" + tt.at
			}
			x, err := expand(b, args)
			if tt.code == "" {
				require.Nil(t, err, "%v", err)
				var got struct{ Content string }
				require.NoError(t, json.Unmarshal(x.Arguments, &got))
				assert.Equal(t, tt.want, got.Content)
				return
			}
			gotAt, cause := unresolved(t, err)
			assert.Equal(t, at, gotAt)
			assert.Equal(t, tt.code, cause.Code)
			assert.Equal(t, tt.msg, cause.Msg)
			assert.True(t, b.budget.Snapshot().Refused, "an unresolved edit refuses the step")
		})
	}
}

// TestSpliceAnchors: a splice position is a number or the line's anchor
// (SPEC 4.4 and 5.2), checked in order: the form, the range, the
// characters, then the order and the text; after n is before n + 1; the
// anchor of a line is that of its text alone (CRLF, no ending, empty,
// non-ASCII); a compose reference's lines take anchors too.
func TestSpliceAnchors(t *testing.T) {
	t.Parallel()
	ia, ir, am := errcode.InvalidArgument, errcode.InvalidRange, errcode.AnchorMismatch
	runAnchorCases(t, []anchorCase{
		{name: "lines by anchors", result: "r1", edits: `[{"lines":["2#h7","3#rn"],"text":"X\n"}]`, want: "one\nX\n"},
		{name: "a number and an anchor", result: "r1", edits: `[{"lines":[1,"1#o2"],"text":"ONE\n"}]`, want: "ONE\ntwo\nthree\n"},
		{name: "a CRLF line: the anchor of its text", result: "r2", edits: `[{"lines":["2#hy","2#hy"],"text":"B\n"}]`, want: "a\r\nB\r\nc\r\n"},
		{name: "a last line without an ending", result: "r3", edits: `[{"lines":["2#uh","2#uh"],"text":"Y"}]`, want: "x\nY"},
		{name: "an empty line and non-ASCII", result: "r4", edits: `[{"lines":["2#4o","3#q3"],"text":"w\n"}]`, want: "héllo\nw\n"},
		{name: "before an anchor", result: "r1", edits: `[{"before":"1#o2","text":"zero\n"}]`, want: "zero\none\ntwo\nthree\n"},
		{name: "after an anchor is before the next line", result: "r1", edits: `[{"after":"1#o2","text":"1.5\n"}]`, want: "one\n1.5\ntwo\nthree\n"},
		{name: "after a number", result: "r1", edits: `[{"after":2,"text":"2.5\n"}]`, want: "one\ntwo\n2.5\nthree\n"},
		{name: "after the last line appends", result: "r1", edits: `[{"after":"3#rn","text":"four\n"}]`, want: "one\ntwo\nthree\nfour\n"},
		{name: "after the last line without an ending", result: "r3", edits: `[{"after":"2#uh","text":"\nz"}]`, want: "x\ny\nz"},
		{name: "after, then a replacement of the next line", result: "r1",
			edits: `[{"after":"1#o2","text":"x\n"},{"lines":["2#h7","2#h7"],"text":"Y\n"}]`, want: "one\nx\nY\nthree\n"},
		{name: "after and before the same line overlap", result: "r1",
			edits: `[{"after":"1#o2","text":"x\n"},{"before":"2#h7","text":"y\n"}]`, at: "edits/1", code: ir,
			msg: "edit 1 (before line 2) overlaps edit 0 (after line 1): edits must be in file order and must not overlap, " +
				"so edit 1 starts at line 3 or later; line numbers refer to r1 as stored (3 lines)"},
		{name: "after and before", result: "r1", edits: `[{"after":1,"before":2,"text":"x\n"}]`, at: "edits/0", code: ia,
			msg: `an edit has exactly one of lines, before and after (this one has 2): {"lines": [first, last], "text"}, {"before": n, "text"} or {"after": n, "text"}, each position a line number or its anchor ("41#xy")`},

		// The form: a malformed anchor is invalid_argument.
		{name: "upper case", result: "r1", edits: `[{"lines":["2#H7","2#h7"],"text":""}]`, at: "edits/0", code: ia, msg: `member "lines/0" is "2#H7", ` + notAnchor},
		{name: "a leading zero", result: "r1", edits: `[{"lines":["02#h7","2#h7"],"text":""}]`, at: "edits/0", code: ia, msg: `member "lines/0" is "02#h7", ` + notAnchor},
		{name: "one character", result: "r1", edits: `[{"before":"2#h","text":""}]`, at: "edits/0", code: ia, msg: `member "before" is "2#h", ` + notAnchor},
		{name: "three characters", result: "r1", edits: `[{"after":"2#h7x","text":""}]`, at: "edits/0", code: ia, msg: `member "after" is "2#h7x", ` + notAnchor},
		{name: "a space after", result: "r1", edits: `[{"before":"2#h7 ","text":""}]`, at: "edits/0", code: ia, msg: `member "before" is "2#h7 ", ` + notAnchor},
		{name: "no number", result: "r1", edits: `[{"before":"#h7","text":""}]`, at: "edits/0", code: ia, msg: `member "before" is "#h7", ` + notAnchor},
		{name: "no hash", result: "r1", edits: `[{"before":"2h7","text":""}]`, at: "edits/0", code: ia, msg: `member "before" is "2h7", ` + notAnchor},
		{name: "a character outside base32", result: "r1", edits: `[{"before":"2#h1","text":""}]`, at: "edits/0", code: ia, msg: `member "before" is "2#h1", ` + notAnchor},
		{name: "a number as a string", result: "r1", edits: `[{"before":"2","text":""}]`, at: "edits/0", code: ia, msg: `member "before" is "2", ` + notAnchor},
		{name: "empty", result: "r1", edits: `[{"lines":["2#h7",""],"text":""}]`, at: "edits/0", code: ia, msg: `member "lines/1" is "", ` + notAnchor},
		{name: "a boolean", result: "r1", edits: `[{"after":true,"text":""}]`, at: "edits/0", code: ia, msg: `member "after" must be a line number or an anchor ("41#xy"), not true`},
		{name: "the form before the range", result: "r1", edits: `[{"lines":["9#h7","2#x"],"text":""}]`, at: "edits/0", code: ia, msg: `member "lines/1" is "2#x", ` + notAnchor},

		// The range: an anchor's number names a line, before its characters.
		{name: "line 0", result: "r1", edits: `[{"lines":["0#h7","2#h7"],"text":""}]`, at: "edits/0", code: ir, msg: "lines 0-2 outside 1-3"},
		{name: "past the end, before the characters", result: "r1", edits: `[{"lines":["2#o2","4#h7"],"text":""}]`, at: "edits/0", code: ir, msg: "lines 2-4 outside 1-3"},
		{name: "before lines + 1 is a number only", result: "r1", edits: `[{"before":"4#h7","text":"x\n"}]`, at: "edits/0", code: ir,
			msg: "edit 0 inserts before 4#h7, but r1 has 3 lines: an anchor names a line; to append, send before 4 as a number"},
		{name: "before lines + 1 as a number appends", result: "r1", edits: `[{"before":4,"text":"four\n"}]`, want: "one\ntwo\nthree\nfour\n"},
		{name: "after past the end", result: "r1", edits: `[{"after":"4#h7","text":"x\n"}]`, at: "edits/0", code: ir, msg: "edit 0 inserts after line 4 outside 1-3"},
		{name: "after 0", result: "r1", edits: `[{"after":0,"text":"x\n"}]`, at: "edits/0", code: ir, msg: "edit 0 inserts after line 0 outside 1-3"},
		{name: "after on an empty result", result: "r6", edits: `[{"after":1,"text":"x\n"}]`, at: "edits/0", code: ir, msg: "edit 0 inserts after line 1 outside 1-0"},

		// The characters: anchor_mismatch names the line and the nearest
		// line within 16 that has the characters sent.
		{name: "mismatch: the line before has them", result: "r1", edits: `[{"lines":["2#o2","2#o2"],"text":"x\n"}]`, at: "edits/0", code: am,
			msg: `line 2 is 2#h7 "two", not 2#o2; 1#o2 is "one"`},
		{name: "mismatch: the last position", result: "r1", edits: `[{"lines":["1#o2","2#rn"],"text":"x\n"}]`, at: "edits/0", code: am,
			msg: `line 2 is 2#h7 "two", not 2#rn; 3#rn is "three"`},
		{name: "mismatch: before", result: "r2", edits: `[{"before":"1#fz","text":"x\n"}]`, at: "edits/0", code: am,
			msg: `line 1 is 1#zk "a", not 1#fz; 3#fz is "c"`},
		{name: "mismatch: after", result: "r4", edits: `[{"after":"1#4o","text":"x\n"}]`, at: "edits/0", code: am,
			msg: `line 1 is 1#hr "héllo", not 1#4o; 2#4o is ""`},
		{name: "mismatch: one before and one after as near", result: "r5", edits: `[{"lines":["12#bf","12#bf"],"text":""}]`, at: "edits/0", code: am,
			msg: `line 12 is 12#54 "l12", not 12#bf; 10#bf is "same", 14#bf is "same"`},
		{name: "mismatch: the nearer of two", result: "r5", edits: `[{"before":"11#bf","text":""}]`, at: "edits/0", code: am,
			msg: `line 11 is 11#ot "l11", not 11#bf; 10#bf is "same"`},
		{name: "mismatch: 16 lines away", result: "r5", edits: `[{"after":"30#bf","text":""}]`, at: "edits/0", code: am,
			msg: `line 30 is 30#wv "l30", not 30#bf; 14#bf is "same"`},
		{name: "mismatch: none within 16", result: "r5", edits: `[{"lines":["35#bf","35#bf"],"text":""}]`, at: "edits/0", code: am,
			msg: `line 35 is 35#hm "l35", not 35#bf; no line within 16 of it has #bf` + tooFar},
		{name: "mismatch: a long line cut to 80 bytes on a character boundary", result: "r7", edits: `[{"lines":["1#jj","1#jj"],"text":""}]`, at: "edits/0", code: am,
			msg: `line 1 is 1#6q "` + strings.Repeat("é", 40) + `", not 1#jj; 2#jj is "zz"`},
		{name: "mismatch: before the order", result: "r1",
			edits: `[{"lines":["2#h7","2#h7"],"text":"x\n"},{"lines":["1#h7","1#h7"],"text":""}]`, at: "edits/1", code: am,
			msg: `line 1 is 1#o2 "one", not 1#h7; 2#h7 is "two"`},
		{name: "mismatch: before the text's rules", result: "r1", edits: `[{"lines":["1#h7","1#h7"],"text":"no newline"}]`, at: "edits/0", code: am,
			msg: `line 1 is 1#o2 "one", not 1#h7; 2#h7 is "two"`},

		// Compose references take anchors too, in either mode.
		{name: "compose: an anchor to the end", compose: true, edits: `[{"result":"r1","lines":["2#h7"]}]`, want: "two\nthree\n"},
		{name: "compose: anchors and numbers", compose: true, edits: `[{"result":"r1","lines":[1,"2#h7"]},{"result":"r2","lines":["3#fz",3]}]`, want: "one\ntwo\nc\r\n"},
		{name: "compose: numbers with --steps model", model: true, compose: true, edits: `[{"result":"r1","lines":[2,3]}]`, want: "two\nthree\n"},
		{name: "compose: a mismatch", compose: true, edits: `["x",{"result":"r1","lines":["1#o2","3#h7"]}]`, at: "$compose/1", code: am,
			msg: `line 3 is 3#rn "three", not 3#h7; 2#h7 is "two"`},
		{name: "compose: the range first", compose: true, edits: `[{"result":"r1","lines":["2#o2","5#o2"]}]`, at: "$compose/0", code: ir, msg: "lines 2-5 outside 1-3"},
		{name: "compose: a malformed anchor", compose: true, edits: `[{"result":"r1","lines":["1#O2"]}]`, at: "$compose/0", code: ia, msg: `member "lines/0" is "1#O2", ` + notAnchor},
	})
}

// TestSpliceModelNumbers: with --steps model a number that names a line
// is refused with a message that shows the lines by their anchors (SPEC
// 5.2), after the range and before the anchors' characters; before
// lines + 1 and before 1 of an empty result stay numbers.
func TestSpliceModelNumbers(t *testing.T) {
	t.Parallel()
	ia, ir, am := errcode.InvalidArgument, errcode.InvalidRange, errcode.AnchorMismatch
	const name = "name lines by their anchors, as numbered get_lines and find show them: "
	runAnchorCases(t, []anchorCase{
		{name: "lines", model: true, result: "r1", edits: `[{"lines":[2,2],"text":"x\n"}]`, at: "edits/0", code: ia, msg: name + `line 2 is 2#h7 "two"`},
		{name: "two lines", model: true, result: "r1", edits: `[{"lines":[1,3],"text":"x\n"}]`, at: "edits/0", code: ia,
			msg: name + `line 1 is 1#o2 "one", line 3 is 3#rn "three"`},
		{name: "one of two", model: true, result: "r4", edits: `[{"lines":["1#hr",2],"text":"x\n"}]`, at: "edits/0", code: ia, msg: name + `line 2 is 2#4o ""`},
		{name: "before", model: true, result: "r2", edits: `[{"before":2,"text":"x\n"}]`, at: "edits/0", code: ia, msg: name + `line 2 is 2#hy "b"`},
		{name: "after", model: true, result: "r1", edits: `[{"after":3,"text":"x\n"}]`, at: "edits/0", code: ia, msg: name + `line 3 is 3#rn "three"`},
		{name: "a later edit", model: true, result: "r1", edits: `[{"lines":["1#o2","1#o2"],"text":"x\n"},{"before":3,"text":"y\n"}]`, at: "edits/1", code: ia,
			msg: name + `line 3 is 3#rn "three"`},
		{name: "the range first", model: true, result: "r1", edits: `[{"lines":[2,9],"text":""}]`, at: "edits/0", code: ir, msg: "lines 2-9 outside 1-3"},
		{name: "before the anchors' characters", model: true, result: "r1", edits: `[{"lines":[1,"2#o2"],"text":""}]`, at: "edits/0", code: ia,
			msg: name + `line 1 is 1#o2 "one"`},
		{name: "a mismatch", model: true, result: "r1", edits: `[{"lines":["1#h7","1#h7"],"text":""}]`, at: "edits/0", code: am,
			msg: `line 1 is 1#o2 "one", not 1#h7; 2#h7 is "two"`},
		{name: "before lines + 1 stays a number", model: true, result: "r1", edits: `[{"lines":["3#rn","3#rn"],"text":"3\n"},{"before":4,"text":"4\n"}]`,
			want: "one\ntwo\n3\n4\n"},
		{name: "before 1 of an empty result", model: true, result: "r6", edits: `[{"before":1,"text":"first\n"}]`, want: "first\n"},
		{name: "anchors", model: true, result: "r1", edits: `[{"after":"1#o2","text":"x\n"},{"lines":["3#rn","3#rn"],"text":""}]`, want: "one\nx\ntwo\n"},
		{name: "client mode takes numbers", result: "r1", edits: `[{"lines":[2,2],"text":"x\n"}]`, want: "one\nx\nthree\n"},
	})
}

// TestSpliceCopiedAnchors is the copied-anchor rule (SPEC 5.2, rule 3): a
// text that begins with the anchor of the edit's own first line and ": "
// (for after, the line after the one named), or that line's number and
// ": ", fails, after the newline rule; another line's anchor is text like
// any other.
func TestSpliceCopiedAnchors(t *testing.T) {
	t.Parallel()
	ia := errcode.InvalidArgument
	anchor := func(a string) string {
		return `text begins with "` + a + `: ", a line's anchor as find and get_lines show it; send the line without it`
	}
	number := func(n string) string {
		return `text begins with "` + n + `: ", a line number as find and get_lines show it; send the line without it`
	}
	runAnchorCases(t, []anchorCase{
		{name: "lines", result: "r1", edits: `[{"lines":["2#h7","2#h7"],"text":"2#h7: TWO\n"}]`, at: "edits/0", code: ia, msg: anchor("2#h7")},
		{name: "lines by number", result: "r1", edits: `[{"lines":[2,3],"text":"2#h7: TWO\n"}]`, at: "edits/0", code: ia, msg: anchor("2#h7")},
		{name: "before", result: "r1", edits: `[{"before":3,"text":"3#rn: x\n"}]`, at: "edits/0", code: ia, msg: anchor("3#rn")},
		{name: "after: the next line's anchor", result: "r1", edits: `[{"after":"1#o2","text":"2#h7: x\n"}]`, at: "edits/0", code: ia, msg: anchor("2#h7")},
		{name: "after: the named line's anchor is text", result: "r1", edits: `[{"after":"1#o2","text":"1#o2: x\n"}]`, want: "one\n1#o2: x\ntwo\nthree\n"},
		{name: "a number", result: "r1", edits: `[{"lines":["2#h7","2#h7"],"text":"2: TWO\n"}]`, at: "edits/0", code: ia, msg: number("2")},
		{name: "after: the next line's number", result: "r1", edits: `[{"after":2,"text":"3: x\n"}]`, at: "edits/0", code: ia, msg: number("3")},
		{name: "appending: the number only", result: "r1", edits: `[{"before":4,"text":"4: x\n"}]`, at: "edits/0", code: ia, msg: number("4")},
		{name: "a CRLF line", result: "r2", edits: `[{"lines":["2#hy","2#hy"],"text":"2#hy: B\n"}]`, at: "edits/0", code: ia, msg: anchor("2#hy")},
		{name: "a composed text, judged joined", result: "r1", edits: `[{"lines":[2,2],"text":{"$compose":["2#h","7: x\n"]}}]`, at: "edits/0", code: ia, msg: anchor("2#h7")},
		{name: "after the newline rule", result: "r1", edits: `[{"lines":[2,2],"text":"2#h7: x"}]`, at: "edits/0", code: ia,
			msg: `text does not end with "\n": it would join line 3`},
		{name: "another line's anchor is text", result: "r1", edits: `[{"lines":["2#h7","2#h7"],"text":"1#o2: x\n"}]`, want: "one\n1#o2: x\nthree\n"},
		{name: "an anchor without the space is text", result: "r1", edits: `[{"lines":["2#h7","2#h7"],"text":"2#h7:x\n"}]`, want: "one\n2#h7:x\nthree\n"},
	})
}

// TestSpliceAnchorsWriteFile: write_file resolves positions with the same
// resolver, its at under /splice.
func TestSpliceAnchorsWriteFile(t *testing.T) {
	t.Parallel()
	b := anchorBriefing(t, true)
	_, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":["2#o2","2#o2"],"text":"x\n"}]}`)})
	at, cause := unresolved(t, err)
	assert.Equal(t, "/splice/edits/0", at)
	assert.Equal(t, errcode.AnchorMismatch, cause.Code)
	assert.Equal(t, `line 2 is 2#h7 "two", not 2#o2; 1#o2 is "one"`, cause.Msg)
	assert.Contains(t, err.Msg, "call begin_step", "--steps model: the message says what to do")

	b.beginStep()
	w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"after":"2#h7","text":"2.5\n"}]}`)})
	require.Nil(t, err, "%v", err)
	assert.Equal(t, "@@ -2,2 +2,3 @@\n two\n+2.5\n three\n", w.Diff)
}

// refAnchor is line n's anchor, computed apart from the server: the
// first two characters of the lowercase base32 SHA-256 of the line
// without its ending (SPEC 4.4).
func refAnchor(line string, n int) string {
	content := line
	if strings.HasSuffix(content, "\n") {
		content = strings.TrimSuffix(strings.TrimSuffix(content, "\n"), "\r")
	}
	sum := sha256.Sum256([]byte(content))
	return strconv.Itoa(n) + "#" + strings.ToLower(base32.StdEncoding.EncodeToString(sum[:])[:2])
}

// FuzzSpliceAnchors: a splice whose positions are all anchors that match
// (after n standing for before n + 1 now and then) resolves exactly as the
// same splice by numbers does, to the same text or the same error; and the
// same splice with one anchor character changed never lands: it fails
// with anchor_mismatch at that edit, or earlier as the matching one did.
func FuzzSpliceAnchors(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte{0, 1, 2, 1, 0, 0, 2, 1, 1}, uint8(0), uint8(1))
	f.Add([]byte("a\r\nb\r\nc"), []byte{2, 0, 2, 0, 3, 1, 1, 2, 17}, uint8(1), uint8(0))
	f.Add([]byte("é\n\n😀\nx"), []byte{1, 1, 0, 2, 0, 0, 0, 3, 5}, uint8(2), uint8(7))
	f.Add([]byte("a\na\na\n"), []byte{2, 1, 0, 0, 1, 1}, uint8(0), uint8(31))
	f.Fuzz(func(t *testing.T, raw, plan []byte, which, change uint8) {
		text := fuzzText(raw)
		lines := splitLines(text)
		n := len(lines)
		type edit struct {
			kind        int // 0 before, 1 after, 2 lines
			first, last int // before first (after first - 1), or lines first..last
			text        string
		}
		var edits []edit
		minInsert, minReplace := 1, 1
		for i := 0; i+3 <= len(plan) && len(edits) < 32; i += 3 {
			op, x, y := plan[i], int(plan[i+1]), int(plan[i+2])
			lit := fuzzPool[x%len(fuzzPool)] + fuzzPool[y%len(fuzzPool)]
			if lit != "" && !strings.HasSuffix(lit, "\n") && y&0x40 == 0 {
				lit += "\n"
			}
			switch op % 3 {
			case 0, 1:
				if minInsert > n+1 {
					continue
				}
				k := minInsert + x%(n+2-minInsert)
				kind := 0
				if op%3 == 1 && k >= 2 {
					kind = 1 // after k - 1
				}
				edits = append(edits, edit{kind, k, k, lit})
				minInsert, minReplace = k+1, k
			case 2:
				if minReplace > n {
					continue
				}
				first := minReplace + x%(n+1-minReplace)
				last := first + y%(n-first+1)
				edits = append(edits, edit{2, first, last, lit})
				minInsert, minReplace = last+1, last+1
			}
		}
		// pos writes line k as a number, or as its anchor (when it names a
		// line), with the anchor of a position changed when k is bad.
		type posRef struct{ edit, k int }
		var positions []posRef // every position that names a line
		render := func(anchored bool, bad int) string {
			var list []string
			p := 0
			pos := func(i, k int) string {
				if !anchored || k > n {
					return strconv.Itoa(k)
				}
				a := refAnchor(lines[k-1], k)
				if p == bad {
					c := strings.IndexByte(selectorsAlphabet, a[len(a)-1-int(change)%2])
					b := []byte(a)
					b[len(b)-1-int(change)%2] = selectorsAlphabet[(c+1+int(change)%31)%32]
					a = string(b)
				}
				if bad < 0 {
					positions = append(positions, posRef{i, k})
				}
				p++
				return strconv.Quote(a)
			}
			for i, e := range edits {
				var s string
				switch e.kind {
				case 0:
					s = `{"before":` + pos(i, e.first)
				case 1:
					s = `{"after":` + pos(i, e.first-1)
				default:
					s = `{"lines":[` + pos(i, e.first) + `,` + pos(i, e.last) + `]`
				}
				list = append(list, s+`,"text":`+quote(t, e.text)+`}`)
			}
			return `{"path":"f.txt","content":{"$splice":{"result":"r1","edits":[` + strings.Join(list, ",") + `]}}}`
		}
		byNumbers := render(false, -1)
		byAnchors := render(true, -1)
		run := func(args string) (*Expanded, *errcode.Error) {
			return expandEdit(fuzzBriefing(t, text), jsonSub(args))
		}
		want, wantErr := run(byNumbers)
		got, err := run(byAnchors)
		if wantErr != nil {
			require.NotNil(t, err, "%s resolves, %s fails", byAnchors, byNumbers)
			assert.Equal(t, wantErr.Code, err.Code)
			assert.Equal(t, wantErr.At, err.At)
			require.NotNil(t, err.Cause)
			assert.Equal(t, wantErr.Cause.Code, err.Cause.Code, "%s", err.Cause.Msg)
		} else {
			require.Nil(t, err, "%s: %v", byAnchors, err)
			assert.Equal(t, string(want.Arguments), string(got.Arguments), "the same text by anchors as by numbers")
		}
		if len(positions) == 0 {
			return
		}
		bad := int(which) % len(positions)
		changed := render(true, bad)
		_, cerr := run(changed)
		require.NotNil(t, cerr, "a changed anchor character landed: %s", changed)
		require.Equal(t, errcode.UnresolvedEdit, cerr.Code)
		if err != nil && editIndex(*err.At) < positions[bad].edit {
			// The matching splice failed at an earlier edit: so does this one.
			assert.Equal(t, *err.At, *cerr.At)
			return
		}
		assert.Equal(t, "/content/$splice/edits/"+strconv.Itoa(positions[bad].edit), *cerr.At, "%s", cerr.Msg)
		assert.Equal(t, errcode.AnchorMismatch, cerr.Cause.Code, "%s", cerr.Cause.Msg)
	})
}

// selectorsAlphabet is the anchor alphabet, written out apart from the
// server's.
const selectorsAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// editIndex is the index of the edit that at names
// (/content/$splice/edits/N, or a part of its text under it).
func editIndex(at string) int {
	_, rest, _ := strings.Cut(at, "/edits/")
	num, _, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(num)
	if err != nil {
		panic("no edit in " + at)
	}
	return i
}
