// Package clitest holds the two tests every command of this module makes
// of its command line (package cli's rules): a bad command line exits with
// status 2, printing the message and a pointer to --help and nothing on
// stdout; help asked for is the usage on stdout, status 0.
package clitest

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loom-results/loom-results/cmd/internal/cli"
)

// Run runs a command line as the command's main would, with stdout and
// stderr: run's error is what cli.Status turns into the exit status.
type Run func(args []string, stdout, stderr io.Writer) error

// Bad is one bad command line and the message it must print.
type Bad struct {
	Name string
	Args []string
	Msg  string // the first line on stderr, without the command's name
}

// BadCommandLines checks each case: status 2, stderr exactly
// "<command>: <Msg>" and the pointer to --help, stdout empty.
func BadCommandLines(t *testing.T, command string, run Run, cases []Bad) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := cli.Status(command, run(tt.Args, &stdout, &stderr), &stderr)
			assert.Equal(t, 2, got)
			assert.Equal(t, command+": "+tt.Msg+"\nrun '"+command+" --help' for usage\n", stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
}

// Help checks that -h, --help and -help print the usage on stdout, with
// each of want in it, and nothing on stderr, with status 0.
func Help(t *testing.T, command string, run Run, want ...string) {
	t.Helper()
	for _, arg := range []string{"-h", "--help", "-help"} {
		t.Run(arg, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 0, cli.Status(command, run([]string{arg}, &stdout, &stderr), &stderr))
			for _, w := range want {
				assert.Contains(t, stdout.String(), w)
			}
			assert.Empty(t, stderr.String())
		})
	}
}
