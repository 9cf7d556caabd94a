package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/version"
)

// TestBadCommandLine: every bad command line, of the server and of each
// command, exits with status 2 and prints the message and a pointer to the
// command's --help on stderr, nothing else, and nothing on stdout.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	const (
		top  = "run 'loom-results --help' for usage\n"
		help = "run 'loom-results help --help' for usage\n"
	)
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"negative limit", []string{"--max-lookups", "-1"}, `loom-results: invalid value "-1" for flag -max-lookups: "-1" is not a non-negative decimal integer` + "\n" + top},
		{"not a number", []string{"--max-lookups", "x"}, `loom-results: invalid value "x" for flag -max-lookups: "x" is not a non-negative decimal integer` + "\n" + top},
		{"page size zero", []string{"--page-size", "0"}, `loom-results: invalid value "0" for flag -page-size: "0" is below the minimum 1` + "\n" + top},
		{"bad context", []string{"--context", "wide"}, `loom-results: --context "wide" is not legacy or bounded` + "\n" + top},
		{"bad steps", []string{"--steps", "agent"}, `loom-results: --steps "agent" is not client or model` + "\n" + top},
		{"step gap without model steps", []string{"--step-gap", "1s"}, "loom-results: --step-gap applies only with --steps model: with --steps client the governing client calls begin_step\n" + top},
		{"step gap 0 with client steps", []string{"--steps", "client", "--step-gap", "0"}, "loom-results: --step-gap applies only with --steps model: with --steps client the governing client calls begin_step\n" + top},
		{"malformed step gap", []string{"--steps", "model", "--step-gap", "soon"}, `loom-results: invalid value "soon" for flag -step-gap: parse error` + "\n" + top},
		{"step gap without a unit", []string{"--steps", "model", "--step-gap", "5"}, `loom-results: invalid value "5" for flag -step-gap: parse error` + "\n" + top},
		{"negative step gap", []string{"--steps", "model", "--step-gap", "-1s"}, "loom-results: --step-gap -1s is negative: give a pause such as 500ms, or 0 for never\n" + top},
		{"bad answers", []string{"--answers", "json"}, `loom-results: --answers "json" is not full or text` + "\n" + top},
		{"empty answers", []string{"--answers="}, `loom-results: --answers "" is not full or text` + "\n" + top},
		{"write takes no value", []string{"--write=maybe"}, `loom-results: invalid boolean value "maybe" for -write: parse error` + "\n" + top},
		{"unknown flag", []string{"--nope"}, "loom-results: flag provided but not defined: -nope\n" + top},
		{"flag without its value", []string{"--root"}, "loom-results: flag needs an argument: -root\n" + top},
		{"stray argument", []string{"extra"}, `loom-results: unexpected argument "extra": the server takes flags only` + "\n" + top},
		{"unknown command", []string{"serve"}, `loom-results: unexpected argument "serve": the server takes flags only` + "\n" + top},
		{"help after a flag", []string{"--write", "help"}, `loom-results: unexpected argument "help": the server takes flags only` + "\n" + top},
		{"replay moved", []string{"replay", "x.txtar"}, `loom-results: unexpected argument "replay": replay is a command of loom-check, in the source tree: go run ./cmd/loom-check replay --help` + "\n" + top},
		{"bench-edits moved", []string{"bench-edits", "--repo", "."}, `loom-results: unexpected argument "bench-edits": bench-edits is a command of loom-check, in the source tree: go run ./cmd/loom-check bench-edits --help` + "\n" + top},
		{"missing root", []string{"--root", "/does/not/exist"}, "loom-results: --root: open /does/not/exist: no such file or directory\n" + top},
		{"a run command a shell would expand", []string{"--run", "t=echo $HOME"}, `loom-results: invalid value "t=echo $HOME" for flag -run: command t: "echo $HOME": $HOME would be expanded by a shell, and nothing is expanded here: write the value out, or quote it with '...' to pass it as it is` + "\n" + top},
		{"an invalid failure expression", []string{"--run", "t=go test ./...", "--run-failure", "(FAIL"}, `loom-results: invalid value "(FAIL" for flag -run-failure: "(FAIL" is not an RE2 expression (error parsing regexp: missing closing ): ` + "`(FAIL`" + `): give one that matches a failing run's first failure line, or '' for none` + "\n" + top},
		{"a failure expression without --run", []string{"--run-failure", "^not ok "}, "loom-results: --run-failure without --run: it only says where a run's command failed; add --run NAME=COMMAND or leave it out\n" + top},
		{"turned off without --run", []string{"--run-failure="}, "loom-results: --run-failure without --run: it only says where a run's command failed; add --run NAME=COMMAND or leave it out\n" + top},
		{"non-loopback HTTP without a token", []string{"--http", "0.0.0.0:0"}, `loom-results: --http: "0.0.0.0:0" is not a loopback address (localhost, 127.0.0.0/8, ::1); another address needs --http-token` + "\n" + top},
		{"empty HTTP token", []string{"--http", "0.0.0.0:0", "--http-token", ""}, "loom-results: --http-token is empty; give the token that clients send as Authorization: Bearer TOKEN\n" + top},
		{"empty HTTP token on loopback", []string{"--http", "127.0.0.1:0", "--http-token="}, "loom-results: --http-token is empty; give the token that clients send as Authorization: Bearer TOKEN\n" + top},
		{"negative memory slack", []string{"--memory-slack", "-1"}, `loom-results: invalid value "-1" for flag -memory-slack: "-1" is not a non-negative decimal integer` + "\n" + top},
		{"no sessions", []string{"--http", "127.0.0.1:0", "--max-sessions", "0"}, `loom-results: invalid value "0" for flag -max-sessions: "0" is below the minimum 1` + "\n" + top},
		{"zero read timeout", []string{"--http", "127.0.0.1:0", "--http-read-timeout", "0s"}, "loom-results: --http-read-timeout 0s: must be positive\n" + top},
		{"zero write timeout", []string{"--http", "127.0.0.1:0", "--http-write-timeout", "0s"}, "loom-results: --http-write-timeout 0s: must be positive\n" + top},
		{"help of a command", []string{"help", "serve"}, `loom-results help: unexpected argument "serve": help takes none` + "\n" + help},
		{"help of a moved command", []string{"help", "replay"}, "loom-results help: replay is a command of loom-check, in the source tree: go run ./cmd/loom-check replay --help\n" + help},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := status(run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr), &stderr)
			assert.Equal(t, 2, got)
			assert.Equal(t, tt.want, stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
}

// TestHelp: help that was asked for goes to stdout and is not an error
// (status 0); `help`, with or without a request for help, is the usage,
// which says where the developer commands went.
func TestHelp(t *testing.T) {
	t.Parallel()
	top := []string{"usage: loom-results [flags]", "loom-results help ", "go run ./cmd/loom-check help", "-max-lookups", "-version"}
	tests := []struct {
		name string
		args []string
		want []string // in stdout
	}{
		{"--help", []string{"--help"}, top},
		{"-h", []string{"-h"}, top},
		{"help", []string{"help"}, top},
		{"help --help", []string{"help", "--help"}, top},
		{"help -h", []string{"help", "-h"}, top},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 0, status(run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr), &stderr))
			for _, w := range tt.want {
				assert.Contains(t, stdout.String(), w)
			}
			assert.Empty(t, stderr.String())
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--version"}, strings.NewReader(""), &stdout, &stderr))
	assert.Equal(t, "loom-results "+version.String()+"\n", stdout.String())
	assert.Empty(t, stderr.String())
}

// TestZeroLookups: --max-lookups 0 is a valid limit (SPEC section 2) that
// turns lookups off; the server says so at start and in the answer.
func TestZeroLookups(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_results","arguments":{}}}` + "\n"
	require.NoError(t, run(context.Background(), []string{"--root", t.TempDir(), "--max-lookups", "0"}, strings.NewReader(in), &stdout, &stderr))
	assert.Equal(t, "loom-results: --max-lookups 0: lookups are off; every lookup answers lookup_limit\n", stderr.String())
	assert.Contains(t, stdout.String(), `"code":"lookup_limit","message":"lookups are off: this server runs with --max-lookups 0, so no step allows a lookup"`)
}

// TestHTTPLogsAddrAsGiven: the endpoint is logged with the host as --http
// gave it and the port the listener got.
func TestHTTPLogsAddrAsGiven(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			logr, logw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"--root", t.TempDir(), "--http", host + ":0"}, strings.NewReader(""), io.Discard, logw)
				logw.Close()
			}()
			line, err := bufio.NewReader(logr).ReadString('\n')
			require.NoError(t, err)
			m := regexp.MustCompile(`^loom-results: serving MCP \(Streamable HTTP\) at http://` + regexp.QuoteMeta(host) + `:(\d+)/mcp\n$`).FindStringSubmatch(line)
			require.NotNil(t, m, line)
			assert.NotEqual(t, "0", m[1], "the picked port, not 0")
			cancel()
			go io.Copy(io.Discard, logr) // the shutdown may log too
			assert.NoError(t, <-done)
		})
	}
}

// TestExitStatus runs the binary: help and --version exit 0 with nothing
// on stderr, a bad command line 2 with the message and the pointer to
// --help (SPEC section 2).
func TestExitStatus(t *testing.T) {
	bin := buildBinary(t)
	tests := []struct {
		args   []string
		want   int
		stderr string
	}{
		{[]string{"--help"}, 0, ""},
		{[]string{"-h"}, 0, ""},
		{[]string{"help"}, 0, ""},
		{[]string{"--version"}, 0, ""},
		{[]string{"--nope"}, 2, "loom-results: flag provided but not defined: -nope\nrun 'loom-results --help' for usage\n"},
		{[]string{"replay", "--help"}, 2, "loom-results: unexpected argument \"replay\": replay is a command of loom-check, in the source tree: go run ./cmd/loom-check replay --help\nrun 'loom-results --help' for usage\n"},
		{[]string{"help", "nope"}, 2, "loom-results help: unexpected argument \"nope\": help takes none\nrun 'loom-results help --help' for usage\n"},
		{[]string{"--max-lookups", "x"}, 2, "loom-results: invalid value \"x\" for flag -max-lookups: \"x\" is not a non-negative decimal integer\nrun 'loom-results --help' for usage\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			got := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				got = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.stderr, stderr.String())
		})
	}
}

func TestRunEndOfInput(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}` + "\n"
	require.NoError(t, run(context.Background(), []string{"--root", t.TempDir()}, strings.NewReader(in), &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), `"text":"step 2"`)
}

// TestSignals starts the real binary and ends it with SIGINT and SIGTERM
// while it waits on its input: it exits with status 0 (SPEC section 2).
func TestSignals(t *testing.T) {
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "--root", t.TempDir())
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			// One answered request shows the server is up and reading.
			_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}` + "\n"))
			require.NoError(t, err)
			buf := make([]byte, 1)
			_, err = stdout.Read(buf)
			require.NoError(t, err)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				assert.NoError(t, err, "exit status 0")
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the server did not exit")
			}
		})
	}
}

// TestInitWork runs the binary with the runtime's init trace and sums what
// package initialisation allocates before main. Start-up is most of the time
// to a served tools/list (docs/performance.md, Start-up). The JSON Schema
// module that mcp-go's server package imports for its optional validation
// compiled five drafts' metaschemas at init (about 1.7 MB); the server
// answers every method itself and links mcp-go's protocol types alone, so
// that module is not in the binary (schemaModule). Every package, and all
// of them together, are held to what they allocate today, in bytes, which
// do not vary with the machine.
func TestInitWork(t *testing.T) {
	const schemaModule = "github.com/santhosh-tekuri/jsonschema/v6"
	cmd := exec.Command(buildBinary(t), "--root", t.TempDir())
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	total, packages := 0, 0
	for line := range strings.Lines(stderr.String()) {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		assert.NotEqual(t, schemaModule, f[1], "the JSON Schema module is linked again")
		n, err := strconv.Atoi(f[7])
		require.NoError(t, err, line)
		assert.Less(t, n, 256<<10, "one package's init allocates this much: %s", line)
		total += n
		packages++
	}
	require.Greater(t, packages, 10, "no init trace in stderr:\n%s", stderr.String())
	assert.Less(t, total, 512<<10, "all package inits together")
}

// buildBinary builds this command into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "loom-results")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// TestRunFailureFlag: --run-failure compiles its expression as it is set;
// left out it is the default, and an empty one turns the first failure off.
func TestRunFailureFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		expr string // the compiled expression; "" none
		off  bool
	}{
		{nil, "", false}, // the default: briefing's, compiled there
		{[]string{"--run-failure", "^not ok "}, "^not ok ", false},
		{[]string{"--run-failure="}, "", true},
		{[]string{"--run-failure", ""}, "", true},
	} {
		fs, f := newServerFlags()
		require.NoError(t, fs.Parse(tt.args))
		if tt.expr == "" {
			assert.Nil(t, f.failure.re, tt.args)
		} else {
			require.NotNil(t, f.failure.re, tt.args)
			assert.Equal(t, tt.expr, f.failure.re.String())
		}
		assert.Equal(t, tt.off, f.failure.expr == "", tt.args)
		assert.Equal(t, briefing.DefaultRunFailure, fs.Lookup("run-failure").DefValue)
	}
}
