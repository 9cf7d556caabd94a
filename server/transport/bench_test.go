package transport_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// BenchmarkHandleGetLines is the server's own cost of a warm lookup, in
// process, without pipes: a get_lines of 20 lines near the end of a
// 16 MiB result read (ReadMessage), answered by one session (the dispatch,
// the tool) and encoded (AppendMessage). "meta" adds _meta to params, as a
// client of the 2026-07-28 era does (the answer is decorated): the same
// path, which once went through mcp-go's HandleMessage.
func BenchmarkHandleGetLines(b *testing.B) {
	var sb strings.Builder
	lines := 0
	for sb.Len() < 16<<20-64 {
		fmt.Fprintf(&sb, "\tx%07d := compute(a, b) // note é\n", lines)
		lines++
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	cfg := limits.Defaults()
	cfg.MaxLookups, cfg.MaxStepBytes = 1<<62, 1<<62
	sess := server.New(server.Options{Limits: cfg, Policy: briefing.Legacy, Root: root}).Transport().StdioContext(b)
	handle := func(line string) []byte {
		msg, bad := transport.ReadMessage([]byte(line))
		if bad != nil {
			b.Fatal(bad.Error.Message)
		}
		out, err := transport.AppendMessage(nil, sess.Handle(msg))
		if err != nil || strings.Contains(string(out), `"isError":true`) {
			b.Fatalf("%v: %s", err, out)
		}
		return out
	}
	handle(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["big.go"]}}}`)
	args := fmt.Sprintf(`{"result":"r1","first":%d,"last":%d}`, lines-25, lines-6)
	for _, tt := range []struct{ name, meta string }{
		{"plain", ""},
		{"meta", `,"_meta":{}`},
		{"2026-07-28", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`},
	} {
		line := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_lines","arguments":` + args + tt.meta + `}}`
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				handle(line)
			}
		})
	}
}
