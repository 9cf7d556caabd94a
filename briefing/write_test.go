package briefing

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
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
	"github.com/loom-results/loom-results/workspace"
)

// writeFiles are the files of a write_file test root; a.txt is r1 and
// nonl.txt r2 once writeBriefing inspects them.
var writeFiles = map[string]string{
	"a.txt":     "one\ntwo\nthree\n",
	"nonl.txt":  "x\ny",
	"ro.txt":    "read only\n",
	"dir/d.txt": "d\n",
}

// writeBriefing is a briefing over a temporary root holding writeFiles,
// with a.txt inspected as r1 and nonl.txt as r2; it returns the root's
// directory too.
func writeBriefing(t *testing.T, cfg limits.Config, policy Policy, steps limits.Steps) (*Briefing, string) {
	t.Helper()
	root, dir := testroot.Open(t, writeFiles, workspace.Open)
	require.NoError(t, os.Chmod(filepath.Join(dir, "ro.txt"), 0o444))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "link.txt")))
	b := New(Options{Limits: cfg, Policy: policy, Steps: steps, Root: root})
	t.Cleanup(b.Close)
	for _, e := range b.inspectPaths([]string{"a.txt", "nonl.txt"}) {
		require.Nil(t, e.Err)
	}
	return b, dir
}

func str(s string) *string { return &s }

func hexSum256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// readTree returns every regular file under dir and its contents.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	}))
	return out
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		req      WriteFileRequest
		path     string // the file written
		want     string // its bytes after the call
		base     string // "" for none
		diff     string
		resultID string
		reused   bool
	}{
		{"a splice defaults path and base", WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[2,2],"text":"TWO\n"}]}`)},
			"a.txt", "one\nTWO\nthree\n", "r1", "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n", "r3", false},
		{"the same path written otherwise still defaults the base",
			WriteFileRequest{Path: str("./dir/../a.txt"), Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"before":4,"text":"four"}]}`)},
			"a.txt", "one\ntwo\nthree\nfour", "r1", "@@ -3,1 +3,2 @@\n three\n+four\n\\ No newline at end of file\n", "r3", false},
		{"a splice to another path is a new file", WriteFileRequest{Path: str("new/b.txt"), Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`)},
			"new/b.txt", "one\ntwo\nthree\n", "", "@@ -0,0 +1,3 @@\n+one\n+two\n+three\n", "r3", false},
		{"a compose of a new file", WriteFileRequest{Path: str("c.txt"), Compose: rawOf[[]PartForm](`["x\n",{"result":"r2","lines":[2]}]`)},
			"c.txt", "x\ny", "", "@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n", "r3", false},
		{"text over a base", WriteFileRequest{Path: str("nonl.txt"), Text: str("x\ny\n"), Base: str("r2")},
			"nonl.txt", "x\ny\n", "r2", "@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n", "r3", false},
		{"an empty new file", WriteFileRequest{Path: str("empty"), Text: str("")}, "empty", "", "", "", "r3", false},
		{"an unchanged text is the retained result again", WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`)},
			"a.txt", "one\ntwo\nthree\n", "r1", "", "r1", true},
		{"a splice whose compose text reads another result",
			WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r2","edits":[{"lines":[1,1],"text":{"$compose":[{"result":"r1","lines":[3,3]}]}}]}`)},
			"nonl.txt", "three\ny", "r2", "@@ -1,2 +1,2 @@\n-x\n+three\n y\n\\ No newline at end of file\n", "r3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
			before := readTree(t, dir)
			w, err := writeFile(b, tt.req)
			require.Nil(t, err)
			after := readTree(t, dir)
			assert.Equal(t, tt.want, after[tt.path])
			delete(after, tt.path)
			delete(before, tt.path)
			assert.Equal(t, before, after, "no other file changed")
			assert.Equal(t, tt.path, w.Path)
			assert.Equal(t, int64(len(tt.want)), w.Bytes)
			assert.Equal(t, hexSum256(tt.want), w.SHA256)
			assert.Equal(t, tt.diff, w.Diff)
			if tt.base == "" {
				assert.Nil(t, w.Base)
			} else {
				require.NotNil(t, w.Base)
				assert.Equal(t, tt.base, *w.Base)
			}
			require.NotNil(t, w.Result.ID)
			assert.Equal(t, tt.resultID, *w.Result.ID)
			assert.Equal(t, tt.reused, *w.Result.Reused)
			assert.Equal(t, "file", w.Result.Source.Kind)
			assert.Equal(t, tt.path, *w.Result.Source.Path)
			assert.Equal(t, w.SHA256, w.Result.SHA256)
			assert.True(t, w.Result.Complete)
			// The retained result holds exactly the bytes on disk.
			sel, err := b.getRange(Ref{Result: tt.resultID}, nil, nil)
			require.Nil(t, err)
			assert.Equal(t, tt.want, sel.Text)
			assertNoTempFiles(t, dir)
		})
	}
}

// TestWriteFileText: the text content is the "wrote" line, then the diff,
// cut by whole lines at --preview-bytes with "… N more diff lines".
func TestWriteFileText(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PreviewBytes = 30
	b, _ := writeBriefing(t, cfg, Legacy, limits.ClientSteps)
	w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[1,3],"text":"1\n2\n3\n"}]}`)})
	require.Nil(t, err)
	// The diff is 42 bytes in 7 lines; 30 bytes do not hold even its
	// header with "… 6 more diff lines\n" (16 + 22), so the more line
	// stands alone.
	assert.Equal(t, "@@ -1,3 +1,3 @@\n-one\n-two\n-three\n+1\n+2\n+3\n", w.Diff)
	assert.Equal(t, "wrote a.txt: 6 bytes, 3 lines, sha256="+hexSum256("1\n2\n3\n")[:12]+" result=r3 base=r1\n"+
		"… 7 more diff lines\n", w.Text)

	cfg.PreviewBytes = 1024
	b, _ = writeBriefing(t, cfg, Legacy, limits.ClientSteps)
	w, err = writeFile(b, WriteFileRequest{Path: str("one"), Text: str("x")})
	require.Nil(t, err)
	assert.Equal(t, "wrote one: 1 bytes, 1 lines, sha256="+hexSum256("x")[:12]+" result=r3 base=none\n"+
		"@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n", w.Text)

	w, err = writeFile(b, WriteFileRequest{Path: str("new\nr9 file forged.go"), Text: str("")})
	require.Nil(t, err)
	assert.Equal(t, `wrote "new\nr9 file forged.go": 0 bytes, 0 lines, sha256=`+hexSum256("")[:12]+" result=r4 base=none\n", w.Text,
		"a path with a control character is quoted")
}

func TestCutDiff(t *testing.T) {
	t.Parallel()
	// 47 bytes in 11 lines; "… N more diff lines\n" is 22 bytes (23 for
	// N = 11).
	diff := "@@ -1,10 +0,0 @@\n" + strings.Repeat("-a\n", 10)
	for _, tt := range []struct {
		limit int64
		want  string
	}{
		{47, diff},
		{46, "@@ -1,10 +0,0 @@\n-a\n-a\n… 8 more diff lines\n"},
		{42, "@@ -1,10 +0,0 @@\n-a\n… 9 more diff lines\n"},
		{41, "@@ -1,10 +0,0 @@\n… 10 more diff lines\n"},
		{40, "@@ -1,10 +0,0 @@\n… 10 more diff lines\n"},
		{39, "… 11 more diff lines\n"},
		{0, "… 11 more diff lines\n"},
	} {
		assert.Equal(t, tt.want, cutDiff(diff, tt.limit), "limit %d", tt.limit)
	}
}

// TestWriteFileNextEdit: the written text is retained, so the next edit
// splices it with its new line numbers, and the file changed behind the
// server's back is a conflict until it is inspected again.
func TestWriteFileNextEdit(t *testing.T) {
	t.Parallel()
	b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
	w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"before":1,"text":"zero\n"}]}`)})
	require.Nil(t, err)
	require.Equal(t, "r3", *w.Result.ID)
	w, err = writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r3","edits":[{"lines":[4,4],"text":"THREE\n"}]}`)})
	require.Nil(t, err)
	assert.Equal(t, "r4", *w.Result.ID)
	assert.Equal(t, "r3", *w.Base)
	assert.Equal(t, "zero\none\ntwo\nTHREE\n", readTree(t, dir)["a.txt"])

	// Behind its back: same size, other bytes.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("ZERO\none\ntwo\nTHREE\n"), 0o644))
	_, err = writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r4","edits":[{"lines":[1,1],"text":"0\n"}]}`)})
	require.NotNil(t, err)
	assert.Equal(t, errcode.Conflict, err.Code)
	assert.Equal(t, errcode.Details{File: &errcode.File{Path: "a.txt", SHA256: new(hexSum256("ZERO\none\ntwo\nTHREE\n")),
		Current: new("r5"), Diff: new("@@ -1,2 +1,2 @@\n-zero\n+ZERO\n one\n")}, Size: new(int64(19))}, err.Details)
	assert.Equal(t, `file "a.txt" changed since r4 was read (19 -> 19 bytes, sha256=`+hexSum256("zero\none\ntwo\nTHREE\n")[:12]+
		` -> `+hexSum256("ZERO\none\ntwo\nTHREE\n")[:12]+`); its current text is r5: make the edit on r5`, err.Msg)
	assert.False(t, b.Budget().Refused, "a conflict does not refuse the step")

	e := b.inspectPaths([]string{"a.txt"})[0]
	require.Nil(t, e.Err)
	w, err = writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"` + *e.Descriptor.ID + `","edits":[{"lines":[1,1],"text":"0\n"}]}`)})
	require.Nil(t, err)
	assert.Equal(t, *e.Descriptor.ID, *w.Base, "the inspected result is the base")
	assert.Equal(t, "0\none\ntwo\nTHREE\n", readTree(t, dir)["a.txt"])
}

// TestWriteFileKeepsFile: an unchanged text is not written at all, and a
// written file keeps its permission bits.
func TestWriteFileKeepsFile(t *testing.T) {
	t.Parallel()
	b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
	p := filepath.Join(dir, "a.txt")
	require.NoError(t, os.Chmod(p, 0o600))
	before, err := os.Stat(p)
	require.NoError(t, err)
	_, werr := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`)})
	require.Nil(t, werr)
	after, err := os.Stat(p)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "not replaced")

	_, werr = writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[1,1],"text":""}]}`)})
	require.Nil(t, werr)
	after, err = os.Stat(p)
	require.NoError(t, err)
	assert.False(t, os.SameFile(before, after), "replaced by a rename")
	assert.Equal(t, os.FileMode(0o600), after.Mode().Perm())
}

func TestWriteFileErrors(t *testing.T) {
	t.Parallel()
	ia, ur := errcode.InvalidArgument, errcode.UnresolvedEdit
	splice := func(s string) WriteFileRequest { return WriteFileRequest{Splice: rawOf[SpliceForm](s)} }
	tests := []struct {
		name    string
		req     WriteFileRequest
		code    errcode.Code
		details *errcode.Details // the whole details, when given
		at      string           // for unresolved_edit
		cause   errcode.Code
		msg     string // a part of the message (the cause's for unresolved_edit)
		refused bool
	}{
		// The arguments.
		{name: "none of text, compose, splice", req: WriteFileRequest{Path: str("a.txt")}, code: ia,
			msg: "give exactly one of text (the whole new text), compose (parts) or splice (line edits of a result); 0 given"},
		{name: "two of them", req: WriteFileRequest{Path: str("a.txt"), Text: str("x"), Compose: rawOf[[]PartForm](`[]`)}, code: ia, msg: "; 2 given"},
		{name: "text without path", req: WriteFileRequest{Text: str("x")}, code: ia, msg: "path is required with text or compose"},
		{name: "compose without path", req: WriteFileRequest{Compose: rawOf[[]PartForm](`[]`)}, code: ia, msg: "path is required"},

		// The resolution: unresolved_edit at the argument's pointers, refusing the step.
		{name: "a compose part", req: WriteFileRequest{Path: str("a.txt"), Compose: rawOf[[]PartForm](`["x",{"result":"r9"}]`)}, code: ur,
			at: "/compose/1", cause: errcode.UnknownResult, refused: true},
		{name: "a literal part not UTF-8", req: WriteFileRequest{Path: str("a.txt"), Compose: rawOf[[]PartForm]("[\"\xff\"]")}, code: ur,
			at: "/compose/0", cause: errcode.NotUTF8, refused: true},
		{name: "an unknown splice member", req: splice(`{"result":"r1","edits":[],"x":1}`), code: ur, at: "/splice", cause: ia, refused: true},
		{name: "a splice without edits", req: splice(`{"result":"r1"}`), code: ur, at: "/splice", cause: ia, refused: true},
		{name: "an edit out of order", req: splice(`{"result":"r1","edits":[{"lines":[2,2],"text":""},{"lines":[1,1],"text":""}]}`), code: ur,
			at: "/splice/edits/1", cause: errcode.InvalidRange, refused: true},
		{name: "the newline rule", req: splice(`{"result":"r1","edits":[{"lines":[1,1],"text":"ONE"}]}`), code: ur,
			at: "/splice/edits/0", cause: ia, msg: `text does not end with "\n": it would join line 2`, refused: true},
		{name: "a compose text's part", req: splice(`{"result":"r1","edits":[{"lines":[1,1],"text":{"$compose":["a\n",{"result":"r1","lines":[9,9]}]}}]}`),
			code: ur, at: "/splice/edits/0/text/$compose/1", cause: errcode.InvalidRange, refused: true},
		{name: "the resolution before the path", req: WriteFileRequest{Path: str("../out"), Compose: rawOf[[]PartForm](`[{"result":"r9"}]`)},
			code: ur, at: "/compose/0", cause: errcode.UnknownResult, refused: true},

		// The path.
		{name: "outside the root", req: WriteFileRequest{Path: str("../x.txt"), Text: str("x")}, code: errcode.PathOutsideRoot},
		{name: "a symbolic link", req: WriteFileRequest{Path: str("link.txt"), Text: str("x"), Base: str("r1")}, code: errcode.NotRegularFile,
			msg: `"link.txt" is a symbolic link to "a.txt"; write_file does not write through links: write "a.txt" itself, with its result as base`},
		{name: "a directory", req: WriteFileRequest{Path: str("dir"), Text: str("x")}, code: errcode.NotRegularFile},
		{name: "read-only", req: WriteFileRequest{Path: str("ro.txt"), Text: str("x")}, code: errcode.Unwritable, msg: "read-only (mode 0444)"},
		{name: "a parent that is a file", req: WriteFileRequest{Path: str("a.txt/x"), Text: str("x")}, code: errcode.Unwritable,
			msg: "a parent is not a directory"},
		{name: "the path before the base", req: WriteFileRequest{Path: str("../x"), Text: str("x"), Base: str("r9")}, code: errcode.PathOutsideRoot},
		{name: "no path to default to", req: splice(`{"result":"r3","edits":[]}`), code: ia, msg: "path is required: r3 has no source path"},

		// The base.
		{name: "an unknown base", req: WriteFileRequest{Path: str("a.txt"), Text: str("x"), Base: str("r9")}, code: errcode.UnknownResult},

		// The conflict check.
		{name: "no base over an existing file", req: WriteFileRequest{Path: str("a.txt"), Text: str("x")}, code: errcode.Conflict,
			details: &errcode.Details{File: &errcode.File{Path: "a.txt", SHA256: new(hexSum256("one\ntwo\nthree\n")), Current: new("r1")}, Size: new(int64(14))},
			msg:     `file "a.txt" exists (14 bytes) and write_file never overwrites text you have not seen; its current text is r1`},
		{name: "a base of another file's size", req: WriteFileRequest{Path: str("dir/d.txt"), Text: str("x"), Base: str("r1")}, code: errcode.Conflict,
			details: &errcode.Details{File: &errcode.File{Path: "dir/d.txt", SHA256: new(hexSum256("d\n")), Current: new("r4"),
				Diff: new("@@ -1,3 +1,1 @@\n-one\n-two\n-three\n+d\n")}, Size: new(int64(2))},
			msg: `file "dir/d.txt" does not hold r1's text (14 -> 2 bytes); its current text is r4: make the edit on r4`},
		{name: "a base whose file is gone", req: WriteFileRequest{Path: str("gone.txt"), Text: str("x"), Base: str("r1")}, code: errcode.Conflict,
			details: &errcode.Details{File: &errcode.File{Path: "gone.txt"}}, // size, sha256, current and diff null
			msg:     `file "gone.txt" does not exist, so it does not hold r1's text; write it with text or compose and no base to create it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
			// r3: an output, which has no source path.
			_, oerr := b.retainOutput(Output{Label: "x", Text: "out\n"})
			require.Nil(t, oerr)
			before := readTree(t, dir)
			w, err := writeFile(b, tt.req)
			assert.Nil(t, w)
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code, err.Error())
			msg := err.Msg
			if tt.code == errcode.UnresolvedEdit {
				at, cause := unresolved(t, err)
				assert.Equal(t, tt.at, at)
				assert.Equal(t, tt.cause, cause.Code, cause.Error())
				msg = cause.Msg
			}
			if tt.details != nil {
				assert.Equal(t, *tt.details, err.Details)
			}
			assert.Contains(t, msg, tt.msg)
			assert.Equal(t, tt.refused, b.Budget().Refused, "only unresolved_edit refuses the step")
			assert.Equal(t, int64(0), b.Budget().ExpandBytesUsed)
			assert.Equal(t, before, readTree(t, dir), "nothing is written")
			assertNoTempFiles(t, dir)
			if tt.refused {
				_, err := writeFile(b, WriteFileRequest{Path: str("fresh.txt"), Text: str("x")})
				require.NotNil(t, err)
				assert.Equal(t, errcode.StepRefused, err.Code)
			}
		})
	}
}

// TestWriteFileBudget: compose and splice count their text against
// --max-expand-bytes (failing with expansion_too_large, which refuses
// nothing); text counts nothing; a refused step answers step_refused
// before the arguments.
func TestWriteFileBudget(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxExpandBytes = 20
	b, dir := writeBriefing(t, cfg, Legacy, limits.ClientSteps)
	w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`), Path: str("b.txt")})
	require.Nil(t, err)
	assert.Equal(t, int64(14), w.Budget.ExpandBytesUsed)
	_, err = writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`), Path: str("c.txt")})
	require.NotNil(t, err)
	assert.Equal(t, errcode.ExpansionTooLarge, err.Code)
	assert.Equal(t, errcode.Details{Size: new(int64(14)), Limit: new(int64(20))}, err.Details)
	assert.False(t, b.Budget().Refused)
	assert.NotContains(t, readTree(t, dir), "c.txt")
	w, err = writeFile(b, WriteFileRequest{Text: str(strings.Repeat("x", 100)), Path: str("c.txt")})
	require.Nil(t, err, "text is not an expansion")
	assert.Equal(t, int64(14), w.Budget.ExpandBytesUsed)

	b.budget.Refuse()
	_, err = writeFile(b, WriteFileRequest{})
	require.NotNil(t, err)
	assert.Equal(t, errcode.StepRefused, err.Code, "a refused step comes before the arguments")
}

// TestWriteFileStore: bounded context refuses a write that the full store
// could not retain, before writing; legacy context writes and answers a
// descriptor without an ID.
func TestWriteFileStore(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 2
	b, dir := writeBriefing(t, cfg, Bounded, limits.ClientSteps)
	_, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"before":1,"text":"0\n"}]}`)})
	require.NotNil(t, err)
	assert.Equal(t, errcode.StoreFull, err.Code)
	assert.Equal(t, "one\ntwo\nthree\n", readTree(t, dir)["a.txt"])
	_, err = writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`)})
	require.Nil(t, err, "an identical text is reused, so it fits")

	b, dir = writeBriefing(t, cfg, Legacy, limits.ClientSteps)
	w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"before":1,"text":"0\n"}]}`)})
	require.Nil(t, err)
	assert.Nil(t, w.Result.ID)
	assert.Equal(t, "store_full", w.Result.Reason)
	assert.Contains(t, w.Text, " result=null base=r1\n")
	assert.Equal(t, "0\none\ntwo\nthree\n", readTree(t, dir)["a.txt"])
}

// TestWriteFileModelSteps: with --steps model, an unresolved edit's
// message says the step is refused and to call begin_step.
func TestWriteFileModelSteps(t *testing.T) {
	t.Parallel()
	for _, steps := range []limits.Steps{limits.ClientSteps, limits.ModelSteps} {
		b, _ := writeBriefing(t, limits.Defaults(), Legacy, steps)
		_, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r9","edits":[]}`)})
		require.NotNil(t, err)
		said := strings.Contains(err.Msg, "the step is now refused: call begin_step to start a new step, then send the corrected edit")
		assert.Equal(t, steps == limits.ModelSteps, said, "%s: %s", steps, err.Msg)
		_, err = writeFile(b, WriteFileRequest{Path: str("x"), Text: str("")})
		require.NotNil(t, err)
		assert.Equal(t, errcode.StepRefused, err.Code)
		assert.Equal(t, steps == limits.ModelSteps, strings.Contains(err.Msg, "then repeat this call"), err.Msg)
	}
}

// TestWriteFileRandomSplices: for random files and random splices, each
// applied to the result the previous write retained, the file on disk is
// exactly the expansion and the new result's digest is the file's.
func TestWriteFileRandomSplices(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	pool := []string{"a", "b", "é", "\t", "  x := 1", "}", "€€", "\r"}
	line := func() string { return pool[rng.IntN(len(pool))] + pool[rng.IntN(len(pool))] + "\n" }
	for round := range 40 {
		dir := t.TempDir()
		var text strings.Builder
		for range rng.IntN(30) {
			text.WriteString(line())
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte(text.String()), 0o644))
		root, err := workspace.Open(dir)
		require.NoError(t, err)
		b := New(Options{Limits: limits.Defaults(), Root: root})
		e := b.inspectPaths([]string{"f.txt"})[0]
		require.Nil(t, e.Err)
		id, current := *e.Descriptor.ID, text.String()
		for step := range 5 {
			lines := strings.SplitAfter(current, "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			n := len(lines)
			var edits []string
			var want strings.Builder
			pos := 1 // the next stored line not yet copied
			for pos <= n+1 && rng.IntN(3) > 0 {
				from := pos + rng.IntN(n+2-pos)
				var body strings.Builder
				for range rng.IntN(3) {
					body.WriteString(line())
				}
				want.WriteString(strings.Join(lines[pos-1:from-1], ""))
				want.WriteString(body.String())
				q, _ := json.Marshal(body.String())
				if rng.IntN(2) == 0 || from > n {
					edits = append(edits, `{"before":`+strconv.Itoa(from)+`,"text":`+string(q)+`}`)
					pos = from + 1
					if from > n {
						pos = n + 2
					} else {
						want.WriteString(lines[from-1])
					}
				} else {
					to := from + rng.IntN(n-from+1)
					edits = append(edits, `{"lines":[`+strconv.Itoa(from)+`,`+strconv.Itoa(to)+`],"text":`+string(q)+`}`)
					pos = to + 1
				}
			}
			if pos <= n {
				want.WriteString(strings.Join(lines[pos-1:], ""))
			}
			w, werr := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"` + id + `","edits":[` + strings.Join(edits, ",") + `]}`)})
			require.Nil(t, werr, "round %d step %d: %v", round, step, edits)
			disk := readTree(t, dir)["f.txt"]
			require.Equal(t, want.String(), disk, "round %d step %d: %v", round, step, edits)
			require.Equal(t, hexSum256(disk), w.SHA256)
			require.Equal(t, hexSum256(disk), w.Result.SHA256)
			id, current = *w.Result.ID, disk
		}
		b.Close()
		root.Close()
		assertNoTempFiles(t, dir)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	for name := range readTree(t, dir) {
		if m, _ := filepath.Match(".loom-*.tmp", filepath.Base(name)); m {
			t.Errorf("temporary file left: %s", name)
		}
	}
}
