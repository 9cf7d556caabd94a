// Command loom-results is an MCP server that keeps tool results for a
// coding agent to reuse instead of paying for them again. See README.md and
// SPEC.md for the contract.
//
// This package holds flags and signals only: serving is package server's.
// The developer commands that drive a server from the outside (replay,
// bench-edits) are cmd/loom-check's, so that this binary is only the
// server (deps_test.go holds it).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/version"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		// After the first signal, a second one ends the process at once,
		// as the signal's default action does, without waiting for calls
		// in flight: the default is back before the shutdown starts (and
		// says so on stderr), not at some later moment.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel()
	}()
	os.Exit(status(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

// status reports err on stderr and returns the exit status (cli.Status):
// 0, 2 for a bad command line, 1 for a failure. SIGINT and SIGTERM end the
// server with status 0 (SPEC section 2).
func status(err error, stderr io.Writer) int {
	if errors.Is(err, context.Canceled) {
		return 0
	}
	return cli.Status("loom-results", err, stderr)
}

// run runs the command line args: `help`, else the server. Help that was
// asked for is printed on stdout and is not an error; a bad command line
// is a cli.UsageError.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, stdin, stdout, stderr)
	if errors.Is(err, cli.ErrHelp) {
		return nil
	}
	return err
}

// dispatch runs what args ask for; it may return cli.ErrHelp.
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "help" {
		return help(args[1:], stdout)
	}
	return serve(ctx, args, stdin, stdout, stderr)
}

// serverFlags are the server's command-line flags, as serve reads them.
type serverFlags struct {
	version   *bool
	limits    *limits.Config
	root      *string
	policy    *string
	httpAddr  *string
	httpToken *string
	steps     *string
	stepGap   *time.Duration
	answers   *string
	write     *bool
	runs      *commandList
	failure   *runFailure
	// The HTTP transport's and the heap's, beside the limits.
	http        *transport.HTTPOptions
	memorySlack *int64
	maxSessions *int64
}

// newServerFlags returns the server's flag set, every flag registered with
// its default, and where the parsed values land. It is the one list of the
// server's flags: the usage prints it and docs/reference.md is tested
// against it.
func newServerFlags() (*flag.FlagSet, serverFlags) {
	fs := flag.NewFlagSet("loom-results", flag.ContinueOnError)
	fs.Usage = func() { serverUsage(fs) }
	var f serverFlags
	f.version = fs.Bool("version", false, "print the version and exit")
	cfg := limits.Defaults()
	f.limits = &cfg
	cfg.Register(fs)
	f.root = fs.String("root", "", "the only tree inspect may read and, with --write, write_file may write (default: the working directory)")
	f.policy = fs.String("context", string(briefing.Legacy), "context policy: legacy or bounded")
	f.httpAddr = fs.String("http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio")
	f.httpToken = fs.String("http-token", "", "require Authorization: Bearer TOKEN on every HTTP request (needed to bind a non-loopback address)")
	f.steps = fs.String("steps", string(limits.ClientSteps), "who calls begin_step: client (a governing client) or model (the model itself)")
	f.stepGap = fs.Duration("step-gap", server.DefaultStepGap, "with --steps model: a pause this long between a tool call's answer and the next tool call begins a new step (0 = never)")
	f.answers = fs.String("answers", "", "what answers carry: full (text and structured content, output schemas) or text (the text alone) (default: full with --steps client, text with --steps model)")
	f.write = fs.Bool("write", false, "serve write_file, which writes edits to files under the root (off: the server writes nothing)")
	f.runs = &commandList{}
	fs.Var(f.runs, "run", "`NAME=COMMAND`: serve run, which runs COMMAND (split into words as a POSIX shell does, nothing expanded) in the root when the model names it; repeatable (off: the server runs nothing)")
	f.failure = &runFailure{expr: briefing.DefaultRunFailure}
	fs.Var(f.failure, "run-failure", "the RE2 `REGEX` a failed run's first failure line matches, shown with the lines after it above the tail ('' turns it off; only with --run)")
	f.memorySlack, f.maxSessions = new(int64), new(int64)
	*f.memorySlack, *f.maxSessions = server.DefaultMemorySlack, transport.DefaultMaxSessions
	fs.Var(limits.Count(f.memorySlack, 0), "memory-slack", "bytes of garbage the heap may hold beside the stored results before it is collected (0: Go's default collector)")
	f.http = &transport.HTTPOptions{}
	fs.DurationVar(&f.http.ReadTimeout, "http-read-timeout", transport.DefaultReadTimeout, "time an HTTP request has to send its headers, and then its body")
	fs.DurationVar(&f.http.WriteTimeout, "http-write-timeout", transport.DefaultWriteTimeout, "time a client has to take each HTTP answer")
	fs.Var(limits.Count(f.maxSessions, 1), "max-sessions", "live HTTP sessions at most; initialize past it gets 503")
	return fs, f
}

// serve parses the server's flags and serves until the input ends or ctx
// is done.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, f := newServerFlags()
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	cfg := *f.limits
	httpOpts := *f.http
	httpOpts.Log = stderr
	httpOpts.MaxSessions = int(min(*f.maxSessions, 1<<31-1))
	if fs.NArg() > 0 {
		if m := movedCommand(fs.Arg(0)); m != "" {
			return cli.Usagef(fs.Name(), "unexpected argument %q: %s", fs.Arg(0), m)
		}
		return cli.Usagef(fs.Name(), "unexpected argument %q: the server takes flags only", fs.Arg(0))
	}
	if *f.version {
		_, err := fmt.Fprintln(stdout, "loom-results", version.String())
		return err
	}
	policy := briefing.Policy(*f.policy)
	if policy != briefing.Legacy && policy != briefing.Bounded {
		return cli.Usagef(fs.Name(), "--context %q is not legacy or bounded", *f.policy)
	}
	if s := limits.Steps(*f.steps); s != limits.ClientSteps && s != limits.ModelSteps {
		return cli.Usagef(fs.Name(), "--steps %q is not client or model", *f.steps)
	}
	stepGap := *f.stepGap
	switch {
	case given(fs, "step-gap") && limits.Steps(*f.steps) != limits.ModelSteps:
		return cli.Usagef(fs.Name(), "--step-gap applies only with --steps model: with --steps client the governing client calls begin_step")
	case stepGap < 0:
		return cli.Usagef(fs.Name(), "--step-gap %s is negative: give a pause such as 500ms, or 0 for never", stepGap)
	}
	answers := server.DefaultAnswers(limits.Steps(*f.steps))
	if given(fs, "answers") {
		answers = server.Answers(*f.answers)
		if answers != server.AnswersFull && answers != server.AnswersText {
			return cli.Usagef(fs.Name(), "--answers %q is not full or text", *f.answers)
		}
	}
	if given(fs, "http-token") && *f.httpToken == "" {
		// An empty token would read as "no token": say so rather than
		// answer as if the flag were missing.
		return cli.Usagef(fs.Name(), "--http-token is empty; give the token that clients send as Authorization: Bearer TOKEN")
	}
	if *f.httpAddr != "" {
		if err := transport.CheckHTTPAddr(*f.httpAddr, *f.httpToken); err != nil {
			return cli.Usagef(fs.Name(), "--http: %w", err)
		}
		if err := httpOpts.Check(); err != nil {
			return &cli.UsageError{Command: fs.Name(), Err: err}
		}
	}
	if given(fs, "run-failure") && len(f.runs.commands) == 0 {
		return cli.Usagef(fs.Name(), "--run-failure without --run: it only says where a run's command failed; add --run NAME=COMMAND or leave it out")
	}
	r, err := workspace.Open(*f.root)
	if err != nil {
		return cli.Usagef(fs.Name(), "--root: %w", err)
	}
	defer r.Close()
	for _, c := range f.runs.commands {
		if err := r.CheckProgram(c); err != nil {
			return cli.Usagef(fs.Name(), "--run %s=%s: %w", c.Name, c.Line, err)
		}
	}
	if cfg.MaxLookups == 0 {
		// SPEC section 2 allows 0; a limit of 0 allows nothing, which a
		// reader used to "0 = no limit" (as --idle-timeout has it) would
		// not guess.
		fmt.Fprintln(stderr, "loom-results: --max-lookups 0: lookups are off; every lookup answers lookup_limit")
	}
	s := server.New(server.Options{Limits: cfg, Policy: policy, Steps: limits.Steps(*f.steps), StepGap: stepGap, Answers: answers, Write: *f.write, Root: r,
		Run: briefing.RunConfig{Commands: f.runs.commands, Failure: f.failure.re, NoFailure: f.failure.expr == ""}, Log: stderr, MemorySlack: *f.memorySlack})

	if *f.httpAddr != "" {
		httpOpts.Addr, httpOpts.Token = *f.httpAddr, *f.httpToken
		err := s.ListenAndServeHTTP(ctx, httpOpts)
		if ctx.Err() != nil {
			return errors.Join(err, shutdown(s.Transport(), nil, stderr))
		}
		return err
	}
	greet(stdin, stderr, r.Dir())
	// Serve on its own goroutine so that a signal ends the process even
	// while a read of stdin blocks.
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, stdin, stdout) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return shutdown(s.Transport(), done, stderr)
	}
}

// shutdownWait bounds how long a signal waits for the calls in flight: a
// write finishing or cleaning up takes far less (a 32 MiB write and its
// fsync, on a local disk, well under a second), and a running command is
// sent SIGTERM at once and SIGKILL after workspace.KillGrace (5 s), so the
// bound is that and 2 s more, within the 10 s that container runtimes give
// before they send SIGKILL. A test may shorten it.
var shutdownWait = workspace.KillGrace + 2*time.Second

// shutdown ends serving on SIGINT or SIGTERM (SPEC section 2): the
// transport takes no more calls and cancels those in flight, then the
// server waits for them to return, at most shutdownWait: a write finishes
// or cleans up, so that no temporary file outlives it (SPEC section 9).
// It fails, and the process exits with status 1, when calls are still
// running at the bound.
//
// Over stdio, answered is ServeStdio's end: it comes once the answer of
// the message being handled is written, and shutdown waits for it too,
// within the same bound, when a call was in flight; a client that does
// not read that answer delays the exit, but does not fail it.
func shutdown(tr *transport.Transport, answered <-chan error, stderr io.Writer) error {
	n := tr.Stop()
	if n > 0 {
		calls := "calls"
		if n == 1 {
			calls = "call"
		}
		fmt.Fprintf(stderr, "loom-results: shutting down: waiting up to %s for %d %s in flight\n", shutdownWait, n, calls)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), shutdownWait,
		fmt.Errorf("gave up waiting after %s", shutdownWait))
	defer cancel()
	if err := tr.Wait(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if n > 0 && answered != nil {
		select {
		case <-answered:
		case <-ctx.Done():
		}
	}
	return nil
}

// runFailure is --run-failure REGEX: an RE2 expression, compiled as it is
// set; an invalid one is a bad flag (status 2), and an empty one turns the first
// failure off (SPEC section 10).
type runFailure struct {
	expr string
	re   *regexp.Regexp // nil: the default, or off when expr is ""
}

func (r *runFailure) String() string {
	if r == nil {
		return ""
	}
	return r.expr
}

func (r *runFailure) Set(value string) error {
	re, err := briefing.CompileRunFailure(value)
	if err != nil {
		return err
	}
	r.expr, r.re = value, re
	return nil
}

// commandList is --run NAME=COMMAND, repeatable: each value a command of
// run (workspace.ParseCommand); a malformed value or a repeated name is a
// bad flag (status 2).
type commandList struct{ commands []workspace.Command }

func (l *commandList) String() string { return "" }

func (l *commandList) Set(value string) error {
	c, err := workspace.ParseCommand(value)
	if err != nil {
		return err
	}
	for _, prev := range l.commands {
		if prev.Name == c.Name {
			return fmt.Errorf("command %s is named twice (%q and %q): give each command its own name", c.Name, prev.Line, c.Line)
		}
	}
	l.commands = append(l.commands, c)
	return nil
}
