package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// benchSession is a client of ServeStdio over in-memory pipes, for
// benchmarks: every call is one JSON-RPC line written and one read, the real
// stdio loop without a process.
type benchSession struct {
	b   *testing.B
	in  *io.PipeWriter
	out *bufio.Reader
	id  int
}

// startBench serves a briefing whose root holds files, with the step caps
// lifted so that the loop needs no begin_step between lookups.
func startBench(b *testing.B, files map[string][]byte) *benchSession {
	b.Helper()
	dir := b.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	cfg := limits.Defaults()
	cfg.MaxLookups = 1 << 62
	cfg.MaxStepBytes = 1 << 62
	s := New(Options{Limits: cfg, Policy: briefing.Legacy, Root: root})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		_ = s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		close(done)
	}()
	b.Cleanup(func() { inW.Close(); io.Copy(io.Discard, outR); <-done })
	sess := &benchSession{b: b, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	sess.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return sess
}

// roundTrip writes one line and returns the answer line.
func (s *benchSession) roundTrip(line string) []byte {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.b.Fatal(err)
	}
	resp, err := s.out.ReadBytes('\n')
	if err != nil {
		s.b.Fatal(err)
	}
	return resp
}

// call makes a tools/call and fails the benchmark on an error answer.
func (s *benchSession) Call(tool, args string) []byte {
	s.id++
	resp := s.roundTrip(`{"jsonrpc":"2.0","id":` + strconv.Itoa(s.id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
	if bytes.Contains(resp, []byte(`"isError":true`)) || bytes.Contains(resp, []byte(`"error":{"code":-`)) {
		s.b.Fatalf("%s %s: %s", tool, args, resp[:min(len(resp), 400)])
	}
	return resp
}

// sourceFile returns a source-like file of 40-byte lines of at least size
// bytes, and its line count.
func sourceFile(size int) ([]byte, int) {
	var sb strings.Builder
	lines := 0
	for sb.Len() < size {
		fmt.Fprintf(&sb, "\tx%07d := compute(a, b) // note é\n", lines)
		lines++
	}
	return []byte(sb.String()), lines
}

// BenchmarkStdioBeginStep is the floor: the cheapest call over the stdio
// loop.
func BenchmarkStdioBeginStep(b *testing.B) {
	s := startBench(b, nil)
	for b.Loop() {
		s.Call("begin_step", `{}`)
	}
}

// BenchmarkStdioInspect16MiB is inspect of a 16 MiB file over the stdio
// loop. After the first, each inspect still reads, hashes and checks the
// file, then finds it retained (reused), so the store never fills.
func BenchmarkStdioInspect16MiB(b *testing.B) {
	data, _ := sourceFile(16<<20 - 64)
	s := startBench(b, map[string][]byte{"big.go": data})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s.Call("inspect", `{"paths":["big.go"]}`)
	}
}

// BenchmarkStdioGetLinesNearEnd is a warm get_lines of 20 lines near the end
// of a 16 MiB result, over the stdio loop.
func BenchmarkStdioGetLinesNearEnd(b *testing.B) {
	data, lines := sourceFile(16<<20 - 64)
	s := startBench(b, map[string][]byte{"big.go": data})
	s.Call("inspect", `{"paths":["big.go"]}`)
	args := fmt.Sprintf(`{"result":"r1","first":%d,"last":%d}`, lines-25, lines-6)
	for b.Loop() {
		s.Call("get_lines", args)
	}
}

// BenchmarkStdioGetRangeNearEnd is a warm get_range of 20 lines' bytes near
// the end of a 16 MiB result, over the stdio loop.
func BenchmarkStdioGetRangeNearEnd(b *testing.B) {
	data, lines := sourceFile(16<<20 - 64)
	s := startBench(b, map[string][]byte{"big.go": data})
	s.Call("inspect", `{"paths":["big.go"]}`)
	lineLen := len(data) / lines
	args := fmt.Sprintf(`{"result":"r1","start":%d,"end":%d}`, (lines-25)*lineLen, (lines-5)*lineLen)
	for b.Loop() {
		s.Call("get_range", args)
	}
}

// BenchmarkStdioListResults1024 lists a 16-entry page of a catalogue of
// 1,024 results over the stdio loop.
func BenchmarkStdioListResults1024(b *testing.B) {
	s := startBench(b, nil)
	for i := range 1024 {
		s.Call("retain_output", `{"label":"run `+strconv.Itoa(i)+`","text":"ok `+strconv.Itoa(i)+`\n"}`)
	}
	pages := []string{`{"page":0}`, `{"page":31}`, `{"page":63}`}
	i := 0
	for b.Loop() {
		s.Call("list_results", pages[i%len(pages)])
		i++
	}
}

// BenchmarkEncodeAnswer encodes typical answers with transport.AppendMessage and, for
// comparison, json.Marshal (what the transports used before): a 20-line
// selection, a 16-entry list_results page and begin_step.
func BenchmarkEncodeAnswer(b *testing.B) {
	data, _ := sourceFile(20 * 40)
	snap := limits.Snapshot{Step: 3, LookupsUsed: 1, LookupsLeft: 15, BytesUsed: 900, BytesLeft: 100000, ExpandBytesLeft: 1 << 20}
	// Escaped and measured in one pass, as every lookup's selection is.
	quoted, escaped := limits.AppendMeasured(nil, string(data))
	sel := &briefing.Selection{Result: new("r1"), SHA256: strings.Repeat("0a", 32), Selection: briefing.ByteSelection{Start: 16776000, End: 16776800},
		Text: string(data), Bytes: int64(len(data)), EscapedBytes: escaped, Budget: snap, Quoted: quoted}
	page := &briefing.Page{Pages: 64, Total: 1024, Budget: snap}
	for i := range 16 {
		id, label, exit := "r"+strconv.Itoa(i+1), "go test ./... run "+strconv.Itoa(i), int64(1)
		page.Results = append(page.Results, results.Descriptor{ID: &id, SHA256: strings.Repeat("9f", 32), Bytes: 8, Lines: 1,
			Source: results.Source{Kind: results.KindOutput, Label: &label, ExitCode: new(&exit)}, Retained: true})
	}
	next := int64(1)
	page.Next = &next
	text, err := json.Marshal(page)
	if err != nil {
		b.Fatal(err)
	}
	answers := []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"selection", success(sel.Text, sel)},
		{"list", success(string(text), page)},
		{"step", success("step 3", stepAnswer{3, limits.Defaults().Step()})},
	}
	for _, a := range answers {
		msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(float64(7)), a.res)
		b.Run(a.name+"/append", func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				buf, _ = transport.AppendMessage(buf[:0], msg)
			}
			b.SetBytes(int64(len(buf)))
		})
		b.Run(a.name+"/marshal", func(b *testing.B) {
			var n int
			for b.Loop() {
				out, _ := json.Marshal(msg)
				n = len(out)
			}
			b.SetBytes(int64(n))
		})
	}
}

// BenchmarkStdioToolsList is tools/list over the stdio loop: what a client
// asks once, right after the handshake.
func BenchmarkStdioToolsList(b *testing.B) {
	s := startBench(b, nil)
	for b.Loop() {
		s.id++
		if resp := s.roundTrip(`{"jsonrpc":"2.0","id":` + strconv.Itoa(s.id) + `,"method":"tools/list"}`); !bytes.Contains(resp, []byte(`"expand_edit"`)) {
			b.Fatalf("tools/list: %s", resp[:min(len(resp), 400)])
		}
	}
}
