package conformance

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

// binary is the loom-results executable that TestMain builds once.
var binary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "loom-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = loombin.Build(context.Background(), dir); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	return m.Run()
}

// The workspace every session reads. notes has a quote and a tab, so its
// escaped size differs from its UTF-8 size, and no final newline; data keeps
// a number that float64 cannot hold.
const (
	notes = "alpha: the first line\n" +
		"beta: \"quoted\"\ttabbed\n" +
		"gamma: third line\n" +
		"delta: fourth line\n" +
		"epsilon: fifth, no newline"
	data = `{"version": 1.000000000000000000001, "nested": {"name": "loom", "list": [1, 2, 3]}}` + "\n"
)

// Limit flags of the sessions, small enough to run out of in a few calls.
var flags = []string{
	"--max-lookups", "3",
	"--max-lookup-bytes", "4096",
	"--max-step-bytes", "2048",
	"--max-results", "10",
	"--preview-bytes", "64",
	"--page-size", "4",
}

// wantLimits is begin_step's "limits" for flags, the other limits at their
// SPEC section 2 defaults.
var wantLimits = map[string]int64{
	"max_lookups":      3,
	"max_lookup_bytes": 4096,
	"max_step_bytes":   2048,
	"max_expand_bytes": 16777216,
	"max_result_bytes": 16777216,
	"max_store_bytes":  67108864,
	"max_results":      10,
	"preview_bytes":    64,
	"page_size":        4,
}

// wantTools are the tools of SPEC section 5.
var wantTools = []string{"inspect", "find", "get_lines", "get_range", "get_json", "list_results", "expand_edit", "retain_output", "begin_step"}

// TestE2E drives the real binary with the official Go SDK's client over
// stdio, once per handshake era of SPEC section 2.
func TestE2E(t *testing.T) {
	// The SDK's default era is the 2026-07-28 server/discover one; if a newer
	// SDK changes that, the discover case below no longer tests what it says.
	require.Equal(t, "2026-07-28", mcp.SupportedProtocolVersions()[0], "the go-sdk's latest (default) protocol version")

	tests := []struct {
		name        string
		opts        *mcp.ClientSessionOptions
		wantVersion string
		wantMethod  string // the first method the client sends
	}{
		{
			// A version before 2026-07-28 makes the SDK skip server/discover
			// and use the initialize handshake.
			name:        "initialize_2025-11-25",
			opts:        &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"},
			wantVersion: "2025-11-25",
			wantMethod:  "initialize",
		},
		{
			// The SDK's default: server/discover, then a per-request _meta.
			// The SDK silently falls back to initialize when discover fails,
			// so the negotiated version and the wire both are checked.
			name:        "discover_2026-07-28",
			opts:        nil,
			wantVersion: "2026-07-28",
			wantMethod:  "server/discover",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			walk(t, tt.opts, tt.wantVersion, tt.wantMethod)
		})
	}
}

// walk runs one session: tools/list, inspect, lookups until the step is
// refused, begin_step and one more lookup.
func walk(t *testing.T, opts *mcp.ClientSessionOptions, wantVersion, wantMethod string) {
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(notes), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "data.json"), []byte(data), 0o644))

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	var stderr, wire syncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("wire:\n%s", wire.String())
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	cmd := exec.Command(binary, append([]string{"--root", ws}, flags...)...)
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "loom-conformance", Version: "0.0.1"}, nil)
	cs, err := client.Connect(ctx, &mcp.LoggingTransport{
		Transport: &mcp.CommandTransport{Command: cmd},
		Writer:    &wire,
	}, opts)
	require.NoError(t, err)
	// On an early failure, still end the server; the last step closes it
	// and checks its exit status.
	t.Cleanup(func() { _ = cs.Close() })

	t.Run("handshake", func(t *testing.T) {
		hello := cs.InitializeResult()
		require.NotNil(t, hello)
		assert.Equal(t, wantVersion, hello.ProtocolVersion)
		require.NotNil(t, hello.ServerInfo)
		assert.Equal(t, "loom-results", hello.ServerInfo.Name)
		// One version: what --version prints is what the handshake says.
		out, err := exec.Command(binary, "--version").Output()
		require.NoError(t, err)
		assert.Equal(t, "loom-results "+hello.ServerInfo.Version+"\n", string(out))
		assert.Regexp(t, `^v\d+\.\d+\.\d+`, hello.ServerInfo.Version)
		require.NotNil(t, hello.Capabilities)
		assert.NotNil(t, hello.Capabilities.Tools)
		sent := wire.sent()
		require.NotEmpty(t, sent)
		assert.Equal(t, wantMethod, sent[0].Method)
		if wantMethod == "server/discover" {
			for _, m := range sent {
				assert.NotEqual(t, "initialize", m.Method, "the client fell back to initialize")
			}
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		var got []string
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
			a := tool.Annotations
			if !assert.NotNil(t, a, "%s has no annotations", tool.Name) {
				continue
			}
			assert.True(t, a.ReadOnlyHint, "%s readOnlyHint", tool.Name)
			if assert.NotNil(t, a.DestructiveHint, "%s destructiveHint", tool.Name) {
				assert.False(t, *a.DestructiveHint, "%s destructiveHint", tool.Name)
			}
			if assert.NotNil(t, a.OpenWorldHint, "%s openWorldHint", tool.Name) {
				assert.False(t, *a.OpenWorldHint, "%s openWorldHint", tool.Name)
			}
		}
		assert.ElementsMatch(t, wantTools, got)

		// The SDK reads an absent readOnlyHint or idempotentHint as false, so
		// their presence is checked on the wire.
		raw := wire.toolsListed()
		require.Len(t, raw, len(wantTools))
		for _, tool := range raw {
			for hint, want := range map[string]string{
				"readOnlyHint":    "true",
				"destructiveHint": "false",
				"openWorldHint":   "false",
				"idempotentHint":  "",
			} {
				got, ok := tool.Annotations[hint]
				if !assert.True(t, ok, "%s: annotation %s missing", tool.Name, hint) {
					continue
				}
				if want == "" {
					assert.Contains(t, []string{"true", "false"}, string(got), "%s %s", tool.Name, hint)
				} else {
					assert.Equal(t, want, string(got), "%s %s", tool.Name, hint)
				}
			}
		}
	})

	notesSum := hexSHA256(notes)
	dataSum := hexSHA256(data)

	t.Run("inspect", func(t *testing.T) {
		res := call(ctx, t, cs, "inspect", map[string]any{"paths": []string{"notes.txt", "data.json"}})
		require.False(t, res.IsError, text(t, res))
		got := structured[struct {
			Results []descriptor `json:"results"`
		}](t, res)
		require.Len(t, got.Results, 2)

		n := got.Results[0]
		require.NotNil(t, n.ID)
		assert.Equal(t, "r1", *n.ID)
		assert.Equal(t, notesSum, n.SHA256)
		assert.Equal(t, int64(len(notes)), n.Bytes)
		assert.Equal(t, int64(5), n.Lines)
		assert.True(t, n.Complete)
		assert.Equal(t, map[string]any{"kind": "file", "path": "notes.txt"}, n.Source)
		assert.Nil(t, n.JSON)
		assert.Equal(t, notes[:64], n.Preview)
		assert.False(t, n.PreviewComplete)
		assert.False(t, n.Reused)
		assert.True(t, n.Retained)

		d := got.Results[1]
		require.NotNil(t, d.ID)
		assert.Equal(t, "r2", *d.ID)
		assert.Equal(t, dataSum, d.SHA256)
		assert.Equal(t, int64(len(data)), d.Bytes)
		assert.Equal(t, int64(1), d.Lines)
		assert.True(t, d.Complete)
		assert.Equal(t, map[string]any{"kind": "file", "path": "data.json"}, d.Source)
		if assert.NotNil(t, d.JSON) {
			assert.Equal(t, "object", *d.JSON)
		}
		assert.Equal(t, data[:64], d.Preview)
		assert.False(t, d.PreviewComplete)

		// The text shows each digest by its first 12 hex digits only.
		txt := text(t, res)
		assert.Contains(t, txt, "r1")
		assert.Contains(t, txt, "r2")
		assert.Contains(t, txt, notesSum[:12])
		assert.Contains(t, txt, dataSum[:12])
		assert.NotContains(t, txt, notesSum)
		assert.NotContains(t, txt, dataSum)
	})

	// bytesUsed follows the step's escaped bytes across its lookups.
	var bytesUsed int64
	lookup := func(t *testing.T, c lookupCase) {
		t.Helper()
		res := call(ctx, t, cs, c.tool, c.args)
		require.False(t, res.IsError, text(t, res))
		assert.Equal(t, c.want, text(t, res))
		got := structured[selectionAnswer](t, res)
		assert.Equal(t, c.args["result"], got.Result)
		assert.Equal(t, c.sha256, got.SHA256)
		assert.JSONEq(t, c.selection, string(got.Selection))
		assert.Equal(t, c.want, got.Text)
		assert.Equal(t, int64(len(c.want)), got.Bytes)
		assert.Equal(t, EscapedLen(c.want), got.EscapedBytes)
		assert.Equal(t, c.typ, got.Type)
		bytesUsed += EscapedLen(c.want)
		assert.Equal(t, budget{
			Step:            c.step,
			LookupsUsed:     c.lookups,
			LookupsLeft:     3 - c.lookups,
			BytesUsed:       bytesUsed,
			BytesLeft:       2048 - bytesUsed,
			ExpandBytesUsed: 0,
			ExpandBytesLeft: 16777216,
			Refused:         false,
		}, got.Budget)
	}

	t.Run("get_lines", func(t *testing.T) {
		lookup(t, lookupCase{
			tool:      "get_lines",
			args:      map[string]any{"result": "r1", "sha256": notesSum[:12], "first": 2, "last": 3},
			want:      "beta: \"quoted\"\ttabbed\ngamma: third line\n",
			sha256:    notesSum,
			selection: `{"first":2,"last":3}`,
			step:      1, lookups: 1,
		})
	})

	t.Run("get_json", func(t *testing.T) {
		lookup(t, lookupCase{
			tool:      "get_json",
			args:      map[string]any{"result": "r2", "pointer": "/version"},
			want:      "1.000000000000000000001",
			sha256:    dataSum,
			selection: `{"pointer":"/version","as":"lexeme"}`,
			typ:       "number",
			step:      1, lookups: 2,
		})
		// An upper-case full digest and the URI-fragment pointer form.
		lookup(t, lookupCase{
			tool:      "get_json",
			args:      map[string]any{"result": "r2", "sha256": strings.ToUpper(dataSum), "pointer": "#/nested"},
			want:      `{"name": "loom", "list": [1, 2, 3]}`,
			sha256:    dataSum,
			selection: `{"pointer":"/nested","as":"lexeme"}`,
			typ:       "object",
			step:      1, lookups: 3,
		})
	})

	refused := func(t *testing.T, args map[string]any, tool, wantCode string, lookups int64) {
		t.Helper()
		res := call(ctx, t, cs, tool, args)
		require.True(t, res.IsError, text(t, res))
		txt := text(t, res)
		assert.True(t, strings.HasPrefix(txt, "error "+wantCode+": "), "text %q", txt)
		assert.NotContains(t, txt, "\n")
		got := structured[errorAnswer](t, res)
		assert.Equal(t, wantCode, got.Error.Code)
		assert.NotEmpty(t, got.Error.Message)
		require.NotNil(t, got.Budget)
		assert.Equal(t, budget{
			Step:            1,
			LookupsUsed:     lookups,
			LookupsLeft:     0,
			BytesUsed:       bytesUsed,
			BytesLeft:       2048 - bytesUsed,
			ExpandBytesUsed: 0,
			ExpandBytesLeft: 16777216,
			Refused:         true,
		}, *got.Budget)
	}

	t.Run("lookup_limit", func(t *testing.T) {
		refused(t, map[string]any{"result": "r1", "first": 1}, "get_lines", "lookup_limit", 4)
	})

	t.Run("step_refused", func(t *testing.T) {
		refused(t, map[string]any{"result": "r2", "pointer": ""}, "get_json", "step_refused", 5)
	})

	t.Run("begin_step", func(t *testing.T) {
		res := call(ctx, t, cs, "begin_step", map[string]any{})
		require.False(t, res.IsError, text(t, res))
		got := structured[struct {
			Step   int64            `json:"step"`
			Limits map[string]int64 `json:"limits"`
		}](t, res)
		assert.Equal(t, int64(2), got.Step)
		assert.Equal(t, wantLimits, got.Limits)
	})

	t.Run("lookup_after_begin_step", func(t *testing.T) {
		bytesUsed = 0
		lookup(t, lookupCase{
			tool:      "get_lines",
			args:      map[string]any{"result": "r1", "first": 5},
			want:      "epsilon: fifth, no newline",
			sha256:    notesSum,
			selection: `{"first":5,"last":5}`,
			step:      2, lookups: 1,
		})
	})

	require.NoError(t, cs.Close(), "the server should exit with status 0 at end of input")
}

// lookupCase is one successful selection lookup and what it returns.
type lookupCase struct {
	tool      string
	args      map[string]any
	want      string // the selection: the text content and structured text
	sha256    string // the result's full digest
	selection string // the structured selection, as JSON
	typ       string // get_json's type
	step      int64  // the budget's step after the call
	lookups   int64  // the budget's lookups_used after the call
}

// descriptor is SPEC section 3's descriptor, every field of the legacy
// context.
type descriptor struct {
	ID              *string        `json:"id"`
	SHA256          string         `json:"sha256"`
	Bytes           int64          `json:"bytes"`
	Lines           int64          `json:"lines"`
	Complete        bool           `json:"complete"`
	Source          map[string]any `json:"source"`
	JSON            *string        `json:"json"`
	Preview         string         `json:"preview"`
	PreviewComplete bool           `json:"preview_complete"`
	Reused          bool           `json:"reused"`
	Retained        bool           `json:"retained"`
}

// budget is SPEC section 6's budget.
type budget struct {
	Step            int64 `json:"step"`
	LookupsUsed     int64 `json:"lookups_used"`
	LookupsLeft     int64 `json:"lookups_left"`
	BytesUsed       int64 `json:"bytes_used"`
	BytesLeft       int64 `json:"bytes_left"`
	ExpandBytesUsed int64 `json:"expand_bytes_used"`
	ExpandBytesLeft int64 `json:"expand_bytes_left"`
	Refused         bool  `json:"refused"`
}

// selectionAnswer is the structured content of a selection lookup (SPEC
// section 5); Type is get_json's.
type selectionAnswer struct {
	Result       string          `json:"result"`
	SHA256       string          `json:"sha256"`
	Selection    json.RawMessage `json:"selection"`
	Text         string          `json:"text"`
	Bytes        int64           `json:"bytes"`
	EscapedBytes int64           `json:"escaped_bytes"`
	Type         string          `json:"type"`
	Budget       budget          `json:"budget"`
}

// errorAnswer is the structured content of an error (SPEC section 8).
type errorAnswer struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Limit   *int64 `json:"limit"`
	} `json:"error"`
	Budget *budget `json:"budget"`
}

// call calls a tool and fails the test on a protocol error.
func call(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tools/call %s", name)
	return res
}

// text returns the one text content of res.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T, want text", res.Content[0])
	return tc.Text
}

// structured decodes res's structured content into T, failing on any member
// that T does not name: the shapes are exact.
func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	require.NotNil(t, res.StructuredContent)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var v T
	require.NoError(t, dec.Decode(&v), "structured content %s", b)
	return v
}

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// syncBuffer collects what the server writes to stderr and what
// mcp.LoggingTransport records of the wire, from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// wireMessage is one JSON-RPC message as LoggingTransport recorded it.
type wireMessage struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
}

// messages returns the recorded messages whose log lines start with prefix
// ("write: " for the client's, "read: " for the server's).
func (b *syncBuffer) messages(prefix string) []wireMessage {
	var out []wireMessage
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		var m wireMessage
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// sent returns the messages the client wrote.
func (b *syncBuffer) sent() []wireMessage { return b.messages("write: ") }

// rawTool is a tool of a tools/list result as the server wrote it.
type rawTool struct {
	Name        string                     `json:"name"`
	Annotations map[string]json.RawMessage `json:"annotations"`
}

// toolsListed returns the tools of the last tools/list result read.
func (b *syncBuffer) toolsListed() []rawTool {
	var tools []rawTool
	for _, m := range b.messages("read: ") {
		var r struct {
			Tools []rawTool `json:"tools"`
		}
		if json.Unmarshal(m.Result, &r) == nil && r.Tools != nil {
			tools = r.Tools
		}
	}
	return tools
}
