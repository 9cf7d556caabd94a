// Command loom-mem is the memory program: it runs the loom-results server
// as a process on each input that issue 14 found to make its memory grow
// far past what it stores, and on the load program's run, a fresh server
// each time, and prints the peak resident set (VmHWM) of each against the
// bytes stored and the target 1.25 x stored + 32 MiB (medians, with the
// smallest and largest of the runs). Its logic is in internal/instruments/membench.
//
//	go run ./cmd/loom-mem [--runs 5] [--only REGEXP] [--server PATH] [--no-load]
//	    [--server-arg FLAG]... [--env KEY=VALUE]...
//
// --server-arg and --env pass flags and environment to every server, to
// compare its memory policies (GOGC=50, say).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/loom-results/loom-results/internal/instruments/membench"
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
		fmt.Fprintln(os.Stderr, "loom-mem:", err)
		os.Exit(1)
	}
}

// usageError is a bad command line; it exits with status 2.
type usageError struct{ error }

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := membench.Config{Runs: 5}
	fs := flag.NewFlagSet("loom-mem", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs of each input, each with a fresh server")
	fs.StringVar(&cfg.Only, "only", "", "run only the inputs whose name matches this regular expression")
	fs.StringVar(&cfg.Server, "server", "", "loom-results binary to run (default: go build ./cmd/loom-results into a temp dir)")
	fs.BoolVar(&cfg.NoLoad, "no-load", false, "leave out the load program's run")
	fs.Var((*list)(&cfg.ServerArgs), "server-arg", "a flag for every server (repeatable)")
	fs.Var((*list)(&cfg.ServerEnv), "env", "KEY=VALUE in every server's environment (repeatable)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loom-mem: unexpected argument %q\n", fs.Arg(0))
		return usageError{errors.New("unexpected argument")}
	}
	if cfg.Runs < 1 {
		fmt.Fprintf(stderr, "loom-mem: --runs %d: at least 1\n", cfg.Runs)
		return usageError{errors.New("bad --runs")}
	}
	_, err := membench.Run(ctx, cfg, stdout)
	return err
}
