// Command loom-results is an MCP server that keeps tool results for a
// coding agent to reuse instead of paying for them again. See README.md and
// SPEC.md for the contract.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/workspace"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	var usage usageError
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		// SIGINT and SIGTERM end the server with status 0 (SPEC section 2).
	case errors.As(err, &usage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "loom-results:", err)
		os.Exit(1)
	}
}

// usageError is a bad command line; it exits with status 2.
type usageError struct{ error }

// run parses args and serves until the input ends or ctx is done; with
// "replay" first, it replays conformance scripts instead.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "replay" {
		return replay(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "bench-edits" {
		return benchEdits(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("loom-results", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := limits.Defaults()
	cfg.Register(fs)
	root := fs.String("root", "", "the only tree inspect may read (default: the working directory)")
	context := fs.String("context", string(briefing.Legacy), "context policy: legacy or bounded")
	httpAddr := fs.String("http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio")
	httpToken := fs.String("http-token", "", "require Authorization: Bearer TOKEN on every HTTP request (needed to bind a non-loopback address)")
	memorySlack, maxSessions := int64(server.DefaultMemorySlack), int64(server.DefaultMaxSessions)
	fs.Var(limits.Count(&memorySlack, 0), "memory-slack", "bytes of garbage the heap may hold beside the stored results before it is collected (0: Go's default collector)")
	httpOpts := server.HTTPOptions{Log: stderr}
	fs.DurationVar(&httpOpts.ReadTimeout, "http-read-timeout", server.DefaultReadTimeout, "time an HTTP request has to send its headers, and then its body")
	fs.DurationVar(&httpOpts.WriteTimeout, "http-write-timeout", server.DefaultWriteTimeout, "time a client has to take each HTTP answer")
	fs.Var(limits.Count(&maxSessions, 1), "max-sessions", "live HTTP sessions at most; initialize past it gets 503")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	httpOpts.MaxSessions = int(min(maxSessions, 1<<31-1))
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loom-results: unexpected argument %q\n", fs.Arg(0))
		return usageError{errors.New("unexpected argument")}
	}
	policy := briefing.Context(*context)
	if policy != briefing.Legacy && policy != briefing.Bounded {
		fmt.Fprintf(stderr, "loom-results: --context %q is not legacy or bounded\n", *context)
		return usageError{errors.New("bad --context")}
	}
	if *httpAddr != "" {
		if err := server.CheckHTTPAddr(*httpAddr, *httpToken); err != nil {
			fmt.Fprintf(stderr, "loom-results: --http: %v\n", err)
			return usageError{err}
		}
		if err := httpOpts.Check(); err != nil {
			fmt.Fprintf(stderr, "loom-results: %v\n", err)
			return usageError{err}
		}
	}
	r, err := workspace.Open(*root)
	if err != nil {
		fmt.Fprintf(stderr, "loom-results: --root: %v\n", err)
		return usageError{err}
	}
	defer r.Close()
	s := server.New(server.Options{Limits: cfg, Context: policy, Root: r, Log: stderr, MemorySlack: memorySlack})

	if *httpAddr != "" {
		httpOpts.Addr, httpOpts.Token = *httpAddr, *httpToken
		return s.ServeHTTP(ctx, httpOpts)
	}
	// Serve on its own goroutine so that a signal ends the process even
	// while a read of stdin blocks.
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, stdin, stdout) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return nil
	}
}
