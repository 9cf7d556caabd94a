package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/loom-results/loom-results/cmd/internal/cli"
)

// moved are the commands that the served binary used to carry and that
// cmd/loom-check holds now; naming one here says where it went.
var moved = []string{"replay", "bench-edits"}

// movedCommand returns the message for arg when it names a moved command,
// else "".
func movedCommand(arg string) string {
	for _, m := range moved {
		if arg == m {
			return fmt.Sprintf("%s is a command of loom-check, in the source tree: go run ./cmd/loom-check %s --help", m, m)
		}
	}
	return ""
}

// help runs `loom-results help`: the usage on stdout, as --help prints it.
// It takes no argument but a request for help.
func help(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
		default:
			if m := movedCommand(args[0]); m != "" {
				return cli.Usagef("loom-results help", "%s", m)
			}
			return cli.Usagef("loom-results help", "unexpected argument %q: help takes none", args[0])
		}
	}
	fs, _ := newServerFlags()
	fs.SetOutput(stdout)
	fs.Usage()
	return cli.ErrHelp
}

// serverUsage is the usage: how to serve, then the server's flags.
func serverUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `usage: loom-results [flags]      serve MCP over stdio (or Streamable HTTP with --http)
       loom-results --version
       loom-results help         this usage, as --help prints it

loom-results keeps the exact bytes of the files an agent inspects and answers
bounded lookups and edits over them (README.md). The developer commands,
replay and bench-edits, are loom-check's: go run ./cmd/loom-check help, in
the source tree.

Flags:
`)
	fs.PrintDefaults()
}

// given reports whether the command line set flag name, even to its
// default value.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
