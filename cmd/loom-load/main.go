// Command loom-load puts a loom-results server under load: it starts the
// server with --http on a loopback port and a generated --root, drives many
// concurrent MCP sessions of lookups against it, checks every answer and
// that no session sees another's results, and prints throughput, latency
// and the server's peak memory. It exits with status 1 when any check
// fails, 2 on a bad command line.
//
//	go run ./cmd/loom-load [--sessions 32] [--lookups 1000] [--server PATH] [--duration 2m]
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

	"github.com/loom-results/loom-results/internal/instruments/loadtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "loom-load:", err)
		os.Exit(1)
	}
}

// usageError is a bad command line; it exits with status 2.
type usageError struct{ error }

// errFailed is a run whose checks failed; the report says which.
var errFailed = errors.New("checks failed")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := loadtest.DefaultConfig()
	fs := flag.NewFlagSet("loom-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.Sessions, "sessions", cfg.Sessions, "concurrent MCP sessions")
	fs.IntVar(&cfg.Lookups, "lookups", cfg.Lookups, "lookups each session makes")
	fs.StringVar(&cfg.Server, "server", "", "loom-results binary to run (default: go build ./cmd/loom-results into a temp dir)")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "cap on the lookup phase; the run stops there and reports what it did")
	fs.Int64Var(&cfg.MaxStoreBytes, "max-store-bytes", cfg.MaxStoreBytes, "the server's --max-store-bytes")
	fs.Int64Var(&cfg.MaxTotalBytes, "max-total-bytes", cfg.MaxTotalBytes, "the server's --max-total-bytes")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the generated files and of each session's choices")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loom-load: unexpected argument %q\n", fs.Arg(0))
		return usageError{errors.New("unexpected argument")}
	}
	if err := cfg.Check(); err != nil {
		fmt.Fprintf(stderr, "loom-load: %v\n", err)
		return usageError{err}
	}
	rep, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return err
	}
	loadtest.Print(stdout, rep)
	if !rep.OK() {
		return errFailed
	}
	return nil
}
