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

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/instruments/loadtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.Status("loom-load", run(ctx, os.Args[1:], os.Stdout), os.Stderr))
}

// errFailed is a run whose checks failed; the report says which.
var errFailed = errors.New("checks failed")

// run runs the command line args. Help that was asked for is printed on
// stdout and returned as cli.ErrHelp; a bad command line is a
// cli.UsageError.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg := loadtest.DefaultConfig()
	fs := flag.NewFlagSet("loom-load", flag.ContinueOnError)
	fs.IntVar(&cfg.Sessions, "sessions", cfg.Sessions, "concurrent MCP sessions")
	fs.IntVar(&cfg.Lookups, "lookups", cfg.Lookups, "lookups each session makes")
	fs.StringVar(&cfg.Server, "server", "", "loom-results binary to run (default: go build ./cmd/loom-results into a temp dir)")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "cap on the lookup phase; the run stops there and reports what it did")
	fs.Int64Var(&cfg.MaxStoreBytes, "max-store-bytes", cfg.MaxStoreBytes, "the server's --max-store-bytes")
	fs.Int64Var(&cfg.MaxTotalBytes, "max-total-bytes", cfg.MaxTotalBytes, "the server's --max-total-bytes")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the generated files and of each session's choices")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loom-load [--sessions N] [--lookups N] [--server PATH] [--duration D] [--max-store-bytes N] [--max-total-bytes N] [--seed N]")
		fmt.Fprintln(fs.Output(), "Drives concurrent MCP sessions of lookups against loom-results --http, checks every answer and the sessions' isolation, and prints throughput, latency and peak memory.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	if err := cfg.Check(); err != nil {
		return &cli.UsageError{Command: fs.Name(), Err: err}
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
