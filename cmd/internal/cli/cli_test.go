package cli

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    error
		want   int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"help asked for", ErrHelp, 0, ""},
		{"a bad command line", Usagef("tool", "--n %d: need at least 1", 0), 2, "tool: --n 0: need at least 1\nrun 'tool --help' for usage\n"},
		{"a command's bad command line", Usagef("tool sub", "no files"), 2, "tool sub: no files\nrun 'tool sub --help' for usage\n"},
		{"wrapped", errors.Join(errors.New("other"), Usagef("tool", "bad")), 2, "tool: bad\nrun 'tool --help' for usage\n"},
		{"a failure", errors.New("sub: 2 failed"), 1, "tool: sub: 2 failed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			assert.Equal(t, tt.want, Status("tool", tt.err, &stderr))
			assert.Equal(t, tt.stderr, stderr.String())
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	newSet := func() *flag.FlagSet {
		fs := flag.NewFlagSet("tool sub", flag.ContinueOnError)
		fs.Int("n", 1, "how many")
		fs.Usage = func() { fs.Output().Write([]byte("usage: tool sub [--n N]\n")) }
		return fs
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string // "" for none; "help" for ErrHelp
		stdout  string
	}{
		{"flags", []string{"--n", "2"}, "", ""},
		{"-h", []string{"-h"}, "help", "usage: tool sub [--n N]\n"},
		{"--help", []string{"--help"}, "help", "usage: tool sub [--n N]\n"},
		{"an unknown flag", []string{"--m"}, "flag provided but not defined: -m", ""},
		{"a bad value", []string{"--n", "x"}, `invalid value "x" for flag -n: parse error`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout bytes.Buffer
			err := Parse(newSet(), tt.args, &stdout)
			assert.Equal(t, tt.stdout, stdout.String(), "the usage only when asked for")
			switch tt.wantErr {
			case "":
				require.NoError(t, err)
			case "help":
				require.ErrorIs(t, err, ErrHelp)
			default:
				var usage *UsageError
				require.ErrorAs(t, err, &usage)
				assert.Equal(t, "tool sub", usage.Command)
				assert.EqualError(t, usage.Err, tt.wantErr)
			}
		})
	}
}
