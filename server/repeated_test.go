package server

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// TestRepeatedMemberMessages: a name given twice, or a string that is not
// valid UTF-8, has one message at every depth, "argument" for a tool's arguments and "member" inside them, the
// place being the error's at (SPEC 5.1, 5.2, 9): a tool's arguments, a
// splice, an edit, a compose reference, and a reference inside an edit's
// text, through write_file and expand_edit.
func TestRepeatedMemberMessages(t *testing.T) {
	t.Parallel()
	root, _ := testroot.Open(t, map[string]string{"a.txt": "one\ntwo\nthree\n"}, workspace.Open)
	p := mcptest.ServeStdio(t, New(Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Root: root, Write: true}).ServeStdio)
	p.Initialize()
	p.Call(1, "inspect", `{"paths":["a.txt"]}`)
	const unresolved = `error unresolved_edit: edit part at `
	tests := []struct{ tool, args, want string }{
		{"get_lines", `{"result":"r1","first":1,"first":2}`, `error invalid_argument: argument "first" is given twice`},
		{"write_file", `{"splice":{"result":"r1","result":"r1","edits":[]}}`,
			unresolved + `"/splice" does not resolve: error invalid_argument: member "result" is given twice`},
		{"write_file", `{"splice":{"result":"r1","edits":[{"lines":[1,1],"lines":[1,1],"text":"x\n"}]}}`,
			unresolved + `"/splice/edits/0" does not resolve: error invalid_argument: member "lines" is given twice`},
		{"write_file", `{"splice":{"result":"r1","edits":[{"before":1,"text":"x\n","text":"y\n"}]}}`,
			unresolved + `"/splice/edits/0" does not resolve: error invalid_argument: member "text" is given twice`},
		{"write_file", `{"path":"b.txt","compose":[{"result":"r1","result":"r1"}]}`,
			unresolved + `"/compose/0" does not resolve: error invalid_argument: member "result" is given twice`},
		{"expand_edit", `{"arguments":{"c":{"$compose":[{"result":"r1","lines":[1,1],"lines":[1,1]}]}}}`,
			unresolved + `"/c/$compose/0" does not resolve: error invalid_argument: member "lines" is given twice`},
		{"write_file", `{"splice":{"result":"r1","edits":[{"lines":[1,1],"text":{"$compose":[{"result":"r1","sha256":"x","sha256":"y"}]}}]}}`,
			unresolved + `"/splice/edits/0/text/$compose/0" does not resolve: error invalid_argument: member "sha256" is given twice`},
	}
	// An optional member given as null counts as omitted at every depth,
	// and still counts as given for a repeat.
	tests = append(tests,
		struct{ tool, args, want string }{"expand_edit", `{"arguments":{"c":{"$splice":{"result":"r1","sha256":null,"edits":[{"lines":[2,2],"before":null,"after":null,"text":"TWO\n"}]}}}}`,
			"/c: 14 bytes sha256=" + digest("one\nTWO\nthree\n")[:12] + " result=r2\n"},
		struct{ tool, args, want string }{"expand_edit", `{"arguments":{"c":{"$splice":{"result":"r1","edits":[{"before":null,"before":1,"text":"x\n"}]}}}}`,
			unresolved + `"/c/$splice/edits/0" does not resolve: error invalid_argument: member "before" is given twice`},
	)
	// A string that is not valid UTF-8 says where, at every depth.
	tests = append(tests,
		struct{ tool, args, want string }{"get_lines", "{\"result\":\"r\xff1\",\"first\":1}", `error invalid_argument: argument "result" is not valid UTF-8 at byte 1 of its text`},
		struct{ tool, args, want string }{"write_file", "{\"splice\":{\"result\":\"r1\xff\",\"edits\":[]}}",
			unresolved + `"/splice" does not resolve: error invalid_argument: member "result" is not valid UTF-8 at byte 2 of its text`},
		struct{ tool, args, want string }{"write_file", "{\"path\":\"b.txt\",\"compose\":[{\"result\":\"r1\",\"pointer\":\"/\\udc00\"}]}",
			unresolved + `"/compose/0" does not resolve: error invalid_argument: member "pointer" is not valid UTF-8 at byte 1 of its text`},
	)
	for i, tt := range tests {
		res := p.Call(2*i+2, tt.tool, tt.args)
		assert.Equal(t, tt.want, mcptest.Text(res), "%s %s", tt.tool, tt.args)
		p.Call(2*i+3, "begin_step", `{}`) // an unresolved edit refuses the step
	}
}
