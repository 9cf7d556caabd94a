package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/conformance"
)

// replay runs `loom-results replay [--server "CMD"] SCRIPT...`: it replays
// conformance scripts (package conformance) against a fresh server per
// script, by default this executable, and fails when any script fails.
func replay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loom-results replay", flag.ContinueOnError)
	server := fs.String("server", "", "the server command, split at white space; --root and each script's flags are appended (default: this executable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: loom-results replay [--server "CMD"] SCRIPT...`)
		fmt.Fprintln(fs.Output(), "Replays scripted sessions (txtar files, or directories of them) and ends with \"N passed, M failed\".")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef(fs.Name(), "no scripts: name txtar files, or directories of them")
	}
	cmd := strings.Fields(*server)
	// Each script's server runs in the script's own temporary root: a
	// relative path to the binary is taken from here, not from there.
	if len(cmd) > 0 && strings.ContainsRune(cmd[0], filepath.Separator) && !filepath.IsAbs(cmd[0]) {
		abs, err := filepath.Abs(cmd[0])
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		cmd[0] = abs
	}
	if len(cmd) == 0 {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("replay: finding this executable: %w", err)
		}
		cmd = []string{self}
	}
	_, failed, err := conformance.Replay(ctx, cmd, fs.Args(), stdout)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if failed > 0 {
		return fmt.Errorf("replay: %d script(s) failed", failed)
	}
	return nil
}
