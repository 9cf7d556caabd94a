package perfbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/loom-results/loom-results/internal/replayserver"
)

// A pipeClient is the least a client can do over stdio: write a request
// line and read the answer line, nothing decoded. It is the raw-pipe side
// of the rows against the replay server, where the client costs next to
// nothing and what is left is the server and the pipe.
type pipeClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
	id     int
	req    []byte
	answer []byte
}

// startPipe starts argv and makes the initialize handshake. With rec, every
// request and answer of the session is recorded.
func startPipe(ctx context.Context, argv []string, rec *replayserver.Recorder) (*pipeClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	p := &pipeClient{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	p.in, p.out = in, bufio.NewReaderSize(out, 1<<20)
	if rec != nil {
		p.in, p.out = rec.Writer(in), bufio.NewReaderSize(rec.Reader(out), 1<<20)
	}
	if _, _, err := p.request(ctx, "initialize", `{"protocolVersion":"`+protocolVersion+`","capabilities":{},"clientInfo":{"name":"loom-perf","version":"0.1.0"}}`); err != nil {
		p.close()
		return nil, err
	}
	if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// request sends one request and returns its answer line (valid until the
// next request) and the round trip's time, from the first byte written to
// the last byte read. The answer is checked after the clock stops: the
// same id, and no JSON-RPC error.
func (p *pipeClient) request(ctx context.Context, method, params string) ([]byte, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	p.id++
	p.req = append(p.req[:0], `{"jsonrpc":"2.0","id":`...)
	p.req = strconv.AppendInt(p.req, int64(p.id), 10)
	p.req = append(p.req, `,"method":"`...)
	p.req = append(p.req, method...)
	p.req = append(p.req, `","params":`...)
	p.req = append(p.req, params...)
	p.req = append(p.req, "}\n"...)

	t0 := time.Now()
	if _, err := p.in.Write(p.req); err != nil {
		return nil, 0, fmt.Errorf("%s: writing: %w: %s", method, err, p.stderr.String())
	}
	line, err := p.out.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		p.answer = append(p.answer[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = p.out.ReadSlice('\n')
			p.answer = append(p.answer, line...)
		}
		line = p.answer
	}
	elapsed := time.Since(t0)
	if err != nil {
		return nil, elapsed, fmt.Errorf("%s: reading the answer: %w: %s", method, err, p.stderr.String())
	}
	want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(p.id) + `,`
	if !bytes.HasPrefix(line, []byte(want)) {
		return nil, elapsed, fmt.Errorf("%s: answer %.200s does not start %s", method, line, want)
	}
	if bytes.HasPrefix(line[len(want):], []byte(`"error":`)) {
		return nil, elapsed, fmt.Errorf("%s %s: %.300s", method, params, line)
	}
	return line, elapsed, nil
}

// lookup calls tool with args (a JSON object); an error result is an error.
func (p *pipeClient) lookup(ctx context.Context, tool, args string) (time.Duration, error) {
	line, d, err := p.request(ctx, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
	if err == nil && bytes.Contains(line, []byte(`"isError":true`)) {
		err = fmt.Errorf("tools/call %s %s: error result: %.300s", tool, args, line)
	}
	return d, err
}

// close ends the server by closing its input, and waits for it.
func (p *pipeClient) close() {
	p.in.Close()
	p.cmd.Wait()
}
