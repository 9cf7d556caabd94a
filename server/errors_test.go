package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// TestErrorMessages: every code's answer, as the text content a model sees
// (all it gets with --answers text), states the details it can act on
// (SPEC section 2): the valid range, the boundaries, the size, the limit,
// the bytes left and what fits, the offset, where an edit failed and why,
// a conflict's current result and its diff, and every message says what
// the model can do next (SPEC section 8), which each row names (next).
// Every code has a row; the text is compared whole.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	covered := map[errcode.Code]bool{}
	for _, tt := range errorRows {
		covered[tt.code] = true
		t.Run(string(tt.code)+" "+tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			policy := tt.policy
			if policy == "" {
				policy = briefing.Legacy
			}
			root, dir := testroot.Open(t, errorFiles, workspace.Open)
			run := briefing.RunConfig{Commands: commands(t, "test=gotest", "gone=./missing")}
			s := mcptest.ServeStdio(t, New(Options{Limits: cfg, Policy: policy, Write: true, Run: run, Root: root}).ServeStdio)
			s.Initialize()
			res := s.Call(1, "inspect", `{"paths":["a.txt","u.txt","d.json","bad.json"]}`)
			require.Nil(t, res["isError"])
			if tt.before != nil {
				tt.before(t, dir)
			}
			for i, c := range tt.setup {
				s.Call(2+i, c.tool, c.args)
			}
			res = s.Call(100, tt.call.tool, tt.call.args)
			want := strings.ReplaceAll(tt.want, "$ROOT", dir)
			assert.Equal(t, want, mcptest.Text(res))
			require.NotEmpty(t, tt.next, "every message says what to do next")
			first, _, _ := strings.Cut(mcptest.Text(res), "\n")
			assert.Contains(t, first, strings.ReplaceAll(tt.next, "$ROOT", dir), "the next step")
			if tt.call.tool == "inspect" {
				return // an entry's error, in an answer that is not one
			}
			assert.Equal(t, true, res["isError"])
			e := mcptest.Structured(res)["error"].(map[string]any)
			line, _, _ := strings.Cut(want, "\n")
			assert.Equal(t, line, "error "+e["code"].(string)+": "+e["message"].(string), "the text's first line is the structured error's")
			if e["code"] == string(errcode.UnresolvedEdit) && tt.code != errcode.UnresolvedEdit {
				e = e["cause"].(map[string]any) // a cause of an edit that does not resolve
			}
			assert.Equal(t, string(tt.code), e["code"])
		})
	}
	for _, c := range errcode.Codes {
		assert.True(t, covered[c], "no row for %s", c)
	}
}

// errorRow is one row of TestErrorMessages: a call that fails, after
// setup, in a session of errorFiles with a.txt, u.txt, d.json and bad.json
// inspected as r1 to r4.
type errorRow struct {
	code   errcode.Code
	name   string
	cfg    func(*limits.Config)
	policy briefing.Policy
	setup  []call
	before func(t *testing.T, dir string)
	call   call
	want   string // the text content; $ROOT stands for the root's directory
	// next is the part of the message that says what the model can do
	// next (SPEC section 8): the valid values, what fits, what to call,
	// or who can fix it. Every row has one.
	next string
}

type call struct{ tool, args string }

// errorFiles are the root of every row.
var errorFiles = map[string]string{
	"a.txt":      "one\ntwo\nthree\n",                                // r1
	"u.txt":      "héllo\n",                                          // r2
	"d.json":     `{"a": {"b": [1, 2]}, "dup": 1, "dup": 2, "n": 5}`, // r3
	"bad.json":   `{"a":1,}`,                                         // r4
	"nonutf.txt": "ok\xff\n",
	"big.txt":    strings.Repeat("x", 100),
	"ro.txt":     "read only\n",
	"dir/d.txt":  "d\n",
	"long.txt":   strings.Repeat("x", 20480) + "\n", // one line over the lookup cap
}

// errorRows are the rows of TestErrorMessages, a code a row at least.
var errorRows = []errorRow{
	{code: errcode.InvalidArgument, next: `is required`, name: "a missing argument", call: call{"get_lines", `{"result":"r1"}`},
		want: `error invalid_argument: argument "first" is required`},
	{code: errcode.InvalidArgument, next: `is not 12 to 64 hex digits (a prefix of the result's digest)`, name: "a digest of a bad form", call: call{"get_lines", `{"result":"r1","sha256":"xyz","first":1}`},
		want: `error invalid_argument: sha256 "xyz" is not 12 to 64 hex digits (a prefix of the result's digest)`},
	{code: errcode.UnknownResult, next: `it holds r1-r4`, call: call{"get_lines", `{"result":"r9","first":1}`},
		want: `error unknown_result: no result "r9" in this session; it holds r1-r4`},
	{code: errcode.DigestMismatch, next: `whose digest is b6285c57e879`, call: call{"get_lines", `{"result":"r1","sha256":"000000000000","first":1}`},
		want: `error digest_mismatch: sha256 000000000000 does not match r1, whose digest is b6285c57e879`},
	{code: errcode.InvalidRange, next: `outside 1-3`, name: "lines", call: call{"get_lines", `{"result":"r1","first":2,"last":9}`},
		want: `error invalid_range: lines 2-9 outside 1-3`},
	{code: errcode.InvalidRange, next: `need 1 <= first <= last <= 3`, name: "first after last", call: call{"get_lines", `{"result":"r1","first":3,"last":2}`},
		want: `error invalid_range: lines 3-2: first is after last; need 1 <= first <= last <= 3`},
	{code: errcode.InvalidRange, next: `need 0 <= start <= end <= 14`, name: "bytes", call: call{"get_range", `{"result":"r1","start":4,"end":20}`},
		want: `error invalid_range: bytes 4-20 outside 0-14: need 0 <= start <= end <= 14`},
	{code: errcode.InvalidRange, next: `outside 0-0`, name: "a page", call: call{"list_results", `{"page":3}`},
		want: `error invalid_range: page 3 outside 0-0`},
	{code: errcode.InvalidRange, next: `so edit 1 starts at line 4 or later`, name: "splice edits out of order",
		call: call{"expand_edit", `{"arguments":{"c":{"$splice":{"result":"r1","edits":[{"lines":[2,3],"text":""},{"before":2,"text":"x\n"}]}}}}`},
		want: `error unresolved_edit: edit part at "/c/$splice/edits/1" does not resolve: error invalid_range: ` +
			`edit 1 (before line 2) overlaps edit 0 (lines 2-3): edits must be in file order and must not overlap, ` +
			`so edit 1 starts at line 4 or later; line numbers refer to r1 as stored (3 lines)`},
	{code: errcode.NotCharBoundary, next: `nearest boundaries are 1 and 3`, call: call{"get_range", `{"result":"r2","start":2}`},
		want: `error not_char_boundary: offset 2 is inside a multi-byte character; nearest boundaries are 1 and 3`},
	{code: errcode.InvalidJSON, next: `trailing commas are not allowed`, call: call{"get_json", `{"result":"r4","pointer":""}`},
		want: `error invalid_json: invalid character '}' at offset 7: expected a value after ','; trailing commas are not allowed`},
	{code: errcode.InvalidPointer, next: `must be "" or start with "/"`, call: call{"get_json", `{"result":"r3","pointer":"a"}`},
		want: `error invalid_pointer: pointer "a" must be "" or start with "/" (or be a URI fragment starting with "#")`},
	{code: errcode.PointerNotFound, next: `it has 2 elements (0-1)`, call: call{"get_json", `{"result":"r3","pointer":"/a/b/2"}`},
		want: `error pointer_not_found: token "2" at /a/b: array index out of range; it has 2 elements (0-1)`},
	{code: errcode.AmbiguousJSON, next: `at offsets 21, 31`, call: call{"get_json", `{"result":"r3","pointer":"/dup"}`},
		want: `error ambiguous_json: token "dup" at "": object has 2 members named "dup" (at offsets 21, 31); a pointer through duplicate names is ambiguous`},
	{code: errcode.NotAString, next: `("as": "lexeme" returns any value)`, call: call{"get_json", `{"result":"r3","pointer":"/n","as":"string"}`},
		want: `error not_a_string: value at 46-47 is a number, not a string: "as": "string" needs a JSON string ("as": "lexeme" returns any value)`},
	{code: errcode.LookupTooLarge, next: `lines 1-2 fit`, cfg: func(c *limits.Config) { c.MaxLookupBytes = 8 }, call: call{"get_lines", `{"result":"r1","first":1}`},
		want: `error lookup_too_large: lines 1-3 are 14 bytes, over the 8-byte lookup limit; lines 1-2 fit (the step has 65536 escaped bytes left)`},
	{code: errcode.LookupTooLarge, name: "no line fits", next: `no line from 1 fits: get_range reads part of it; line 1 is bytes 0-20481`,
		setup: []call{{"inspect", `{"paths":["long.txt"]}`}}, call: call{"get_lines", `{"result":"r5","first":1}`},
		want: `error lookup_too_large: line 1 is 20481 bytes, over the 8192-byte lookup limit; no line from 1 fits: get_range reads part of it; ` +
			`line 1 is bytes 0-20481 (the step has 65536 escaped bytes left)`},
	{code: errcode.NotUTF8, name: "a file find names", next: `only UTF-8 text is read`, call: call{"find", `{"paths":["nonutf.txt"],"pattern":"ok"}`},
		want: `error not_utf8: file "nonutf.txt" is not UTF-8 text (invalid UTF-8 at byte 2): a binary file, or text in another encoding; only UTF-8 text is read, so read another file`},
	{code: errcode.StepBytesExhausted, next: `bytes 0-7 fit, or call begin_step`, cfg: func(c *limits.Config) { c.MaxStepBytes = 10 }, call: call{"get_range", `{"result":"r1"}`},
		want: `error step_bytes_exhausted: bytes 0-14 are 19 escaped bytes, over the 10 left of the step's 10; bytes 0-7 fit, ` +
			`or call begin_step to start a new step with a fresh budget`},
	{code: errcode.LookupLimit, next: `call begin_step to start a new step`, cfg: func(c *limits.Config) { c.MaxLookups = 1 },
		setup: []call{{"get_lines", `{"result":"r1","first":1}`}}, call: call{"get_lines", `{"result":"r1","first":1}`},
		want: `error lookup_limit: step 1 already made its 1 lookups; call begin_step to start a new step`},
	{code: errcode.StepRefused, next: `call begin_step to start a new step`, cfg: func(c *limits.Config) { c.MaxLookups = 1 },
		setup: []call{{"get_lines", `{"result":"r1","first":1}`}, {"get_lines", `{"result":"r1","first":1}`}},
		call:  call{"get_lines", `{"result":"r1","first":1}`},
		want:  `error step_refused: step 1 was refused; call begin_step to start a new step`},
	{code: errcode.ExpansionTooLarge, name: "a fresh step holds it", next: `call begin_step to start a new step with a fresh budget`,
		cfg:   func(c *limits.Config) { c.MaxExpandBytes = 20 },
		setup: []call{{"expand_edit", `{"arguments":{"c":{"$compose":[{"result":"r1"}]}}}`}},
		call:  call{"expand_edit", `{"arguments":{"c":{"$compose":[{"result":"r1"}]}}}`},
		want:  `error expansion_too_large: expansion is 14 bytes, over the 6 left of the step's 20; call begin_step to start a new step with a fresh budget`},
	{code: errcode.ExpansionTooLarge, next: `no step holds it (--max-expand-bytes): make the edit in smaller parts`, cfg: func(c *limits.Config) { c.MaxExpandBytes = 5 },
		call: call{"expand_edit", `{"arguments":{"c":{"$compose":[{"result":"r1"}]}}}`},
		want: `error expansion_too_large: expansion is 14 bytes, over the 5 left of the step's 5; no step holds it (--max-expand-bytes): make the edit in smaller parts`},
	{code: errcode.UnresolvedEdit, next: `outside 1-3`, call: call{"expand_edit", `{"arguments":{"c":{"$compose":["x",{"result":"r1","lines":[4,4]}]}}}`},
		want: `error unresolved_edit: edit part at "/c/$compose/1" does not resolve: error invalid_range: lines 4-4 outside 1-3`},
	{code: errcode.AnchorMismatch, next: `line 2 is 2#h7 "two", not 2#o2; 1#o2 is "one"`, name: "the nearest line with the characters sent",
		call: call{"expand_edit", `{"arguments":{"c":{"$splice":{"result":"r1","edits":[{"lines":["2#o2","2#o2"],"text":"x\n"}]}}}}`},
		want: `error unresolved_edit: edit part at "/c/$splice/edits/0" does not resolve: error anchor_mismatch: ` +
			`line 2 is 2#h7 "two", not 2#o2; 1#o2 is "one"`},
	{code: errcode.StoreFull, next: `only the person who starts the server can raise --max-results or --max-store-bytes`, cfg: func(c *limits.Config) { c.MaxResults = 4 }, policy: briefing.Bounded,
		call: call{"expand_edit", `{"arguments":{"c":{"$compose":["abc"]}}}`},
		want: `error store_full: a 3-byte result does not fit: the store holds 4 of 4 results and 77 of 67108864 bytes (at most 16777216 a result); the results it holds stay readable by their IDs, and only the person who starts the server can raise --max-results or --max-store-bytes`},
	{code: errcode.PathOutsideRoot, next: `name a path under it`, call: call{"write_file", `{"path":"../x.txt","text":"x"}`},
		want: `error path_outside_root: path "../x.txt" leaves the root "$ROOT"; name a path under it`},
	{code: errcode.NotFound, next: `inspect a directory ("." is the root) to list its files`, call: call{"inspect", `{"paths":["gone.txt"]}`},
		want: "gone.txt: error not_found: file \"gone.txt\" not found; inspect a directory (\".\" is the root) to list its files\n"},
	{code: errcode.NotRegularFile, next: `is a directory, not a regular file`, call: call{"write_file", `{"path":"dir","text":"x"}`},
		want: `error not_regular_file: "dir" is a directory, not a regular file`},
	{code: errcode.TooLarge, next: `(--max-result-bytes, which the person who starts the server sets: ask them to raise it, or read a smaller file)`, cfg: func(c *limits.Config) { c.MaxResultBytes = 64 }, call: call{"inspect", `{"paths":["big.txt"]}`},
		want: "big.txt: error too_large: file \"big.txt\" is 100 bytes, over the limit of 64 bytes (--max-result-bytes, which the person who starts the server sets: ask them to raise it, or read a smaller file)\n"},
	{code: errcode.NotUTF8, next: `is not UTF-8 text (invalid UTF-8 at byte 2): a binary file, or text in another encoding; only UTF-8 text is read`, name: "a file", call: call{"inspect", `{"paths":["nonutf.txt"]}`},
		want: "nonutf.txt: error not_utf8: file \"nonutf.txt\" is not UTF-8 text (invalid UTF-8 at byte 2): a binary file, or text in another encoding; only UTF-8 text is read, so read another file\n"},
	{code: errcode.NotUTF8, next: `is not valid UTF-8 at byte 2 of its text`, name: "retain_output's text", call: call{"retain_output", `{"label":"x","text":"ab\ud800"}`},
		want: `error not_utf8: argument "text" is not valid UTF-8 at byte 2 of its text`},
	{code: errcode.Unreadable, next: `too many levels of symbolic links`, before: func(t *testing.T, dir string) {
		require.NoError(t, os.Symlink("loop", filepath.Join(dir, "loop")))
	}, call: call{"inspect", `{"paths":["loop"]}`},
		want: "loop: error unreadable: cannot read \"loop\": too many levels of symbolic links\n"},
	{code: errcode.Conflict, next: `make the edit on r1, with base r1`, name: "no base over an inspected file", call: call{"write_file", `{"path":"a.txt","text":"x"}`},
		want: `error conflict: file "a.txt" exists (14 bytes) and write_file never overwrites text you have not seen; ` +
			`its current text is r1: make the edit on r1, with base r1`},
	{code: errcode.Conflict, next: `write it with text or compose and no base to create it again`, name: "a file deleted since it was read", before: func(t *testing.T, dir string) {
		require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
	}, call: call{"write_file", `{"splice":{"result":"r1","edits":[{"lines":[3,3],"text":"3\n"}]}}`},
		want: `error conflict: file "a.txt" no longer exists, but r1 was read from it; write it with text or compose and no base to create it again (a splice always has a base)`},
	{code: errcode.Conflict, next: `make the edit on r5`, name: "changed behind its back", before: func(t *testing.T, dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n2\nthree\n"), 0o644))
	}, call: call{"write_file", `{"splice":{"result":"r1","edits":[{"lines":[3,3],"text":"3\n"}]}}`},
		want: "error conflict: file \"a.txt\" changed since r1 was read (14 -> 12 bytes); its current text is r5: make the edit on r5\n" +
			"@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
	{code: errcode.Conflict, next: `(--max-result-bytes, which the person who starts the server sets`, name: "grown past --max-result-bytes", cfg: func(c *limits.Config) { c.MaxResultBytes = 20 },
		before: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Repeat("x\n", 20)), 0o644))
		}, call: call{"write_file", `{"splice":{"result":"r1","edits":[]}}`},
		want: `error conflict: file "a.txt" changed since r1 was read (14 -> 40 bytes); its current text cannot be retained ` +
			`(error too_large: file "a.txt" is 40 bytes, over the limit of 20 bytes (--max-result-bytes, which the person who starts the server sets: ask them to raise it, or read a smaller file))`},
	{code: errcode.Unwritable, next: `no one may write it, so write_file does not`, before: func(t *testing.T, dir string) {
		require.NoError(t, os.Chmod(filepath.Join(dir, "ro.txt"), 0o444))
	}, call: call{"write_file", `{"path":"ro.txt","text":"x"}`},
		want: `error unwritable: file "ro.txt" is read-only (mode 0444): no one may write it, so write_file does not`},
	{code: errcode.Unwritable, next: `a parent is not a directory`, name: "a parent that is a file", call: call{"write_file", `{"path":"a.txt/sub.txt","text":"x"}`},
		want: `error unwritable: cannot write "a.txt/sub.txt": a parent is not a directory`},
	{code: errcode.CannotRun, next: `the program is missing or not executable, and only the person who named the command with --run can fix that`, name: "a program not in PATH", call: call{"run", `{"name":"test"}`},
		want: `error cannot_run: command test: program "gotest" not found in PATH; the program is missing or not executable, and only the person who named the command with --run can fix that`},
	{code: errcode.CannotRun, next: `the program is missing or not executable, and only the person who named the command with --run can fix that`, name: "no such file", call: call{"run", `{"name":"gone"}`},
		want: `error cannot_run: command gone: cannot run "./missing": no such file or directory; the program is missing or not executable, and only the person who named the command with --run can fix that`},
}
