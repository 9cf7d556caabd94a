package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/conformance"
)

// replay runs `loom-check replay [--server "CMD"] SCRIPT...`: it replays
// conformance scripts (package conformance) against a fresh server per
// script and fails when any script fails.
func replay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loom-check replay", flag.ContinueOnError)
	server := fs.String("server", "", serverHelp("--root and each script's flags are"))
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: loom-check replay [--server "CMD"] SCRIPT...`)
		fmt.Fprintln(fs.Output(), "Replays scripted sessions (txtar files, or directories of them) and ends with \"N passed, M failed\".")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef(fs.Name(), "no scripts: name txtar files, or directories of them")
	}
	cmd, done, err := serverCommand(ctx, *server)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer done()
	_, failed, err := conformance.Replay(ctx, cmd, fs.Args(), stdout)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if failed > 0 {
		return fmt.Errorf("replay: %d script(s) failed", failed)
	}
	return nil
}
