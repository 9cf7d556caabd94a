package briefing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

// TestWriteFileConflict: a conflict retains the file's current text as
// inspect would (reused when unchanged) and answers with its ID, the diff
// from the base, and a message that says to make the edit on it; the text
// content is the error line followed by that diff, cut as the write's
// diff is cut (SPEC section 9). When the current text cannot be retained,
// current and diff are null and the message says why.
func TestWriteFileConflict(t *testing.T) {
	t.Parallel()
	const a = "one\ntwo\nthree\n" // r1
	spliceR1 := WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[1,1],"text":"1\n"}]}`)}
	many := strings.Repeat("x\n", 20)
	tests := []struct {
		name    string
		cfg     func(*limits.Config)
		policy  Policy
		before  func(t *testing.T, b *Briefing, dir string) // changes behind the server's back
		req     WriteFileRequest
		msg     string
		size    *int64
		sha256  *string // nil: null
		current *string // nil: null
		diff    *string // nil: null
		text    string  // the text content
		results int     // results retained afterwards
	}{
		{
			name:   "same size, other bytes",
			before: rewrite("a.txt", "ONE\ntwo\nthree\n"), req: spliceR1,
			msg: `file "a.txt" changed since r1 was read (14 -> 14 bytes, sha256=` + hexSum256(a)[:12] + ` -> ` +
				hexSum256("ONE\ntwo\nthree\n")[:12] + `); its current text is r3: make the edit on r3`,
			size: new(int64(14)), sha256: new(hexSum256("ONE\ntwo\nthree\n")), current: new("r3"),
			diff: new("@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"), results: 3,
		},
		{
			name:   "grown",
			before: rewrite("a.txt", a+"four\n"), req: spliceR1,
			msg:  `file "a.txt" changed since r1 was read (14 -> 19 bytes); its current text is r3: make the edit on r3`,
			size: new(int64(19)), sha256: new(hexSum256(a + "four\n")), current: new("r3"),
			diff: new("@@ -3,1 +3,2 @@\n three\n+four\n"), results: 3,
		},
		{
			name: "the current text reused",
			before: func(t *testing.T, b *Briefing, _ string) {
				_, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[2,2],"text":"2\n"}]}`)})
				require.Nil(t, err) // the write retains r3
			},
			req:  spliceR1,
			msg:  `file "a.txt" changed since r1 was read (14 -> 12 bytes); its current text is r3: make the edit on r3`,
			size: new(int64(12)), sha256: new(hexSum256("one\n2\nthree\n")), current: new("r3"),
			diff: new("@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"), results: 3,
		},
		{
			name: "no base over a file inspected already",
			req:  WriteFileRequest{Path: str("a.txt"), Text: str("x")},
			msg: `file "a.txt" exists (14 bytes) and write_file never overwrites text you have not seen; ` +
				`its current text is r1: make the edit on r1, with base r1`,
			size: new(int64(14)), sha256: new(hexSum256(a)), current: new("r1"), results: 2,
		},
		{
			name: "no base over a file never inspected",
			req:  WriteFileRequest{Path: str("dir/d.txt"), Text: str("x")},
			msg: `file "dir/d.txt" exists (2 bytes) and write_file never overwrites text you have not seen; ` +
				`its current text is r3: make the edit on r3, with base r3`,
			size: new(int64(2)), sha256: new(hexSum256("d\n")), current: new("r3"), results: 3,
		},
		{
			name: "a base read from another file",
			req:  WriteFileRequest{Path: str("dir/d.txt"), Text: str("x"), Base: str("r1")},
			msg:  `file "dir/d.txt" does not hold r1's text (14 -> 2 bytes); its current text is r3: make the edit on r3`,
			size: new(int64(2)), sha256: new(hexSum256("d\n")), current: new("r3"),
			diff: new("@@ -1,3 +1,1 @@\n-one\n-two\n-three\n+d\n"), results: 3,
		},
		{
			name:   "the diff cut to --preview-bytes",
			cfg:    func(c *limits.Config) { c.PreviewBytes = 60 },
			before: rewrite("a.txt", many), req: spliceR1,
			msg:  `file "a.txt" changed since r1 was read (14 -> 40 bytes); its current text is r3: make the edit on r3`,
			size: new(int64(40)), sha256: new(hexSum256(many)), current: new("r3"),
			diff: new("@@ -1,3 +1,20 @@\n-one\n-two\n-three\n" + strings.Repeat("+x\n", 20)),
			text: "@@ -1,3 +1,20 @@\n-one\n-two\n-three\n+x\n… 19 more diff lines\n", results: 3,
		},
		{
			name:   "grown past --max-result-bytes",
			cfg:    func(c *limits.Config) { c.MaxResultBytes = 20 },
			before: rewrite("a.txt", many), req: spliceR1,
			msg: `file "a.txt" changed since r1 was read (14 -> 40 bytes); its current text cannot be retained ` +
				`(error too_large: file "a.txt" is 40 bytes, over the limit of 20 bytes (--max-result-bytes, which the person who starts the server sets: ask them to raise it, or read a smaller file))`,
			size: new(int64(40)), results: 2,
		},
		{
			name:   "no longer UTF-8",
			before: rewrite("a.txt", "one\ntwo\nthre\xff\n"), req: spliceR1,
			msg: `file "a.txt" changed since r1 was read (14 -> 14 bytes, sha256=` + hexSum256(a)[:12] + ` -> ` +
				hexSum256("one\ntwo\nthre\xff\n")[:12] + `); its current text cannot be retained (error not_utf8: file "a.txt" is not UTF-8 text (invalid UTF-8 at byte 12): a binary file, or text in another encoding; only UTF-8 text is read, so read another file)`,
			size: new(int64(14)), sha256: new(hexSum256("one\ntwo\nthre\xff\n")), results: 2,
		},
		{
			name: "missing",
			before: func(t *testing.T, _ *Briefing, dir string) {
				require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
			},
			req:     spliceR1,
			msg:     `file "a.txt" no longer exists, but r1 was read from it; write it with text or compose and no base to create it again (a splice always has a base)`,
			results: 2,
		},
		{
			name:   "a full store, legacy",
			cfg:    func(c *limits.Config) { c.MaxResults = 2 },
			before: rewrite("a.txt", a+"four\n"), req: WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`)},
			msg:  `file "a.txt" changed since r1 was read (14 -> 19 bytes); its current text cannot be retained (the store is full)`,
			size: new(int64(19)), results: 2,
		},
		{
			name:   "a full store, bounded",
			cfg:    func(c *limits.Config) { c.MaxResults = 2 },
			policy: Bounded,
			before: rewrite("a.txt", a+"four\n"), req: WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[]}`)},
			msg: `file "a.txt" changed since r1 was read (14 -> 19 bytes); its current text cannot be retained ` +
				`(error store_full: a 19-byte result does not fit: the store holds 2 of 2 results and 17 of 67108864 bytes (at most 16777216 a result); the results it holds stay readable by their IDs, and only the person who starts the server can raise --max-results or --max-store-bytes)`,
			size: new(int64(19)), results: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			policy := tt.policy
			if policy == "" {
				policy = Legacy
			}
			b, dir := writeBriefing(t, cfg, policy, limits.ClientSteps)
			if tt.before != nil {
				tt.before(t, b, dir)
			}
			files := readTree(t, dir)
			w, err := writeFile(b, tt.req)
			assert.Nil(t, w)
			require.NotNil(t, err)
			assert.Equal(t, errcode.Conflict, err.Code)
			assert.Equal(t, tt.msg, err.Msg)
			path := "a.txt"
			if tt.req.Path != nil {
				path = *tt.req.Path
			}
			assert.Equal(t, errcode.Details{File: &errcode.File{Path: path, SHA256: tt.sha256, Current: tt.current, Diff: tt.diff}, Size: tt.size}, err.Details)
			wantText := "error conflict: " + tt.msg
			switch {
			case tt.text != "":
				wantText += "\n" + tt.text
			case tt.diff != nil:
				wantText += "\n" + *tt.diff
			}
			assert.Equal(t, wantText, err.Text())
			assert.Equal(t, files, readTree(t, dir), "nothing is written")
			assert.Equal(t, tt.results, b.store.Len())
			assert.False(t, b.Budget().Refused, "a conflict refuses nothing")
			if tt.current == nil {
				return
			}
			cur, gerr := b.store.Get(*tt.current)
			require.Nil(t, gerr)
			assert.Equal(t, files[path], string(cur.Text.Data), "current holds the file's text")
			assert.Equal(t, path, *cur.Source.Path)
		})
	}
}

// rewrite changes a file of the root behind the server's back.
func rewrite(name, body string) func(*testing.T, *Briefing, string) {
	return func(t *testing.T, _ *Briefing, dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
}

// TestWriteFileConflictThenEdit: after a conflict, the edit made on the
// current result is written, with that result as its base.
func TestWriteFileConflictThenEdit(t *testing.T) {
	t.Parallel()
	b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
	rewrite("a.txt", "zero\none\ntwo\nthree\n")(t, b, dir)
	_, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[{"lines":[3,3],"text":"THREE\n"}]}`)})
	require.NotNil(t, err)
	require.Equal(t, new("r3"), err.File.Current)
	w, err := writeFile(b, WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r3","edits":[{"lines":[4,4],"text":"THREE\n"}]}`)})
	require.Nil(t, err)
	assert.Equal(t, new("r3"), w.Base)
	assert.Equal(t, "zero\none\ntwo\nTHREE\n", readTree(t, dir)["a.txt"])
}

// TestConflictFromEitherCheck: a conflict found right before the rename
// (whose details may be bare) is completed the same way; a file that holds
// the base's text again by then is said to have changed while it was
// being written; other errors pass unchanged.
func TestConflictFromEitherCheck(t *testing.T) {
	t.Parallel()
	b, dir := writeBriefing(t, limits.Defaults(), Legacy, limits.ClientSteps)
	r1, gerr := b.store.Get("r1")
	require.Nil(t, gerr)
	bare := errcode.New(errcode.Conflict, "the file changed before the rename")

	got := b.withCurrent(bare, "a.txt", r1)
	assert.Equal(t, `file "a.txt" changed while it was being written, and holds r1's text again: send the edit again`, got.Msg)
	assert.Equal(t, new("r1"), got.File.Current)
	assert.Equal(t, new(""), got.File.Diff)
	assert.Equal(t, "error conflict: "+got.Msg, got.Text(), "an empty diff adds no lines")

	rewrite("a.txt", "one\ntwo\n")(t, b, dir)
	got = b.withCurrent(bare, "a.txt", r1)
	assert.Equal(t, `file "a.txt" changed since r1 was read (14 -> 8 bytes); its current text is r3: make the edit on r3`, got.Msg)
	assert.Equal(t, errcode.Details{File: &errcode.File{Path: "a.txt", SHA256: new(hexSum256("one\ntwo\n")), Current: new("r3"),
		Diff: new("@@ -2,2 +2,1 @@\n two\n-three\n")}, Size: new(int64(8))}, got.Details)

	require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
	got = b.withCurrent(bare, "a.txt", r1)
	assert.Equal(t, errcode.Details{File: &errcode.File{Path: "a.txt"}}, got.Details)

	other := errcode.New(errcode.Unwritable, "cannot write")
	assert.Same(t, other, b.withCurrent(other, "a.txt", r1))
}
