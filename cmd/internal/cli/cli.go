// Package cli is what the commands (loom-results, loom-check and its
// subcommands, loom-perf, loom-load, loom-mem) share about their command
// lines: help that was asked for goes to stdout and is not a failure
// (status 0); a bad command line is one message and a one-line pointer to
// the command's --help on stderr, with status 2, never the whole usage,
// which would bury the message; any other failure is status 1.
package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrHelp says that help was asked for and printed: Status turns it into
// success, where flag.ErrHelp is an error.
var ErrHelp = errors.New("help printed")

// UsageError is a bad command line. Command is whose help to point at:
// the flag set's name, "loom-results" or "loom-check replay".
type UsageError struct {
	Command string
	Err     error
}

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError of command whose message is the formatted
// text: what was wrong and, where it helps, what would be valid.
func Usagef(command, format string, args ...any) error {
	return &UsageError{Command: command, Err: fmt.Errorf(format, args...)}
}

// Parse parses args into fs. Asked for help (-h, -help, --help), it
// prints fs's usage on stdout and returns ErrHelp. A bad flag is a
// UsageError of fs.Name() holding the flag package's message alone. The
// flag set's output is stdout afterwards.
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	// The flag package prints the message and the usage as it fails;
	// keep them, to print the usage only when it was asked for.
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
		if _, werr := stdout.Write(out.Bytes()); werr != nil {
			return werr
		}
		return ErrHelp
	case err != nil:
		return &UsageError{Command: fs.Name(), Err: err}
	}
	return nil
}

// Status reports err on stderr as a command named name reports it and
// returns the exit status: 0 for none and for ErrHelp; 2 for a
// UsageError, after "<command>: <message>" and "run '<command> --help' for
// usage"; 1 for any other error, after "<name>: <error>".
func Status(name string, err error, stderr io.Writer) int {
	var usage *UsageError
	switch {
	case err == nil, errors.Is(err, ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "%s: %v\nrun '%s --help' for usage\n", usage.Command, usage.Err, usage.Command)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
}
