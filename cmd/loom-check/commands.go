package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

// command is a subcommand: loom-check NAME [flags].
type command struct {
	name    string
	summary string // one line for the top-level usage
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands returns the subcommands in the order the usage lists them. It is
// a function, not a variable, because help refers back to it.
func commands() []command {
	return []command{
		{"replay", "replay scripted sessions (txtar) against a fresh server and compare its answers", replay},
		{"bench-edits", "replay a git repository's commits through the server and count the bytes read and generated", benchEdits},
		{"help", "print this usage, or a command's (loom-check help replay)", help},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNames lists the subcommands for messages: "replay, bench-edits, help".
func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// usage prints the top-level usage.
func usage(w io.Writer) {
	fmt.Fprint(w, `usage: loom-check COMMAND [flags]
       loom-check help [COMMAND]

loom-check drives a loom-results server from the outside: the developer
commands, kept out of the served binary. Unless --server names one, the
server is a loom-results built from this module into a temporary directory,
so run it inside a checkout: go run ./cmd/loom-check bench-edits --repo .

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
}

// help runs `loom-check help [COMMAND]`: the top-level usage, or the
// command's, on stdout.
func help(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		usage(stdout)
		return cli.ErrHelp
	case len(args) > 1:
		return cli.Usagef("loom-check help", "give one command, not %d (the commands are %s)", len(args), commandNames())
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		_, err := fmt.Fprintf(stdout, "usage: loom-check help [COMMAND]\nPrints the usage of loom-check, or of one of its commands (%s).\n", commandNames())
		if err != nil {
			return err
		}
		return cli.ErrHelp
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return cli.Usagef("loom-check help", "unknown command %q; the commands are %s", args[0], commandNames())
	}
	return c.run(ctx, []string{"--help"}, stdout, stderr)
}

// serverHelp is the --server flag's text: name is what the command appends.
func serverHelp(appended string) string {
	return "the server command, split at white space; " + appended + " appended (default: loom-results built from the module in the working directory into a temporary directory)"
}

// serverCommand returns the server command of --server: the flag's words,
// a relative path to the program taken from the working directory (each
// server runs in a temporary root of its own), or when the flag is empty,
// a loom-results that loombin builds into a new temporary directory. done
// removes that directory; call it when the servers have ended.
func serverCommand(ctx context.Context, flag string) (cmd []string, done func(), err error) {
	cmd = strings.Fields(flag)
	if len(cmd) > 0 {
		if strings.ContainsRune(cmd[0], filepath.Separator) && !filepath.IsAbs(cmd[0]) {
			if cmd[0], err = filepath.Abs(cmd[0]); err != nil {
				return nil, nil, err
			}
		}
		return cmd, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "loom-check-")
	if err != nil {
		return nil, nil, err
	}
	done = func() { os.RemoveAll(dir) }
	bin, err := loombin.Build(ctx, dir)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("building the default server (or name one with --server): %w", err)
	}
	return []string{bin}, done, nil
}
