package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loom-results/loom-results/cmd/internal/cli"
)

// command is a subcommand: loom-results NAME [flags].
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
		{"help", "print this usage, or a command's (loom-results help replay)", help},
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

// help runs `loom-results help [COMMAND]`: the top-level usage, or the
// command's, on stdout.
func help(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		return serve(ctx, []string{"--help"}, strings.NewReader(""), stdout, stderr)
	case len(args) > 1:
		return cli.Usagef("loom-results help", "give one command, not %d (the commands are %s)", len(args), commandNames())
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		_, err := fmt.Fprintf(stdout, "usage: loom-results help [COMMAND]\nPrints the usage of loom-results, or of one of its commands (%s).\n", commandNames())
		if err != nil {
			return err
		}
		return cli.ErrHelp
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return cli.Usagef("loom-results help", "unknown command %q; the commands are %s", args[0], commandNames())
	}
	return c.run(ctx, []string{"--help"}, stdout, stderr)
}

// serverUsage is the top-level usage: how to serve, the commands, then the
// server's flags.
func serverUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `usage: loom-results [flags]            serve MCP over stdio (or Streamable HTTP with --http)
       loom-results COMMAND [flags]    run a command
       loom-results --version

loom-results keeps the exact bytes of the files an agent inspects and answers
bounded lookups and edits over them (README.md).

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.PrintDefaults()
}

// given reports whether the command line set flag name, even to its
// default value.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
