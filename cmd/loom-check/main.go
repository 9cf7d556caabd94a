// Command loom-check holds the developer commands that drive a loom-results
// server from the outside, so that the served binary is only the server:
//
//	go run ./cmd/loom-check replay [--server "CMD"] SCRIPT...
//	go run ./cmd/loom-check bench-edits [--repo PATH] [--commits N] [--agent splice|write] ...
//	go run ./cmd/loom-check help [COMMAND]
//
// replay is package conformance's script runner; bench-edits is package
// internal/instruments/editbench. The server each runs is --server, by
// default a loom-results built from this module into a temporary directory
// (internal/testkit/loombin), which is why loom-check runs inside a
// checkout. This package holds flags, signals and dispatch only.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/loom-results/loom-results/cmd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.Status("loom-check", run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run runs the command line args: loom-check COMMAND [flags]. Help that
// was asked for is printed on stdout and returned as cli.ErrHelp; a bad
// command line is a cli.UsageError.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("loom-check", "no command: the commands are %s", commandNames())
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return cli.ErrHelp
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return cli.Usagef("loom-check", "unknown command %q; the commands are %s", args[0], commandNames())
	}
	return c.run(ctx, args[1:], stdout, stderr)
}
