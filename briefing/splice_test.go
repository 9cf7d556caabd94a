package briefing

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// spliceRuleFiles are the files of TestSpliceRules, inspected as r1 to r7
// in this order.
var spliceRuleFiles = []struct{ name, body string }{
	{"lf.txt", "one\ntwo\nthree\n"}, // r1
	{"crlf.txt", "a\r\nb\r\nc\r\n"}, // r2: CRLF
	{"crlfnonl.txt", "a\r\nb"},      // r3: CRLF, no final newline
	{"nonl.txt", "x\ny"},            // r4: no final newline
	{"mixed.txt", "a\r\nb\nc\r\n"},  // r5: mixed endings, not CRLF
	{"lone.txt", "a\rb\r\n"},        // r6: a lone '\r' in a line: CRLF
	{"yaml.txt", "k: v\n2: two\n"},  // r7: a line that truly begins "2: "
}

// spliceRuleBriefing inspects spliceRuleFiles as r1 to r7 and returns the
// briefing and its root's directory.
func spliceRuleBriefing(t *testing.T) (*Briefing, string) {
	t.Helper()
	files := map[string]string{}
	var names []string
	for _, f := range spliceRuleFiles {
		files[f.name] = f.body
		names = append(names, f.name)
	}
	root, dir := testroot.Open(t, files, workspace.Open)
	b := New(Options{Limits: limits.Defaults(), Policy: Legacy, Root: root})
	t.Cleanup(b.Close)
	for i, e := range b.inspectPaths(names) {
		require.Nil(t, e.Err)
		require.Equal(t, "r"+strconv.Itoa(i+1), *e.Descriptor.ID)
	}
	return b, dir
}

// TestSpliceRules checks the three rules of SPEC 5.2 that keep a splice
// from changing what was not meant to change (a CRLF result's line
// endings, a last line without a final newline, line numbers copied from
// find or get_lines), around the newline rule and in their order, through
// both callers of the one resolver: expand_edit and write_file.
func TestSpliceRules(t *testing.T) {
	t.Parallel()
	const (
		continues2 = `text would continue line 2, which has no final newline: start the text with "\n", or replace line 2`
		numbered2  = `text begins with "2: ", a line number as find and get_lines show it; send the line without it`
	)
	tests := []struct {
		name, result, edits string
		want                string // the spliced text, when it resolves
		at                  int    // else the failing edit
		msg                 string // and its cause's message (invalid_argument)
	}{
		// 1. Line endings: on a CRLF result, a '\n' not after '\r' is "\r\n".
		{name: "crlf: a bare newline is taken as CRLF", result: "r2", edits: `[{"lines":[2,2],"text":"B\n"}]`, want: "a\r\nB\r\nc\r\n"},
		{name: "crlf: a CRLF text stays", result: "r2", edits: `[{"lines":[2,2],"text":"B\r\n"}]`, want: "a\r\nB\r\nc\r\n"},
		{name: "crlf: mixed endings in the text", result: "r2", edits: `[{"before":1,"text":"x\ny\r\nz\n"}]`,
			want: "x\r\ny\r\nz\r\na\r\nb\r\nc\r\n"},
		{name: "crlf: a lone CR stays", result: "r2", edits: `[{"lines":[1,1],"text":"p\rq\n"}]`, want: "p\rq\r\nb\r\nc\r\n"},
		{name: "crlf: empty lines", result: "r2", edits: `[{"lines":[1,1],"text":"\n\n"}]`, want: "\r\n\r\nb\r\nc\r\n"},
		{name: "crlf: a composed text is judged joined", result: "r2", edits: `[{"lines":[1,1],"text":{"$compose":["A\r","\nB\n"]}}]`,
			want: "A\r\nB\r\nb\r\nc\r\n"},
		{name: "crlf: stored LF lines composed in", result: "r2", edits: `[{"before":4,"text":{"$compose":[{"result":"r1","lines":[1,2]}]}}]`,
			want: "a\r\nb\r\nc\r\none\r\ntwo\r\n"},
		{name: "crlf: before the newline rule, which sees the converted text", result: "r3",
			edits: `[{"lines":[2,2],"text":"B\n"},{"before":3,"text":"c"}]`, want: "a\r\nB\r\nc"},
		{name: "crlf: a lone CR in a line does not make it LF", result: "r6", edits: `[{"before":2,"text":"c\n"}]`, want: "a\rb\r\nc\r\n"},
		{name: "lf: the text as given", result: "r1", edits: `[{"lines":[2,2],"text":"T\r\n"}]`, want: "one\nT\r\nthree\n"},
		{name: "mixed: the text as given", result: "r5", edits: `[{"before":1,"text":"z\n"}]`, want: "z\na\r\nb\nc\r\n"},

		// 2. The last line: an append must not continue a last line that
		// has no final newline.
		{name: "last line: an append that starts with a newline", result: "r4", edits: `[{"before":3,"text":"\nz\n"}]`, want: "x\ny\nz\n"},
		{name: "last line: an append that starts with a newline, without one at its end", result: "r4", edits: `[{"before":3,"text":"\nz"}]`, want: "x\ny\nz"},
		{name: "last line: an append that starts with CRLF", result: "r4", edits: `[{"before":3,"text":"\r\nz"}]`, want: "x\ny\r\nz"},
		{name: "last line: an append after the last line is replaced", result: "r4",
			edits: `[{"lines":[2,2],"text":"Y\n"},{"before":3,"text":"z"}]`, want: "x\nY\nz"},
		{name: "last line: an empty append", result: "r4", edits: `[{"before":3,"text":""}]`, want: "x\ny"},
		{name: "last line: an insertion before it", result: "r4", edits: `[{"before":2,"text":"w\n"}]`, want: "x\nw\ny"},
		{name: "last line: a CRLF result, a newline converted first", result: "r3", edits: `[{"before":3,"text":"\nc"}]`, want: "a\r\nb\r\nc"},
		{name: "last line: a result with a final newline", result: "r1", edits: `[{"before":4,"text":"four"}]`, want: "one\ntwo\nthree\nfour"},
		{name: "last line: continues", result: "r4", edits: `[{"before":3,"text":"z\n"}]`, msg: continues2},
		{name: "last line: continues, the last edit without a newline", result: "r4", edits: `[{"before":3,"text":"z"}]`, msg: continues2},
		{name: "last line: a lone CR does not start a line", result: "r4", edits: `[{"before":3,"text":"\rz"}]`, msg: continues2},
		{name: "last line: on a CRLF result", result: "r3", edits: `[{"before":3,"text":"c\n"}]`, msg: continues2},
		{name: "last line: an earlier edit that keeps the last line", result: "r4",
			edits: `[{"lines":[1,1],"text":"X\n"},{"before":3,"text":"z"}]`, at: 1, msg: continues2},
		{name: "last line: after the newline rule", result: "r4", edits: `[{"before":3,"text":"z"},{"before":3,"text":"w"}]`,
			msg: `text does not end with "\n": it would join line 3`},
		{name: "last line: a composed text", result: "r4", edits: `[{"before":3,"text":{"$compose":["", {"result":"r1","lines":[1,1]}]}}]`, msg: continues2},

		// 3. Copied line numbers: a text that begins with the edit's own
		// first line number and ": ".
		{name: "numbers: a replacement", result: "r1", edits: `[{"lines":[2,3],"text":"2: two\n"}]`, msg: numbered2},
		{name: "numbers: an insertion", result: "r1", edits: `[{"before":3,"text":"3: x\n"}]`,
			msg: `text begins with "3: ", a line number as find and get_lines show it; send the line without it`},
		{name: "numbers: across the parts of a composed text", result: "r1", edits: `[{"lines":[2,2],"text":{"$compose":["2",": two\n"]}}]`, msg: numbered2},
		{name: "numbers: on a CRLF result", result: "r2", edits: `[{"lines":[2,2],"text":"2: b\n"}]`, msg: numbered2},
		{name: "numbers: at a later edit", result: "r1", edits: `[{"lines":[1,1],"text":"ONE\n"},{"lines":[2,2],"text":"2: two\n"}]`, at: 1, msg: numbered2},
		{name: "numbers: before a later edit is read", result: "r1", edits: `[{"lines":[2,2],"text":"2: two\n"},{"x":1}]`, msg: numbered2},
		{name: "numbers: after the newline rule", result: "r1", edits: `[{"lines":[2,2],"text":"2: two"}]`,
			msg: `text does not end with "\n": it would join line 3`},
		{name: "numbers: after the last-line rule", result: "r4", edits: `[{"before":3,"text":"3: z"}]`, msg: continues2},
		{name: "numbers: another line's number", result: "r1", edits: `[{"lines":[2,2],"text":"1: x\n"}]`, want: "one\n1: x\nthree\n"},
		{name: "numbers: a longer number", result: "r1", edits: `[{"before":1,"text":"12: x\n"}]`, want: "12: x\none\ntwo\nthree\n"},
		{name: "numbers: without the space", result: "r1", edits: `[{"lines":[2,2],"text":"2:x\n"}]`, want: "one\n2:x\nthree\n"},
		{name: "numbers: a YAML key, written with the line before", result: "r7",
			edits: `[{"lines":[1,2],"text":"k: w\n2: 2\n"}]`, want: "k: w\n2: 2\n"},
	}
	for _, tt := range tests {
		body := `{"result":"` + tt.result + `","edits":` + tt.edits + `}`
		t.Run("expand_edit "+tt.name, func(t *testing.T) {
			t.Parallel()
			b, _ := spliceRuleBriefing(t)
			got, err := expandEdit(b, jsonSub(`{"content":{"$splice":`+body+`}}`))
			if tt.msg != "" {
				requireSpliceCause(t, err, "/content/$splice/edits/"+strconv.Itoa(tt.at), tt.msg)
				assert.Nil(t, got)
				return
			}
			require.Nil(t, err)
			require.Len(t, got.Expansions, 1)
			assert.Equal(t, int64(len(tt.want)), got.Expansions[0].Bytes, "measured as converted")
			assert.Equal(t, int64(len(tt.want)), got.Budget.ExpandBytesUsed)
			assert.Equal(t, hexSum(tt.want), got.Expansions[0].SHA256)
			var args struct{ Content string }
			require.NoError(t, json.Unmarshal(got.Arguments, &args))
			assert.Equal(t, tt.want, args.Content)
			r1, rerr := b.store.Get("r1")
			require.Nil(t, rerr)
			assert.Equal(t, spliceRuleFiles[0].body, string(r1.Text.Data), "a stored text composed in is never changed")
		})
		t.Run("write_file "+tt.name, func(t *testing.T) {
			t.Parallel()
			b, dir := spliceRuleBriefing(t)
			n, _ := strconv.Atoi(tt.result[1:])
			file := spliceRuleFiles[n-1]
			w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](body)})
			on, rerr := os.ReadFile(filepath.Join(dir, file.name))
			require.NoError(t, rerr)
			if tt.msg != "" {
				requireSpliceCause(t, err, "/splice/edits/"+strconv.Itoa(tt.at), tt.msg)
				assert.Nil(t, w)
				assert.Equal(t, file.body, string(on), "nothing is written")
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.want, string(on))
			assert.Equal(t, int64(len(tt.want)), w.Bytes)
			assert.Equal(t, hexSum(tt.want), w.SHA256)
		})
	}
}

// requireSpliceCause checks that err is unresolved_edit at at, refusing
// the step, with cause invalid_argument and message msg.
func requireSpliceCause(t *testing.T, err *errcode.Error, at, msg string) {
	t.Helper()
	gotAt, cause := unresolved(t, err)
	assert.Equal(t, at, gotAt)
	assert.Equal(t, errcode.InvalidArgument, cause.Code)
	assert.Equal(t, msg, cause.Msg)
	assert.Equal(t, "edit part at "+strconv.Quote(at)+" does not resolve: error invalid_argument: "+msg, err.Msg)
}
