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
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/instruments/membench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.Status("loom-mem", run(ctx, os.Args[1:], os.Stdout), os.Stderr))
}

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// run runs the command line args. Help that was asked for is printed on
// stdout and returned as cli.ErrHelp; a bad command line is a
// cli.UsageError.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg := membench.Config{Runs: 5}
	fs := flag.NewFlagSet("loom-mem", flag.ContinueOnError)
	fs.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs of each input, each with a fresh server")
	fs.StringVar(&cfg.Only, "only", "", "run only the inputs whose name matches this regular expression")
	fs.StringVar(&cfg.Server, "server", "", "loom-results binary to run (default: go build ./cmd/loom-results into a temp dir)")
	fs.BoolVar(&cfg.NoLoad, "no-load", false, "leave out the load program's run")
	fs.Var((*list)(&cfg.ServerArgs), "server-arg", "a flag for every server (repeatable)")
	fs.Var((*list)(&cfg.ServerEnv), "env", "KEY=VALUE in every server's environment (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loom-mem [--runs N] [--only REGEXP] [--server PATH] [--no-load] [--server-arg FLAG]... [--env KEY=VALUE]...")
		fmt.Fprintln(fs.Output(), "Runs a fresh loom-results on each input that once made its memory grow, and prints its peak RSS against the bytes it stores.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	if cfg.Runs < 1 {
		return cli.Usagef(fs.Name(), "--runs %d: need at least 1", cfg.Runs)
	}
	if _, err := regexp.Compile(cfg.Only); err != nil {
		return cli.Usagef(fs.Name(), "--only %q: %v", cfg.Only, err)
	}
	_, err := membench.Run(ctx, cfg, stdout)
	return err
}
