package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/jsontest"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// twin runs one session on two servers over the same root, one message at
// a time: the reference answers each message as the transports did before
// AppendMessage and Transport.handle (mcp-go's HandleMessage, json.Marshal),
// the other as they do now. Their answers must be the same bytes.
type twin struct {
	t        testing.TB
	limit    int64
	ref, cur *server.Server
	refCtx   context.Context
	curCtx   context.Context
	refNotes chan mcp.JSONRPCNotification
	curNotes chan mcp.JSONRPCNotification
	answers  int    // answers compared
	dir      string // the root, which both servers may write (--write)
}

func newTwin(t testing.TB, opts server.Options, dir string) *twin {
	t.Helper()
	root, err := workspace.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	opts.Root = root
	tw := &twin{t: t, limit: opts.Limits.MaxMessageBytes}
	if opts.Write {
		tw.dir = dir
	}
	side := func() (*server.Server, context.Context, chan mcp.JSONRPCNotification) {
		s := server.New(opts)
		ctx, notes := s.Transport().StdioContext(t)
		return s, ctx, notes
	}
	tw.ref, tw.refCtx, tw.refNotes = side()
	tw.cur, tw.curCtx, tw.curNotes = side()
	return tw
}

// exchange sends line to both servers and requires the same bytes back;
// it returns the message as readMessage took it.
func (tw *twin) exchange(line []byte) transport.Inbound {
	tw.t.Helper()
	if int64(len(line)) > tw.limit {
		tw.same(transport.Oversize(int64(len(line)), tw.limit), transport.Oversize(int64(len(line)), tw.limit), line)
		return transport.Inbound{}
	}
	msg, bad := transport.ReadMessage(line)
	if bad != nil {
		tw.same(*bad, *bad, line)
		tw.same(bad, bad, line) // the HTTP transport writes the pointer
		return msg
	}
	if msg.Response() {
		return msg
	}
	// With --write both servers write the one root: the reference's
	// writes are undone before the other answers, which must write the
	// same files.
	before := tw.tree()
	ref := transport.WithRequestID(tw.ref.Transport().MCP().HandleMessage(transport.WithArguments(tw.refCtx, msg.Args()), msg.MCPBody()), msg.ID())
	written := tw.tree()
	tw.restore(before, written)
	cur := tw.cur.Transport().Handle(tw.curCtx, msg)
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

// same requires AppendMessage(cur) and AppendMessage(ref), the answer that
// went through mcp-go, to be json.Marshal(ref).
func (tw *twin) same(ref, cur any, line []byte) {
	tw.t.Helper()
	if transport.IsNilMessage(ref) || ref == nil {
		assert.True(tw.t, cur == nil || transport.IsNilMessage(cur), "no answer expected to %s, got %#v", line, cur)
		return
	}
	want, err := json.Marshal(ref)
	require.NoError(tw.t, err)
	got, err := transport.AppendMessage(nil, cur)
	require.NoError(tw.t, err)
	require.Equal(tw.t, string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)), "answer to %s", line)
	got, err = transport.AppendMessage([]byte("prefix"), ref)
	require.NoError(tw.t, err)
	require.Equal(tw.t, "prefix"+string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)), "mcp-go's answer to %s", line)
	tw.answers++
}

// TestEncodeConformanceScripts replays every conformance script's client
// messages through the twin: every tool, success and error, budgets,
// stores full, handshakes of both protocol eras, protocol faults.
func TestEncodeConformanceScripts(t *testing.T) {
	t.Parallel()
	scripts, err := filepath.Glob("../../conformance/testdata/*.txtar")
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
			answers := fs.String("answers", "", "")
			write := fs.Bool("write", false, "")
			var run briefing.RunConfig
			fs.Func("run", "", func(v string) error {
				c, err := workspace.ParseCommand(v)
				run.Commands = append(run.Commands, c)
				return err
			})
			root := fs.String("root", dir, "") // relative to the workspace, as replay runs the server in it
			require.NoError(t, fs.Parse(sc.flags))
			if !filepath.IsAbs(*root) {
				*root = filepath.Join(dir, *root)
			}
			tw := newTwin(t, server.Options{Limits: cfg, Policy: briefing.Policy(*policy), Steps: limits.Steps(*steps), Answers: server.Answers(*answers), Write: *write, Run: run}, *root)
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
					words, err := workspace.SplitWords(l)
					require.NoError(t, err)
					sc.flags = append(sc.flags, words...)
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

// files is a root for the hostile twin: texts and names with every escape.
func awkwardRoot(t *testing.T) string {
	dir := t.TempDir()
	var all strings.Builder
	for _, s := range jsontest.Awkward {
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
		tw := newTwin(t, server.Options{Limits: cfg, Policy: briefing.Legacy}, awkwardRoot(t))
		// Handlers that fail as no tool of this server does, for the
		// JSON-RPC errors Server.handle builds as mcp-go would.
		for _, s := range []*server.Server{tw.ref, tw.cur} {
			s.Transport().MCP().AddTool(mcp.Tool{Name: "nil_result"}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, nil
			})
			s.Transport().MCP().AddTool(mcp.Tool{Name: "fails"}, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("failed <here> \u2028")
			})
		}
		call := func(id, tool, args string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
		}
		label, _ := json.Marshal(jsontest.Awkward[2] + jsontest.Awkward[3] + jsontest.Awkward[4])
		text, _ := json.Marshal(jsontest.Awkward[1] + jsontest.Awkward[5] + jsontest.Awkward[6])
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
			assert.Equal(t, l.plain, msg.Plain(), "plain: %s", l.line)
		}
		// Lookups until the step is refused, and after.
		for i := range 8 {
			tw.exchange([]byte(call(strconv.Itoa(100+i), "get_lines", `{"result":"r1","first":1}`)))
		}
		assert.Greater(t, tw.answers, len(lines))
	}
}

// TestPlainCallNeedsNoDispatch checks what Server.handle relies on to run
// a plain tools/call itself: no session carries tools of its own, and no
// tool is a task tool.
func TestPlainCallNeedsNoDispatch(t *testing.T) {
	t.Parallel()
	for _, sess := range []mcpserver.ClientSession{&transport.StdioSession{}, &transport.HTTPSession{}} {
		_, ok := sess.(mcpserver.SessionWithTools)
		assert.False(t, ok, "%T has session tools", sess)
	}
	s := server.New(server.Options{Limits: limits.Defaults()})
	for name, tool := range s.Transport().MCP().ListTools() {
		assert.Nil(t, tool.Tool.Execution, name)
	}
}
