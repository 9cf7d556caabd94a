package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/instruments/editbench"
)

// benchEdits runs `loom-check bench-edits --repo PATH --commits N
// [--json]`: it replays the last N commits of a git repository through the
// server (package editbench), prints the table or the JSON summary, and
// fails when any file was not preserved, but for those that a misaimed
// edit (--misaim) left wrong by landing silently.
func benchEdits(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loom-check bench-edits", flag.ContinueOnError)
	repo := fs.String("repo", ".", "the git repository to replay")
	commits := fs.Int("commits", 10, "how many commits of HEAD's first-parent history to replay (0: all)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the table")
	server := fs.String("server", "", serverHelp("--root and --server-flags are"))
	serverFlags := fs.String("server-flags", "", "flags appended to the server command, split at white space (e.g. \"--context bounded\")")
	verbose := fs.Bool("v", false, "print one line per commit on stderr")
	stepGap := fs.Duration("step-gap", editbench.DefaultStepGap, "the write agent's server's --step-gap, when it has the flag (SPEC v5): the model pauses longer between its turns and calls no begin_step")
	misaim := fs.Float64("misaim", 0, "the fraction of the write agent's edits that name one of their lines one line off, as a model that miscounts would (0 to 1)")
	seed := fs.Uint64("seed", 1, "the seed of --misaim's draws")
	agent := fs.String("agent", editbench.AgentSplice, "the agent: splice (a governing client's expand_edit) or write (a stock client's write_file, with --steps model --write)")
	answers := fs.String("answers", "text", "the write agent's --answers: text (the model reads the text content) or full (it reads a success's structured content as JSON, as Claude Code and VS Code show it)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: loom-check bench-edits [--repo PATH] [--commits N] [--agent splice|write] [--answers text|full] [--step-gap D] [--misaim F [--seed S]] [--json] [--server "CMD"] [--server-flags "FLAGS"] [-v]`)
		fmt.Fprintln(fs.Output(), "Replays the modified text files of the last N commits through the server and compares the bytes read and generated with whole-file writes and str_replace edits.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	if *agent != editbench.AgentSplice && *agent != editbench.AgentWrite {
		return cli.Usagef(fs.Name(), "--agent %q is not splice or write", *agent)
	}
	if *answers != "text" && *answers != "full" {
		return cli.Usagef(fs.Name(), "--answers %q is not text or full", *answers)
	}
	if *misaim < 0 || *misaim > 1 {
		return cli.Usagef(fs.Name(), "--misaim %g is not a fraction from 0 to 1", *misaim)
	}
	if *misaim > 0 && *agent != editbench.AgentWrite {
		return cli.Usagef(fs.Name(), "--misaim applies to --agent write")
	}
	if *stepGap <= 0 {
		return cli.Usagef(fs.Name(), "--step-gap %s is not a positive duration", *stepGap)
	}
	cmd, done, err := serverCommand(ctx, *server)
	if err != nil {
		return fmt.Errorf("bench-edits: %w", err)
	}
	defer done()
	opts := editbench.Options{Repo: *repo, Commits: *commits, Server: cmd, ServerFlags: strings.Fields(*serverFlags), Agent: *agent, Answers: *answers,
		StepGap: *stepGap, Misaim: *misaim, Seed: *seed}
	if *verbose {
		opts.Progress = stderr
	}
	rep, err := editbench.Run(ctx, opts)
	if err != nil {
		return fmt.Errorf("bench-edits: %w", err)
	}
	sum := rep.Summary()
	if *asJSON {
		err = sum.WriteJSON(stdout)
	} else {
		err = sum.WriteTable(stdout)
	}
	if err != nil {
		return err
	}
	// A file that a misaim left wrong is what --misaim measures (against a
	// server without anchors); any other file not preserved fails the run.
	if failed := sum.Files - sum.Preserved - sum.SpoiledFiles; failed > 0 {
		return fmt.Errorf("bench-edits: %d of %d files not preserved", failed, sum.Files)
	}
	return nil
}
