package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
)

// The references of the stdio benchmarks: limits the server cannot beat,
// run beside what they bound (go test ./server -run '^$' -bench
// 'Stdio|SHA256').

// BenchmarkSHA256InMemory16MiB is Go's SHA-256 over the 16 MiB of
// BenchmarkStdioInspect16MiB, already in memory: the hashing limit of an
// inspect.
func BenchmarkSHA256InMemory16MiB(b *testing.B) {
	data, _ := sourceFile(16<<20 - 64)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sha256.Sum256(data)
	}
}

// replayOf records s's answers to calls (tool and arguments) and returns a
// session of internal/instruments/replayserver serving them over the same in-memory
// pipes: the same requests, answered with loom's bytes at no cost but the
// transport's.
func replayOf(b *testing.B, s *benchSession, calls ...[2]string) *benchSession {
	b.Helper()
	rec := replayserver.NewRecorder()
	for _, c := range calls {
		req := callLine(s.id+1, c[0], c[1])
		rec.Sent([]byte(req))
		rec.Received(bytes.TrimSuffix(s.Call(c[0], c[1]), []byte("\n")))
	}
	rp, err := replayserver.New(rec.Tape())
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		_ = rp.ServeStdio(inR, outW)
		outW.Close()
		close(done)
	}()
	b.Cleanup(func() { inW.Close(); io.Copy(io.Discard, outR); <-done })
	return &benchSession{b: b, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
}

// callLine is the line benchSession.call writes.
func callLine(id int, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// BenchmarkStdioReplayBeginStep is BenchmarkStdioBeginStep's calls
// answered by the replay server.
func BenchmarkStdioReplayBeginStep(b *testing.B) {
	r := replayOf(b, startBench(b, nil), [2]string{"begin_step", `{}`})
	for b.Loop() {
		r.Call("begin_step", `{}`)
	}
}

// BenchmarkStdioReplayGetLinesNearEnd is BenchmarkStdioGetLinesNearEnd's
// calls answered by the replay server.
func BenchmarkStdioReplayGetLinesNearEnd(b *testing.B) {
	data, lines := sourceFile(16<<20 - 64)
	s := startBench(b, map[string][]byte{"big.go": data})
	s.Call("inspect", `{"paths":["big.go"]}`)
	args := fmt.Sprintf(`{"result":"r1","first":%d,"last":%d}`, lines-25, lines-6)
	r := replayOf(b, s, [2]string{"get_lines", args})
	for b.Loop() {
		r.Call("get_lines", args)
	}
}

// BenchmarkStdioReplayGetRangeNearEnd is BenchmarkStdioGetRangeNearEnd's
// calls answered by the replay server.
func BenchmarkStdioReplayGetRangeNearEnd(b *testing.B) {
	data, lines := sourceFile(16<<20 - 64)
	s := startBench(b, map[string][]byte{"big.go": data})
	s.Call("inspect", `{"paths":["big.go"]}`)
	lineLen := len(data) / lines
	args := fmt.Sprintf(`{"result":"r1","start":%d,"end":%d}`, (lines-25)*lineLen, (lines-5)*lineLen)
	r := replayOf(b, s, [2]string{"get_range", args})
	for b.Loop() {
		r.Call("get_range", args)
	}
}

// BenchmarkStdioReplayListResults1024 is BenchmarkStdioListResults1024's
// calls answered by the replay server.
func BenchmarkStdioReplayListResults1024(b *testing.B) {
	s := startBench(b, nil)
	for i := range 1024 {
		s.Call("retain_output", `{"label":"run `+strconv.Itoa(i)+`","text":"ok `+strconv.Itoa(i)+`\n"}`)
	}
	pages := []string{`{"page":0}`, `{"page":31}`, `{"page":63}`}
	var calls [][2]string
	for _, p := range pages {
		calls = append(calls, [2]string{"list_results", p})
	}
	r := replayOf(b, s, calls...)
	i := 0
	for b.Loop() {
		r.Call("list_results", pages[i%len(pages)])
		i++
	}
}
