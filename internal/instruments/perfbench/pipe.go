package perfbench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
)

// A pipeClient is the least a client can do over stdio: write a request
// line and read the answer line, nothing decoded (stdioclient). It is the
// raw-pipe side of the rows against the replay server, where the client
// costs next to nothing and what is left is the server and the pipe.
type pipeClient struct {
	p *stdioclient.Process
}

// startPipe starts argv and makes the initialize handshake. With rec, every
// request and answer of the session is recorded.
func startPipe(ctx context.Context, argv []string, rec *replayserver.Recorder) (*pipeClient, error) {
	var opts stdioclient.Options
	if rec != nil {
		opts.Wrap = func(in io.WriteCloser, out io.ReadCloser) (io.WriteCloser, io.Reader) {
			return rec.Writer(in), rec.Reader(out)
		}
	}
	p, err := stdioclient.Start(context.WithoutCancel(ctx), argv, opts)
	if err != nil {
		return nil, err
	}
	if err := p.Initialize(ctx, "loom-perf"); err != nil {
		p.Close()
		return nil, err
	}
	return &pipeClient{p}, nil
}

// request sends one request and returns its answer line (valid until the
// next request) and the round trip's time, from the first byte written to
// the last byte read.
func (c *pipeClient) request(ctx context.Context, method, params string) ([]byte, time.Duration, error) {
	t0 := time.Now()
	line, err := c.p.Request(ctx, method, []byte(params))
	return line, time.Since(t0), err
}

// lookup calls tool with args (a JSON object); an error result is an error.
func (c *pipeClient) lookup(ctx context.Context, tool, args string) (time.Duration, error) {
	line, d, err := c.request(ctx, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
	if err == nil && bytes.Contains(line, []byte(`"isError":true`)) {
		err = fmt.Errorf("tools/call %s %s: error result: %.300s", tool, args, line)
	}
	return d, err
}

// close ends the server by closing its input, and waits for it.
func (c *pipeClient) close() { c.p.Close() }
