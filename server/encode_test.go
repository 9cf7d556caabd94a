package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/workspace"
)

// twin runs one session on two servers over the same root, one message at
// a time: the reference answers each message as the transports did before
// appendMessage and Server.handle (mcp-go's HandleMessage, json.Marshal),
// the other as they do now. Their answers must be the same bytes.
type twin struct {
	t        testing.TB
	limit    int64
	ref, cur *Server
	refCtx   context.Context
	curCtx   context.Context
	refNotes chan mcp.JSONRPCNotification
	curNotes chan mcp.JSONRPCNotification
	answers  int    // answers compared
	dir      string // the root, which both servers may write (--write)
}

func newTwin(t testing.TB, opts Options, dir string) *twin {
	t.Helper()
	root, err := workspace.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	opts.Root = root
	tw := &twin{t: t, limit: opts.Limits.MaxMessageBytes}
	if opts.Write {
		tw.dir = dir
	}
	side := func() (*Server, context.Context, chan mcp.JSONRPCNotification) {
		s := New(opts)
		sess := &stdioSession{notes: make(chan mcp.JSONRPCNotification, 64)}
		ctx := context.Background()
		require.NoError(t, s.mcp.RegisterSession(ctx, sess))
		b := s.newBriefing()
		t.Cleanup(b.Close)
		return s, withBriefing(s.mcp.WithContext(ctx, sess), b), sess.notes
	}
	tw.ref, tw.refCtx, tw.refNotes = side()
	tw.cur, tw.curCtx, tw.curNotes = side()
	return tw
}

// exchange sends line to both servers and requires the same bytes back;
// it returns the message as readMessage took it.
func (tw *twin) exchange(line []byte) inbound {
	tw.t.Helper()
	if int64(len(line)) > tw.limit {
		tw.same(oversize(int64(len(line)), tw.limit), oversize(int64(len(line)), tw.limit), line)
		return inbound{}
	}
	msg, bad := readMessage(line)
	if bad != nil {
		tw.same(*bad, *bad, line)
		tw.same(bad, bad, line) // the HTTP transport writes the pointer
		return msg
	}
	if msg.response {
		return msg
	}
	// With --write both servers write the one root: the reference's
	// writes are undone before the other answers, which must write the
	// same files.
	before := tw.tree()
	ref := withRequestID(tw.ref.mcp.HandleMessage(withArguments(tw.refCtx, msg.args), msg.mcpBody()), msg.id)
	written := tw.tree()
	tw.restore(before, written)
	cur := tw.cur.handle(tw.curCtx, msg)
	tw.same(ref, cur, line)
	assert.Equal(tw.t, written, tw.tree(), "the files after %s", line)
	for {
		select {
		case n := <-tw.refNotes:
			tw.same(n, <-tw.curNotes, line)
			continue
		default:
		}
		break
	}
	return msg
}

// tree returns the regular files of a root that the servers may write,
// by path; nil when they may not.
func (tw *twin) tree() map[string]string {
	if tw.dir == "" {
		return nil
	}
	out := map[string]string{}
	require.NoError(tw.t, filepath.WalkDir(tw.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

// restore puts back the files of before that now differ, and removes
// those written since.
func (tw *twin) restore(before, now map[string]string) {
	for p, body := range now {
		if old, ok := before[p]; !ok {
			require.NoError(tw.t, os.Remove(p))
		} else if old != body {
			require.NoError(tw.t, os.WriteFile(p, []byte(old), 0o644))
		}
	}
}

// same requires appendMessage(cur) and appendMessage(ref), the answer that
// went through mcp-go, to be json.Marshal(ref).
func (tw *twin) same(ref, cur any, line []byte) {
	tw.t.Helper()
	if isNilMessage(ref) || ref == nil {
		assert.True(tw.t, cur == nil || isNilMessage(cur), "no answer expected to %s, got %#v", line, cur)
		return
	}
	want, err := json.Marshal(ref)
	require.NoError(tw.t, err)
	got, err := appendMessage(nil, cur)
	require.NoError(tw.t, err)
	require.Equal(tw.t, string(asMarshal(want)), string(asMarshal(got)), "answer to %s", line)
	got, err = appendMessage([]byte("prefix"), ref)
	require.NoError(tw.t, err)
	require.Equal(tw.t, "prefix"+string(asMarshal(want)), string(asMarshal(got)), "mcp-go's answer to %s", line)
	tw.answers++
}

// TestEncodeConformanceScripts replays every conformance script's client
// messages through the twin: every tool, success and error, budgets,
// stores full, handshakes of both protocol eras, protocol faults.
func TestEncodeConformanceScripts(t *testing.T) {
	t.Parallel()
	scripts, err := filepath.Glob("../conformance/testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	total := 0
	for _, file := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			sc := parseTxtar(t, data)
			dir := t.TempDir()
			for name, body := range sc.files {
				p := filepath.Join(dir, name)
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, body, 0o644))
			}
			for name, target := range sc.links {
				require.NoError(t, os.Symlink(target, filepath.Join(dir, name)))
			}
			cfg := limits.Defaults()
			fs := flag.NewFlagSet("loom-results", flag.ContinueOnError)
			cfg.Register(fs)
			policy := fs.String("context", string(briefing.Legacy), "")
			steps := fs.String("steps", string(limits.ClientSteps), "")
			write := fs.Bool("write", false, "")
			root := fs.String("root", dir, "") // relative to the workspace, as replay runs the server in it
			require.NoError(t, fs.Parse(sc.flags))
			if !filepath.IsAbs(*root) {
				*root = filepath.Join(dir, *root)
			}
			tw := newTwin(t, Options{Limits: cfg, Policy: briefing.Policy(*policy), Steps: limits.Steps(*steps), Write: *write}, *root)
			for _, line := range sc.client {
				tw.exchange(bytes.ReplaceAll(line, []byte("$ROOT"), []byte(dir)))
			}
			total += tw.answers
		})
	}
	t.Logf("%d answers compared", total)
}

// script is what the twin needs of a conformance script (the format is
// conformance.Script's).
type script struct {
	client [][]byte
	flags  []string
	files  map[string][]byte
	links  map[string]string
}

func parseTxtar(t testing.TB, data []byte) script {
	t.Helper()
	sc := script{files: map[string][]byte{}, links: map[string]string{}}
	var name string
	var body []byte
	flush := func() {
		switch {
		case name == "client":
			dec := json.NewDecoder(bytes.NewReader(body))
			for {
				var v json.RawMessage
				err := dec.Decode(&v)
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				if v[0] == '"' {
					var line string
					require.NoError(t, json.Unmarshal(v, &line))
					sc.client = append(sc.client, []byte(line))
					continue
				}
				var buf bytes.Buffer
				require.NoError(t, json.Compact(&buf, v))
				sc.client = append(sc.client, buf.Bytes())
			}
		case name == "flags":
			for line := range strings.Lines(string(body)) {
				if l := strings.TrimSpace(line); !strings.HasPrefix(l, "#") {
					sc.flags = append(sc.flags, strings.Fields(l)...)
				}
			}
		case name == "symlinks":
			for line := range strings.Lines(string(body)) {
				if from, to, ok := strings.Cut(strings.TrimSpace(line), " -> "); ok {
					sc.links[strings.TrimSpace(from)] = strings.TrimSpace(to)
				}
			}
		case strings.HasPrefix(name, "files/"):
			sc.files[strings.TrimPrefix(name, "files/")] = body
		case strings.HasPrefix(name, "quoted/"):
			s, err := strconv.Unquote(strings.TrimSpace(string(body)))
			require.NoError(t, err)
			sc.files[strings.TrimPrefix(name, "quoted/")] = []byte(s)
		}
	}
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --\n") {
			flush()
			name, body = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --\n"), nil
			continue
		}
		if name != "" {
			body = append(body, line...)
		}
	}
	flush()
	return sc
}

// awkward are texts that exercise every escape of a JSON string.
var awkward = func() []string {
	var ctl strings.Builder
	for c := range 0x20 {
		ctl.WriteByte(byte(c))
	}
	ctl.WriteString("\x7f")
	return []string{
		"",
		ctl.String(),
		`<script>alert("x & y")</script>`,
		"line\u2028sep\u2029para",
		"é€😀 日本語 \U0010FFFF \uFFFD",
		`quote " backslash \ slash /`,
		"tab\there\r\nnew\nline\f\b",
		"bad \xff byte", "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 too big", "cut \xe2\x80", "\xc0\xaf overlong",
		"\u2028", "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa",
		strings.Repeat("ascii text of a source file, 40 bytes.\n", 500),
		strings.Repeat("<&>\"\\\u2028é\x01", 300),
	}
}()

// files is a root for the hostile twin: texts and names with every escape.
func awkwardRoot(t *testing.T) string {
	dir := t.TempDir()
	var all strings.Builder
	for _, s := range awkward {
		if utf8.ValidString(s) {
			all.WriteString(s)
			all.WriteByte('\n')
		}
	}
	files := map[string]string{
		"all.txt":            all.String(),
		"a<b>&c\u2028d.txt":  "x < y && y > z\n",
		"empty.txt":          "",
		"doc.json":           `{"s": "a\"b<c>\u2028\u00e9", "n": [1, 2.50, -0, 1e400], "o": {"k": "v"}, "t": true}`,
		"big.txt":            strings.Repeat("\tx := compute(a, b) // note é\n", 3000),
		"newline-free.txt":   "no final newline",
		"escape\\quote\".go": "package x\n",
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

// TestEncodeHostileMessages sends the twin messages around every edge of
// the plain tools/call and of the encoder: ids of every form, envelopes
// that mcp-go must judge, awkward texts in answers and errors.
func TestEncodeHostileMessages(t *testing.T) {
	t.Parallel()
	for _, cfg := range []limits.Config{limits.Defaults(), func() limits.Config {
		c := limits.Defaults()
		c.MaxLookups, c.MaxStepBytes, c.PageSize, c.PreviewBytes = 6, 2000, 2, 5
		return c
	}()} {
		tw := newTwin(t, Options{Limits: cfg, Policy: briefing.Legacy}, awkwardRoot(t))
		// Handlers that fail as no tool of this server does, for the
		// JSON-RPC errors Server.handle builds as mcp-go would.
		for _, s := range []*Server{tw.ref, tw.cur} {
			s.mcp.AddTool(mcp.Tool{Name: "nil_result"}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, nil
			})
			s.mcp.AddTool(mcp.Tool{Name: "fails"}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("failed <here> \u2028")
			})
		}
		call := func(id, tool, args string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
		}
		label, _ := json.Marshal(awkward[2] + awkward[3] + awkward[4])
		text, _ := json.Marshal(awkward[1] + awkward[5] + awkward[6])
		lines := []struct {
			line  string
			plain bool
		}{
			{call("0", "begin_step", `{}`), true}, // before initialize
			{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"twin","version":"1"}}}`, false},
			{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
			{`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`, false},
			{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, false},
			{`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`, false},
			{`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`, false},
			{`{"jsonrpc":"2.0","id":5,"method":"no/such"}`, false},
			{call("6", "inspect", `{"paths":["all.txt","a<b>&c\u2028d.txt","empty.txt","doc.json","big.txt","newline-free.txt","escape\\quote\".go","missing<>.txt","../out"]}`), true},
			{call("7", "get_range", `{"result":"r1"}`), true},
			{call("8", "get_lines", `{"result":"r1","first":1,"last":4}`), true},
			{call("9", "get_lines", `{"result":"r5","first":2990}`), true},
			{call("10", "get_range", `{"result":"r3","start":0,"end":0}`), true},
			{call("11", "get_json", `{"result":"r4","pointer":"/s"}`), true},
			{call("12", "get_json", `{"result":"r4","pointer":"/s","as":"string"}`), true},
			{call("13", "get_json", `{"result":"r4","pointer":"/n/3"}`), true},
			{call("14", "get_json", `{"result":"r4","pointer":"/nope<>"}`), true},
			{call("15", "find", `{"result":"r1","pattern":"<"}`), true},
			{call("16", "find", `{"result":"r5","pattern":"x.*é","regex":true,"max_matches":3}`), true},
			{call("17", "begin_step", `{}`), true},
			{call("18", "list_results", `{}`), true},
			{call("19", "list_results", `{"page":1,"page_size":1}`), true},
			{call("20", "list_results", `{"page":99}`), true},
			{call("21", "retain_output", `{"label":`+string(label)+`,"text":`+string(text)+`,"exit_code":-3,"timed_out":true,"dropped_bytes":7}`), true},
			{call("22", "retain_output", `{"label":"ok","text":"done\n","complete":true}`), true},
			{call("23", "retain_output", `{"label":"bad","text":"\udc00"}`), true},
			{call("24", "expand_edit", `{"arguments":{"path":"a<b>.txt","content":{"$compose":["x<\u2028", {"result":"r1","lines":[1,2]}]}, "n" : [ 1 , 2 ]}}`), true},
			{call("25", "expand_edit", `{"arguments":{"content":{"$compose":[{"result":"r99"}]}}}`), true},
			{call("26", "get_range", `{"result":"r1","start":1,"end":0}`), true},
			{call("27", "get_range", `{"result":"r1","sha256":"000000000000"}`), true},
			{call("28", "get_lines", `{"result":"r1","first":1,"extra":true}`), true},
			{call("29", "begin_step", `{"x":1}`), true},
			// ids of every form
			{call(`"a<b>&\u2028c\"d\\e"`, "begin_step", `{}`), true},
			{call("\"é\u2028\"", "begin_step", `{}`), true},
			{call(`""`, "begin_step", `{}`), true},
			{call(`1.5`, "begin_step", `{}`), true},
			{call(`-0`, "begin_step", `{}`), true},
			{call(`1e21`, "begin_step", `{}`), true},
			{call(`1E2`, "begin_step", `{}`), true},
			{call(`1e-7`, "begin_step", `{}`), true},
			{call(`0.000001`, "begin_step", `{}`), true},
			{call(`123456789012345678901`, "begin_step", `{}`), true},
			{call(`-9007199254740993`, "begin_step", `{}`), true},
			{call(`5e-324`, "begin_step", `{}`), true},
			{call(`1e400`, "begin_step", `{}`), false},
			{call(`"\ud800"`, "begin_step", `{}`), false},
			{call(`null`, "begin_step", `{}`), false},
			{call(`true`, "begin_step", `{}`), false},
			// envelopes
			{`{ "params" : { "arguments" : { } , "name" : "begin_step" } , "method" : "tools/call" , "id" : 40 , "jsonrpc" : "2.0" }`, true},
			{`{"jsonrpc":"2\u002e0","id":41,"method":"tools\/call","params":{"name":"begin\u005fstep","arguments":{}}}`, true},
			{`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"begin_step"}}`, true},
			{call("43", "begin_step", `null`), true},
			{call("44", "begin_step", `[]`), true},
			{call("45", "begin_step", `"x"`), true},
			{call("46", "nope", `{}`), true},
			{call("47", "", `{}`), true},
			{call(`"nil"`, "nil_result", `{}`), true},
			{call(`"fails"`, "fails", `{}`), true},
			{`{"jsonrpc":"1.0","id":48,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"id":49,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":50,"id":51,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":53,"ID":54,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":55,"method":"tools/call","Method":"ping","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":56,"method":"tools/call","params":{"name":"begin_step","arguments":{}},"extra":1}`, false},
			{`{"jsonrpc":"2.0","id":57,"method":"tools/call","params":{"name":"begin_step","arguments":{},"_meta":{"progressToken":1}}}`, false},
			{`{"jsonrpc":"2.0","id":58,"method":"tools/call","params":{"name":"begin_step","arguments":{},"_META":{"progressToken":1}}}`, false},
			{`{"jsonrpc":"2.0","id":59,"method":"tools/call","params":{"Name":"nope","name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"begin_step","name":"get_lines","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":7,"arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":62,"method":"tools/call","params":{"name":"begin_step","arguments":{},"arguments":{"x":1}}}`, false},
			{`{"jsonrpc":"2.0","id":63,"method":"tools/call","params":{"name":"begin_step","arguments":{},"task":{}}}`, false},
			{`{"jsonrpc":"2.0","id":64,"method":"tools/call","params":[1]}`, false},
			{`{"jsonrpc":"2.0","id":65,"method":"tools/call"}`, false},
			{`{"jsonrpc":"2.0","id":66,"method":"tools/call","params":{"name":"begin\ud800","arguments":{}}}`, false},
			{"{\"jsonrpc\":\"2.0\",\"id\":67,\"method\":\"tools/call\",\"params\":{\"name\":\"begin\xffstep\",\"arguments\":{}}}", false},
			{`{"jsonrpc":"2.0","id":68,"method":"tools/call","params":{"name":"begin_step","arguments":{}},"result":{}}`, false},
			{`{"jsonrpc":"2.0","id":69,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, false},
			{`{"jsonrpc":"2.0","id":70,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, false},
			{`{"jsonrpc":"2.0","id":71,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, false},
			{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"begin_step","arguments":{}}}`, false},
			{`{"jsonrpc":"2.0","id":72,"result":{}}`, false},
			{`[{"jsonrpc":"2.0","id":73,"method":"ping"}]`, false},
			{`{not json`, false},
			{`"just a string"`, false},
			{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, false},
			{`{"jsonrpc":"2.0","id":"<74>","method":""}`, false},
		}
		for _, l := range lines {
			msg := tw.exchange([]byte(l.line))
			assert.Equal(t, l.plain, msg.plain, "plain: %s", l.line)
		}
		// Lookups until the step is refused, and after.
		for i := range 8 {
			tw.exchange([]byte(call(strconv.Itoa(100+i), "get_lines", `{"result":"r1","first":1}`)))
		}
		assert.Greater(t, tw.answers, len(lines))
	}
}

// TestAppendMessageSynthetic holds appendMessage to json.Marshal on
// answers no tool gives today but the encoder must still write exactly.
func TestAppendMessageSynthetic(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	yes, no := true, false
	exit, next := int64(-1), int64(3)
	snap := limits.Snapshot{Step: 1, LookupsUsed: 2, LookupsLeft: 3, BytesUsed: 4, BytesLeft: 5, ExpandBytesUsed: 6, ExpandBytesLeft: 7, Refused: true}
	full := results.Descriptor{
		ID: str("r1"), SHA256: "ab<>", Bytes: 1, Lines: 1, Complete: true, JSON: str("object"),
		Source:  results.Source{Kind: "edit", At: str("/a<b>"), Path: str("p\u2028"), Label: str("l&"), ExitCode: &exit, TimedOut: &no, DroppedBytes: 9},
		Preview: str(""), PreviewComplete: &yes, Reused: &no, Retained: true, Reason: "store_full",
	}
	bare := results.Descriptor{SHA256: "x"}
	ids := []any{nil, "", "id<>&\u2028", "bad\xff", float64(0), math.Copysign(0, -1), 1.5, 1e21, 1e20, 1e-7, 1e-6, 123456789, -1e300,
		int64(-7), 42, json.RawMessage(` "raw" `), json.RawMessage("7")}

	var values []any
	for _, text := range awkward {
		sel := &briefing.Selection{Result: "r1", SHA256: text, Selection: briefing.ByteSelection{Start: 1, End: 2}, Text: text, Bytes: 3, EscapedBytes: 4, Budget: snap}
		other := *sel
		other.Text, other.Type, other.Selection = text+"!", "string<>", briefing.PointerSelection{Pointer: "/a~1<b>", As: text}
		lines := *sel
		lines.Selection = briefing.LineSelection{First: 1, Last: 2}
		none := *sel
		none.Selection = nil
		errText := errcode.New(errcode.InvalidArgument, "bad %q", text).With(errcode.Details{
			At: &text, Lines: new(int64(1)), Cause: errcode.New(errcode.NotFound, "%s", text), File: &errcode.File{Path: text, SHA256: &text},
		})
		meta := &mcp.CallToolResult{
			Result:  mcp.Result{Meta: &mcp.Meta{ProgressToken: text, AdditionalFields: map[string]any{"k<": text}}, ResultType: mcp.ResultTypeComplete},
			Content: []mcp.Content{mcp.NewTextContent(text), mcp.NewTextContent(text)}, StructuredContent: sel,
		}
		annotated := mcp.NewTextContent(text)
		annotated.Annotations = &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}}
		annotated.Meta = &mcp.Meta{AdditionalFields: map[string]any{"a": text}}
		mixed := &mcp.CallToolResult{
			Content:           []mcp.Content{annotated, mcp.NewImageContent(text, "image/png"), &annotated, mcp.NewTextContent(text)},
			StructuredContent: json.RawMessage("{ \"a\" : [ 1 , \"<\u2028>\" ] }"),
		}
		values = append(values,
			success(text, nil), success(text, sel), success(text, &other), success(text, &lines), success(text, &none),
			success(text, &briefing.Page{Page: 1, Pages: 2, Total: 3, Results: []results.Descriptor{full, bare}, Next: &next, Budget: &snap, Text: text}),
			success(text, &briefing.Page{Results: []results.Descriptor{}}), success(text, &briefing.Page{}),
			success(text, &full), success(text, &bare), success(text, stepAnswer{Step: 3, Limits: limits.Defaults().Step()}),
			success(text, map[string]any{"b": text, "a": []any{1.5, nil, true}}), success(text, (*briefing.Selection)(nil)),
			success(text, (*briefing.Page)(nil)), success(text, struct{ X string }{text}),
			failure(errText, &snap), failure(errText, nil), &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: failureBody{}},
			meta, mixed,
			&mcp.CallToolResult{}, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{}},
			&mcp.CallToolResult{RawStructuredContent: json.RawMessage(`{ "raw" : 1 }`), Content: []mcp.Content{mcp.NewTextContent(text)}},
			&mcp.CallToolResult{MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: text}},
			(*mcp.CallToolResult)(nil), mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}},
			&mcp.EmptyResult{},
		)
	}
	count := 0
	for k, id := range ids {
		for i, v := range values {
			if k > 1 && i >= 40 {
				break // the first texts' answers suffice for the other ids
			}
			check := func(msg any) {
				t.Helper()
				want, err := json.Marshal(msg)
				require.NoError(t, err)
				got, err := appendMessage(nil, msg)
				require.NoError(t, err)
				require.Equal(t, string(asMarshal(want)), string(asMarshal(got)), "id %#v, value %d", id, i)
				count++
			}
			check(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), v))
			if r, ok := v.(*mcp.CallToolResult); ok && r != nil && len(r.Content) > 0 {
				text := r.Content[len(r.Content)-1].(mcp.TextContent).Text
				check(rpcError(id, mcp.INTERNAL_ERROR, text))
				check(mcp.JSONRPCError{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(-1, text, map[string]any{"d": text})})
				check(mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: text}})
			}
		}
	}
	t.Logf("%d messages compared", count)

	// What json.Marshal refuses, appendMessage refuses, leaving dst as is.
	for _, bad := range []any{
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(math.NaN()), success("x", nil)),
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), success("x", map[string]any{"f": math.Inf(1)})),
		rpcError(math.Inf(-1), 1, "x"),
	} {
		_, want := json.Marshal(bad)
		require.Error(t, want)
		got, err := appendMessage([]byte("keep"), bad)
		assert.Error(t, err)
		assert.Equal(t, "keep", string(got))
	}
}

// TestAppendString holds the server's string encoder to json.Marshal on
// the awkward strings (limits' TestAppendJSONString takes every character
// class).
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range append(awkward, "\u2027\u2028\u2029\u202a", "\xe2\x80", "\xe2", "a\xe2\x80\xa8") {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(asMarshal(appendString(nil, s))), "%q", s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(asMarshal(appendString(nil, s))))
	})
}

// FuzzAppendMessage holds a lookup's whole answer, and its error answer,
// to json.Marshal's bytes for any text and numeric id.
func FuzzAppendMessage(f *testing.F) {
	for i, s := range awkward {
		f.Add(s, float64(i)*1.25e10, "id")
	}
	f.Fuzz(func(t *testing.T, text string, num float64, id string) {
		sel := &briefing.Selection{Result: id, SHA256: text, Selection: briefing.PointerSelection{Pointer: id, As: text}, Type: id, Text: text}
		for _, msg := range []any{
			mcp.NewJSONRPCResultResponse(mcp.NewRequestId(num), success(text, sel)),
			mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), failure(errcode.New(errcode.InvalidArgument, "%s", text), nil)),
			rpcError(id, -32600, text),
		} {
			want, wantErr := json.Marshal(msg)
			got, err := appendMessage(nil, msg)
			if wantErr != nil {
				require.Error(t, err)
				continue
			}
			require.NoError(t, err)
			require.Equal(t, string(asMarshal(want)), string(asMarshal(got)))
		}
	})
}

// asMarshal turns appendString's one difference from json.Marshal back
// (errorJSON's strings are appendString's too, so both sides need it):
// a surrogate escape (\ud800-\udfff), which appendString writes for the
// 3-byte form of a lone surrogate, becomes the three \ufffd that
// json.Marshal writes for those bytes. Neither writes such an escape
// otherwise, so the two outputs are equal exactly when this makes them so.
func asMarshal(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) && b[i+2] == 'd' && strings.IndexByte("89abcdef", b[i+3]) >= 0 {
			out = append(out, `\ufffd\ufffd\ufffd`...)
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

// TestAppendStringSurrogates checks that the 3-byte form of a lone
// surrogate is written as its escape, and every other invalid byte as
// \ufffd.
func TestAppendStringSurrogates(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"k\xed\xa0\x80":             `"k\ud800"`,
		"\xed\xbf\xbfx\xed\xb0\x80": `"\udfff` + `x\udc00"`,
		"\xed\xa0":                  `"\ufffd\ufffd"`,
		"\xed\x9f\xbf":              "\"\xed\x9f\xbf\"", // U+D7FF is a character: written as it is
		"\xed\xa0\x80\xed\xb0\x80":  `"\ud800\udc00"`,
		`\ud800`:                    `"\\ud800"`,
	} {
		assert.Equal(t, want, string(appendString(nil, in)), "%q", in)
	}
}

// TestEncodedShapes pins the members of every type written by hand, by
// appendMessage or by its own AppendJSON: a member added must be added to
// its encoder too (the differential tests then check its bytes).
func TestEncodedShapes(t *testing.T) {
	t.Parallel()
	shape := func(v any) string {
		var parts []string
		var walk func(reflect.Type, string)
		walk = func(rt reflect.Type, prefix string) {
			for f := range rt.Fields() {
				if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
					walk(f.Type, prefix+f.Name+".")
					continue
				}
				parts = append(parts, prefix+f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
			}
		}
		walk(reflect.TypeOf(v), "")
		return strings.Join(parts, "; ")
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{mcp.JSONRPCResponse{}, "JSONRPC string jsonrpc; ID mcp.RequestId id; Result interface {} result"},
		{mcp.JSONRPCError{}, "JSONRPC string jsonrpc; ID mcp.RequestId id; Error mcp.JSONRPCErrorDetails error"},
		{mcp.JSONRPCErrorDetails{}, "Code int code; Message string message; Data interface {} data,omitempty"},
		{mcp.CallToolResult{}, "Result.Meta *mcp.Meta _meta,omitempty; Result.ResultType mcp.ResultType resultType,omitempty; " +
			"MultiRoundTripResult.InputRequests mcp.InputRequests inputRequests,omitempty; MultiRoundTripResult.RequestState string requestState,omitempty; " +
			"Content []mcp.Content content; StructuredContent interface {} structuredContent,omitempty; " +
			"RawStructuredContent json.RawMessage -; IsError bool isError,omitempty"},
		{mcp.TextContent{}, "Annotated.Annotations *mcp.Annotations annotations,omitempty; Meta *mcp.Meta _meta,omitempty; Type string type; Text string text"},
		{briefing.Selection{}, "Result string result; SHA256 string sha256; Selection briefing.Selector selection; Type string type,omitempty; " +
			"Text string text; Bytes int64 bytes; EscapedBytes int64 escaped_bytes; Budget limits.Snapshot budget; Quoted []uint8 -"},
		{briefing.ByteSelection{}, "Start int64 start; End int64 end"},
		{briefing.LineSelection{}, "First int64 first; Last int64 last; Numbered bool numbered,omitempty"},
		{briefing.PointerSelection{}, "Pointer string pointer; As string as"},
		{briefing.Page{}, "Page int64 page; Pages int64 pages; Total int64 total; Results []results.Descriptor results; " +
			"Next *int64 next; Budget *limits.Snapshot budget,omitempty; Text string -"},
		{results.Descriptor{}, "ID *string id; SHA256 string sha256; Bytes int64 bytes; Lines int64 lines; Complete bool complete; " +
			"Source results.Source source; JSON *string json; Preview *string preview,omitempty; PreviewComplete *bool preview_complete,omitempty; " +
			"Reused *bool reused,omitempty; Retained bool retained; Reason string reason,omitempty"},
		{results.Source{}, "Kind string kind; At *string at,omitempty; Path *string path,omitempty; Label *string label,omitempty; " +
			"ExitCode *int64 exit_code,omitempty; TimedOut *bool timed_out,omitempty; DroppedBytes int64 dropped_bytes,omitempty"},
		{limits.Snapshot{}, "Step int64 step; LookupsUsed int64 lookups_used; LookupsLeft int64 lookups_left; BytesUsed int64 bytes_used; " +
			"BytesLeft int64 bytes_left; ExpandBytesUsed int64 expand_bytes_used; ExpandBytesLeft int64 expand_bytes_left; Refused bool refused"},
		{limits.Limit{}, "Name string ; Value int64 "},
		{briefing.Expansion{}, "At string at; Bytes int64 bytes; SHA256 string sha256; Parts int parts; Result *string result"},
		{briefing.Written{}, "Path string ; Bytes int64 ; SHA256 string ; Base *string ; Result results.Descriptor ; Diff string ; " +
			"Budget limits.Snapshot ; Text string ; lines int64 "},
		{failureBody{}, "Error json.RawMessage error; Budget *limits.Snapshot budget,omitempty"},
		{inspectAnswer{}, "Results []server.inspectEntry results"},
		{inspectEntry{}, "Descriptor *results.Descriptor ; Path *string path,omitempty; Error json.RawMessage error,omitempty"},
		{stepAnswer{}, "Step int64 step; Limits server.orderedInts limits"},
		{expandAnswer{}, "Arguments json.RawMessage arguments; Expansions []briefing.Expansion expansions; Budget limits.Snapshot budget"},
	} {
		assert.Equal(t, c.want, shape(c.v), "%T", c.v)
	}
	// The types json.Marshal reaches by reflection, so that the twins
	// check the encoder and every AppendJSON against it: a MarshalJSON
	// here (one derived from AppendJSON) would hold AppendJSON to itself.
	// Written (no json tags) and orderedInts (an ordered object) derive
	// theirs from AppendJSON, and failureBody's "error" is errorJSON's, both
	// sides alike: errcode's tests check those bytes.
	marshaler := reflect.TypeFor[json.Marshaler]()
	for _, v := range []any{briefing.Selection{}, briefing.Page{}, results.Descriptor{}, results.Source{}, limits.Snapshot{},
		briefing.ByteSelection{}, briefing.LineSelection{}, briefing.PointerSelection{}, briefing.Expansion{},
		failureBody{}, inspectAnswer{}, inspectEntry{}, stepAnswer{}, expandAnswer{},
		mcp.JSONRPCResponse{}, mcp.JSONRPCError{}, mcp.JSONRPCErrorDetails{}, mcp.TextContent{}} {
		rt := reflect.TypeOf(v)
		assert.False(t, rt.Implements(marshaler) || reflect.PointerTo(rt).Implements(marshaler), "%s has a MarshalJSON", rt)
	}
}

// TestAnswersEncodeThemselves: the answer types stay jsonAppenders, so
// that none is left to json.Marshal by a changed signature: it would write
// a lone surrogate escape that a client sent as U+FFFD, a difference the
// twins' asMarshal hides. (find's briefing.Found is marshalled: its
// strings are a result's ID, digest and lines, all valid UTF-8.)
func TestAnswersEncodeThemselves(t *testing.T) {
	t.Parallel()
	for _, v := range []any{&briefing.Selection{}, &briefing.Page{}, &results.Descriptor{}, &briefing.Written{},
		failureBody{}, inspectAnswer{}, stepAnswer{}, expandAnswer{}} {
		_, ok := v.(jsonAppender)
		assert.True(t, ok, "%T", v)
	}
	for _, v := range []briefing.Selector{briefing.ByteSelection{}, briefing.LineSelection{}, briefing.PointerSelection{}} {
		_, ok := v.(jsonAppender)
		assert.True(t, ok, "%T", v)
	}
}

// TestPlainCallNeedsNoDispatch checks what Server.handle relies on to run
// a plain tools/call itself: no session carries tools of its own, and no
// tool is a task tool.
func TestPlainCallNeedsNoDispatch(t *testing.T) {
	t.Parallel()
	for _, sess := range []mcpserver.ClientSession{&stdioSession{}, &httpSession{}} {
		_, ok := sess.(mcpserver.SessionWithTools)
		assert.False(t, ok, "%T has session tools", sess)
	}
	s := New(Options{Limits: limits.Defaults()})
	for name, tool := range s.mcp.ListTools() {
		assert.Nil(t, tool.Tool.Execution, name)
	}
}

// compactHTMLCases are arguments as expand_edit returns them: the client's
// own JSON, white space and all, with strings that json.Marshal escapes.
var compactHTMLCases = []string{
	`{}`,
	`{"path": "a.go", "content": "x<y && z>w\n"}`,
	" {\n\t\"a\" : [ 1 , 2.5e3 , true , false , null ] ,\r\n \"b\" : { } } ",
	`{"s":"quote \" backslash \\ slash \/ \u003c tab\t"}`,
	"{\"ls\":\"\u2028\u2029\",\"k\u2028\":1}",
	"{\"raw\":\"\xff\xfe \xe2\x80\"}",
	`{"nested":[[["<>"]],{"&":{"":""}}]}`,
	`{"lone":"\ud800"}`,
}

func TestAppendExpandAnswer(t *testing.T) {
	t.Parallel()
	snap := limits.Snapshot{Step: 2, LookupsUsed: 1, ExpandBytesUsed: 5}
	r := "r7"
	exp := []briefing.Expansion{{At: "/a<b>", Bytes: 3, SHA256: "ab", Parts: 1}, {At: "", Bytes: 0, SHA256: "cd&", Parts: 2, Result: &r}}
	for _, args := range compactHTMLCases {
		t.Run(args, func(t *testing.T) {
			for _, a := range []expandAnswer{{json.RawMessage(args), exp, snap}, {json.RawMessage(args), nil, snap}, {json.RawMessage(args), []briefing.Expansion{}, snap}} {
				want, err := json.Marshal(a)
				require.NoError(t, err)
				got := a.AppendJSON([]byte("x"))
				assert.Equal(t, "x"+string(want), string(got))
			}
		})
	}
}

// FuzzAppendCompactHTML holds appendCompactHTML to json.Marshal's
// encoding of a json.RawMessage, for any valid JSON.
func FuzzAppendCompactHTML(f *testing.F) {
	for _, c := range compactHTMLCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		want, err := json.Marshal(json.RawMessage(src))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(appendCompactHTML(nil, src)))
	})
}
