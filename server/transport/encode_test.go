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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/jsontest"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// encSession runs one session of a server, one message at a time, and
// holds every answer and notification to the encoder's contract:
// AppendMessage writes the bytes that json.Marshal writes.
type encSession struct {
	t       testing.TB
	limit   int64
	sess    *transport.TestSession
	answers int // answers compared
}

func newEncSession(t testing.TB, opts server.Options, dir string, extra ...transport.Tool) *encSession {
	t.Helper()
	root, err := workspace.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	opts.Root = root
	tr := server.New(opts).Transport()
	if len(extra) > 0 {
		tr = tr.WithTools(extra...)
	}
	return &encSession{t: t, limit: opts.Limits.MaxMessageBytes, sess: tr.StdioContext(t)}
}

// exchange answers line and checks how its answer and notifications
// encode; it returns the message as readMessage took it.
func (es *encSession) exchange(line []byte) transport.Inbound {
	es.t.Helper()
	if int64(len(line)) > es.limit {
		es.same(transport.Oversize(int64(len(line)), es.limit), line)
		return transport.Inbound{}
	}
	msg, bad := transport.ReadMessage(line)
	if bad != nil {
		es.same(*bad, line)
		es.same(bad, line) // the HTTP transport writes the pointer
		return msg
	}
	if msg.Response() {
		return msg
	}
	resp := es.sess.Handle(msg)
	for _, n := range es.sess.Notes() {
		es.same(n, line)
	}
	if resp != nil {
		es.same(resp, line)
	}
	return msg
}

// same requires AppendMessage(v), after nothing and after a prefix, to be
// json.Marshal(v).
func (es *encSession) same(v any, line []byte) {
	es.t.Helper()
	want, err := json.Marshal(v)
	require.NoError(es.t, err)
	got, err := transport.AppendMessage(nil, v)
	require.NoError(es.t, err)
	require.Equal(es.t, string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)), "answer to %s", line)
	got, err = transport.AppendMessage([]byte("prefix"), v)
	require.NoError(es.t, err)
	require.Equal(es.t, "prefix"+string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)), "answer to %s", line)
	es.answers++
}

// TestEncodeConformanceScripts replays every conformance script's client
// messages and holds each answer to the encoder's contract: every tool,
// success and error, budgets, stores full, handshakes of both protocol
// eras, protocol faults.
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
			stepGap := fs.Duration("step-gap", 0, "")
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
			es := newEncSession(t, server.Options{Limits: cfg, Policy: briefing.Policy(*policy), Steps: limits.Steps(*steps), StepGap: *stepGap, Answers: server.Answers(*answers), Write: *write, Run: run}, *root)
			for _, line := range sc.client {
				es.exchange(bytes.ReplaceAll(line, []byte("$ROOT"), []byte(dir)))
			}
			total += es.answers
		})
	}
	t.Logf("%d answers compared", total)
}

// script is what the encoder's test needs of a conformance script (the format is
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
			// A "wait D" line (a pause between turns, conformance.Script)
			// is no message.
			var msgs []byte
			for line := range strings.Lines(string(body)) {
				if !strings.HasPrefix(strings.TrimSpace(line), "wait ") {
					msgs = append(msgs, line...)
				}
			}
			dec := json.NewDecoder(bytes.NewReader(msgs))
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

// awkwardRoot is a root for the hostile messages: texts and names with every escape.
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

// TestEncodeHostileMessages sends messages around every edge of the
// envelope and of the encoder: ids of every form, envelopes of every
// shape, awkward texts in answers and errors.
func TestEncodeHostileMessages(t *testing.T) {
	t.Parallel()
	for _, cfg := range []limits.Config{limits.Defaults(), func() limits.Config {
		c := limits.Defaults()
		c.MaxLookups, c.MaxStepBytes, c.PageSize, c.PreviewBytes = 6, 2000, 2, 5
		return c
	}()} {
		// Handlers that fail as no tool of this server does, for the
		// JSON-RPC errors the dispatch builds.
		es := newEncSession(t, server.Options{Limits: cfg, Policy: briefing.Legacy}, awkwardRoot(t),
			transport.Tool{Tool: mcp.Tool{Name: "nil_result"}, Handler: func(context.Context, transport.Call) (*mcp.CallToolResult, error) {
				return nil, nil
			}},
			transport.Tool{Tool: mcp.Tool{Name: "fails"}, Handler: func(context.Context, transport.Call) (*mcp.CallToolResult, error) {
				return nil, errors.New("failed <here> \u2028")
			}})
		call := func(id, tool, args string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
		}
		label, _ := json.Marshal(jsontest.Awkward[2] + jsontest.Awkward[3] + jsontest.Awkward[4])
		text, _ := json.Marshal(jsontest.Awkward[1] + jsontest.Awkward[5] + jsontest.Awkward[6])
		lines := []string{
			call("0", "begin_step", `{}`), // before initialize
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"twin","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":5,"method":"no/such"}`,
			call("6", "inspect", `{"paths":["all.txt","a<b>&c\u2028d.txt","empty.txt","doc.json","big.txt","newline-free.txt","escape\\quote\".go","missing<>.txt","../out"]}`),
			call("7", "get_range", `{"result":"r1"}`),
			call("8", "get_lines", `{"result":"r1","first":1,"last":4}`),
			call("9", "get_lines", `{"result":"r5","first":2990}`),
			call("10", "get_range", `{"result":"r3","start":0,"end":0}`),
			call("11", "get_json", `{"result":"r4","pointer":"/s"}`),
			call("12", "get_json", `{"result":"r4","pointer":"/s","as":"string"}`),
			call("13", "get_json", `{"result":"r4","pointer":"/n/3"}`),
			call("14", "get_json", `{"result":"r4","pointer":"/nope<>"}`),
			call("15", "find", `{"result":"r1","pattern":"<"}`),
			call("16", "find", `{"result":"r5","pattern":"x.*é","regex":true,"max_matches":3}`),
			call("17", "begin_step", `{}`),
			call("18", "list_results", `{}`),
			call("19", "list_results", `{"page":1,"page_size":1}`),
			call("20", "list_results", `{"page":99}`),
			call("21", "retain_output", `{"label":`+string(label)+`,"text":`+string(text)+`,"exit_code":-3,"timed_out":true,"dropped_bytes":7}`),
			call("22", "retain_output", `{"label":"ok","text":"done\n","complete":true}`),
			call("23", "retain_output", `{"label":"bad","text":"\udc00"}`),
			call("24", "expand_edit", `{"arguments":{"path":"a<b>.txt","content":{"$compose":["x<\u2028", {"result":"r1","lines":[1,2]}]}, "n" : [ 1 , 2 ]}}`),
			call("25", "expand_edit", `{"arguments":{"content":{"$compose":[{"result":"r99"}]}}}`),
			call("26", "get_range", `{"result":"r1","start":1,"end":0}`),
			call("27", "get_range", `{"result":"r1","sha256":"000000000000"}`),
			call("28", "get_lines", `{"result":"r1","first":1,"extra":true}`),
			call("29", "begin_step", `{"x":1}`),
			// ids of every form
			call(`"a<b>&\u2028c\"d\\e"`, "begin_step", `{}`),
			call("\"é\u2028\"", "begin_step", `{}`),
			call(`""`, "begin_step", `{}`),
			call(`1.5`, "begin_step", `{}`),
			call(`-0`, "begin_step", `{}`),
			call(`1e21`, "begin_step", `{}`),
			call(`1E2`, "begin_step", `{}`),
			call(`1e-7`, "begin_step", `{}`),
			call(`0.000001`, "begin_step", `{}`),
			call(`123456789012345678901`, "begin_step", `{}`),
			call(`-9007199254740993`, "begin_step", `{}`),
			call(`5e-324`, "begin_step", `{}`),
			call(`1e400`, "begin_step", `{}`),
			call(`"\ud800"`, "begin_step", `{}`),
			call(`null`, "begin_step", `{}`),
			call(`true`, "begin_step", `{}`),
			// envelopes
			`{ "params" : { "arguments" : { } , "name" : "begin_step" } , "method" : "tools/call" , "id" : 40 , "jsonrpc" : "2.0" }`,
			`{"jsonrpc":"2\u002e0","id":41,"method":"tools\/call","params":{"name":"begin\u005fstep","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"begin_step"}}`,
			call("43", "begin_step", `null`),
			call("44", "begin_step", `[]`),
			call("45", "begin_step", `"x"`),
			call("46", "nope", `{}`),
			call("47", "", `{}`),
			call(`"nil"`, "nil_result", `{}`),
			call(`"fails"`, "fails", `{}`),
			`{"jsonrpc":"1.0","id":48,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
			`{"id":49,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":50,"id":51,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":53,"ID":54,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":55,"method":"tools/call","Method":"ping","params":{"name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":56,"method":"tools/call","params":{"name":"begin_step","arguments":{}},"extra":1}`,
			`{"jsonrpc":"2.0","id":57,"method":"tools/call","params":{"name":"begin_step","arguments":{},"_meta":{"progressToken":1}}}`,
			`{"jsonrpc":"2.0","id":58,"method":"tools/call","params":{"name":"begin_step","arguments":{},"_META":{"progressToken":1}}}`,
			`{"jsonrpc":"2.0","id":59,"method":"tools/call","params":{"Name":"nope","name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"begin_step","name":"get_lines","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":7,"arguments":{}}}`,
			`{"jsonrpc":"2.0","id":62,"method":"tools/call","params":{"name":"begin_step","arguments":{},"arguments":{"x":1}}}`,
			`{"jsonrpc":"2.0","id":63,"method":"tools/call","params":{"name":"begin_step","arguments":{},"task":{}}}`,
			`{"jsonrpc":"2.0","id":64,"method":"tools/call","params":[1]}`,
			`{"jsonrpc":"2.0","id":65,"method":"tools/call"}`,
			`{"jsonrpc":"2.0","id":66,"method":"tools/call","params":{"name":"begin\ud800","arguments":{}}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":67,\"method\":\"tools/call\",\"params\":{\"name\":\"begin\xffstep\",\"arguments\":{}}}",
			`{"jsonrpc":"2.0","id":68,"method":"tools/call","params":{"name":"begin_step","arguments":{}},"result":{}}`,
			`{"jsonrpc":"2.0","id":69,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","id":70,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":71,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":72,"result":{}}`,
			`[{"jsonrpc":"2.0","id":73,"method":"ping"}]`,
			`{not json`,
			`"just a string"`,
			`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
			`{"jsonrpc":"2.0","id":"<74>","method":""}`,
		}
		for _, l := range lines {
			es.exchange([]byte(l))
		}
		// Lookups until the step is refused, and after.
		for i := range 8 {
			es.exchange([]byte(call(strconv.Itoa(100+i), "get_lines", `{"result":"r1","first":1}`)))
		}
		assert.Greater(t, es.answers, len(lines))
	}
}
