// Command loom-perf measures loom-results side by side with its peers and
// the physical limits (openssl, Go's SHA-256 in memory, grep, jq,
// @modelcontextprotocol/server-filesystem, grep -rn and git ls-files over
// directory trees, the cheapest call on the same
// transport, a replay server and handler that answer with loom's recorded
// bytes, and for run the command run directly) and prints the tables, then
// the same tables as Markdown. The phase runlog runs only when named.
//
//	go run ./cmd/loom-perf [--runs N] [--phases warm,replay,find,paths,http,cold,run,runlog] [--small]
//	                       [--loom BIN] [--replay BIN] [--fs-server JS]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/loom-results/loom-results/cmd/internal/cli"
	"github.com/loom-results/loom-results/internal/instruments/perfbench"
	"github.com/loom-results/loom-results/internal/instruments/replayserver"
	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.Status("loom-perf", run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run runs the command line args. Help that was asked for is printed on
// stdout and returned as cli.ErrHelp; a bad command line is a
// cli.UsageError.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loom-perf", flag.ContinueOnError)
	small := fs.Bool("small", false, "small files and one round by default: checks that every row runs, in seconds; the numbers mean little")
	runs := fs.Int("runs", 0, "interleaved rounds (at least 1; default 7, 1 with --small)")
	phases := fs.String("phases", strings.Join(perfbench.AllPhases, ","), "the phases to run, comma-separated (also "+strings.Join(perfbench.OnRequest, ",")+", on request)")
	loom := fs.String("loom", "", "loom-results binary (default: build ./cmd/loom-results into a temp dir)")
	replay := fs.String("replay", "", "loom-replay binary (default: build ./internal/replayserver/cmd/loom-replay into a temp dir)")
	fsServer := fs.String("fs-server", "", "server-filesystem's dist/index.js (default: clients/node_modules/... in the module)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: loom-perf [--runs N] [--phases %s] [--small] [--loom BIN] [--replay BIN] [--fs-server JS] [--quiet]\n",
			strings.Join(append(append([]string{}, perfbench.AllPhases...), perfbench.OnRequest...), ","))
		fmt.Fprintln(fs.Output(), "Measures loom-results side by side with its peers and the physical limits, and prints the tables, then the same as Markdown.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, stdout); err != nil {
		return err
	}
	cfg := perfbench.DefaultConfig()
	if *small {
		cfg = perfbench.SmallConfig()
	}
	if given(fs, "runs") {
		cfg.Runs = *runs
	}
	cfg.Phases = strings.Split(*phases, ",")
	if fs.NArg() > 0 {
		return cli.Usagef(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	if cfg.Runs < 1 {
		return cli.Usagef(fs.Name(), "--runs %d: need at least 1", cfg.Runs)
	}
	if err := cfg.Check(); err != nil {
		return cli.Usagef(fs.Name(), "--phases %q: %v", *phases, err)
	}
	tmp, err := os.MkdirTemp("", "loom-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	modRoot, _ := moduleRoot(ctx)
	cfg.Module = modRoot

	if *loom == "" {
		if *loom, err = loombin.Build(ctx, tmp); err != nil {
			return err
		}
	}
	cfg.Loom = []string{*loom}
	if *replay == "" {
		if *replay, err = replayserver.Build(ctx, tmp); err != nil {
			return err
		}
	}
	cfg.Replay = []string{*replay}
	if *fsServer == "" && modRoot != "" {
		*fsServer = filepath.Join(modRoot, "clients/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	}
	if node, err := exec.LookPath("node"); err == nil && *fsServer != "" {
		if _, err := os.Stat(*fsServer); err == nil {
			cfg.FSServer = []string{node, *fsServer}
		}
	}
	cfg.OpenSSL, _ = exec.LookPath("openssl")
	cfg.JQ, _ = exec.LookPath("jq")
	cfg.Grep, _ = exec.LookPath("grep")
	cfg.Repo = modRoot
	cfg.Dir = filepath.Join(tmp, "root")
	if err := os.Mkdir(cfg.Dir, 0o755); err != nil {
		return err
	}
	// Resolve symlinks (a /tmp that is one): server-filesystem compares
	// real paths.
	if real, err := filepath.EvalSymlinks(cfg.Dir); err == nil {
		cfg.Dir = real
	}
	if !*quiet {
		cfg.Progress = stderr
	}
	rep, err := perfbench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	return rep.WriteMarkdown(stdout)
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// moduleRoot is the directory of the main module's go.mod, or "".
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not in a module")
	}
	return filepath.Dir(gomod), nil
}
