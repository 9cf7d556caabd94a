// Command loom-replay is the replay server of internal/instruments/replayserver: it
// answers MCP requests with loom-results' recorded answers, over stdio or,
// with --http, over Streamable HTTP at http://ADDR/mcp, logging that URL on
// stderr as loom-results does. It exits with status 0 at the end of input
// (stdio) or on SIGINT or SIGTERM, 2 on a bad command line.
//
//	loom-replay --tape FILE [--http 127.0.0.1:0]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loom-replay:", err)
		var usage usageError
		if errors.As(err, &usage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad command line; it exits with status 2.
type usageError struct{ error }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loom-replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tapePath := fs.String("tape", "", "the recorded exchanges (internal/instruments/replayserver.WriteTape)")
	addr := fs.String("http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 || *tapePath == "" {
		return usageError{errors.New("usage: loom-replay --tape FILE [--http ADDR]")}
	}
	tape, err := replayserver.ReadTape(*tapePath)
	if err != nil {
		return err
	}
	rp, err := replayserver.New(tape)
	if err != nil {
		return err
	}
	if *addr == "" {
		return rp.ServeStdio(stdin, stdout)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	srv := &http.Server{Handler: rp.Handler(), ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(stderr, "loom-replay: serving MCP (Streamable HTTP) at http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	grace, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(grace)
}
