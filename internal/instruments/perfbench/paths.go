package perfbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The paths phase: find over paths ["."] against grep -rn -F with the same
// exclusion, on this repository and on a generated tree, and the tree's
// listing against git ls-files -co --exclude-standard (issue 20).

// treeIgnored is the subtree the generated tree's .gitignore leaves out.
const treeIgnored = "vendor"

// writeTree lays out the generated tree under dir: files source files of
// about bytes in all (one .gitignore among them, so that a find over the
// root reads exactly files files), findNeedle on one line of every 97th,
// and an ignored subtree of files/10 more files that the .gitignore
// leaves out. It makes dir a git repository (nothing tracked), for git
// ls-files.
func writeTree(ctx context.Context, dir string, files, bytesTotal int) error {
	text := codeText(bytesTotal)
	per := max(len(text)/files, 64)
	write := func(rel string, body []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, body, 0o644)
	}
	if err := write(".gitignore", []byte("/"+treeIgnored+"/\n*.o\n")); err != nil {
		return err
	}
	needle := []byte("\tconst marker = \"" + findNeedle + "\"\n")
	off := 0
	for i := range files - 1 {
		end := min(off+per, len(text))
		if j := bytes.LastIndexByte(text[off:end], '\n'); j > 0 {
			end = off + j + 1
		}
		body := text[off:end]
		off = end
		if off >= len(text) {
			off = 0
		}
		if i%97 == 0 {
			body = append(append(bytes.Clone(body[:len(body)/2]), needle...), body[len(body)/2:]...)
		}
		rel := fmt.Sprintf("pkg%02d/sub%02d/file%04d.go", i/500, i/25%20, i)
		if err := write(rel, body); err != nil {
			return err
		}
	}
	for i := range files / 10 {
		if err := write(fmt.Sprintf("%s/mod%02d/dep%04d.go", treeIgnored, i/50, i), append([]byte("package dep\n"), needle...)); err != nil {
			return err
		}
	}
	return exec.CommandContext(ctx, "git", "init", "-q", dir).Run()
}

// pathsJob is one row pair of the phase: a server root, the grep that
// does what find over "." does there, and the listing's git.
type pathsJob struct {
	key, name, root, pattern string
	excludes                 []string // grep's --exclude-dir/--exclude flags
	list                     bool     // also time the listing against git ls-files
}

func (r *runner) pathsJobs() []pathsJob {
	var jobs []pathsJob
	if r.cfg.Repo != "" {
		// This repository's .gitignore: clients/node_modules/, bin/, *.test.
		jobs = append(jobs, pathsJob{key: "pathsrepo", name: "this repository", root: r.cfg.Repo, pattern: "StallTimeout",
			excludes: []string{"--exclude-dir=.git", "--exclude-dir=node_modules", "--exclude-dir=bin", "--exclude=*.test"}})
	}
	jobs = append(jobs, pathsJob{key: "pathstree", name: fmt.Sprintf("%d files, %s", r.cfg.TreeFiles, sizeName(r.cfg.TreeBytes)),
		root: r.treeDir(), pattern: findNeedle, excludes: []string{"--exclude-dir=.git", "--exclude-dir=" + treeIgnored, "--exclude=*.o"}, list: true})
	return jobs
}

func (r *runner) treeDir() string { return filepath.Join(filepath.Dir(r.cfg.Dir), "tree") }

func (r *runner) definePathsRows(add func(string, *Row)) {
	if !r.cfg.runs(PhasePaths) {
		return
	}
	limit := func(key string, row *Row) {
		row.Section, row.Paired = sectionLimits, true
		add(key, row)
	}
	for _, j := range r.pathsJobs() {
		limit(j.key, &Row{Name: "find paths [\".\"], " + j.name, Unit: "ms", Base: "grep -rn -F, same exclusion (process)", Target: AtMost(1.0, "≤ 1.0x")})
		if j.list {
			limit("list"+j.key, &Row{Name: "listing (inspect \".\"), " + j.name, Unit: "ms", Base: "git ls-files -co --exclude-standard (process)", Target: AtMost(1.5, "≤ 1.5x")})
		}
	}
}

// pathsPhase times each job in rounds: find, grep, then listing and git,
// each after a pause, with warm page caches (a first untimed run each).
func (r *runner) pathsPhase(ctx context.Context) error {
	if r.cfg.Grep == "" {
		return nil
	}
	if err := writeTree(ctx, r.treeDir(), r.cfg.TreeFiles, r.cfg.TreeBytes); err != nil {
		return fmt.Errorf("writing the tree: %w", err)
	}
	for _, j := range r.pathsJobs() {
		s, err := startSession(ctx, append(append([]string{}, r.cfg.Loom...), "--root", j.root))
		if err != nil {
			return err
		}
		if _, _, err := r.pathsOnce(ctx, s, j); err != nil { // warm the caches
			s.close()
			return err
		}
		err = r.rounds(ctx, PhasePaths+" "+j.key, func(ctx context.Context, _ int) error {
			l, g, err := r.pathsOnce(ctx, s, j)
			if err != nil {
				return err
			}
			r.rows[j.key].Loom = append(r.rows[j.key].Loom, ms(l))
			r.rows[j.key].BaseSamples = append(r.rows[j.key].BaseSamples, ms(g))
			if !j.list {
				return nil
			}
			l, g, err = r.listOnce(ctx, s, j)
			if err != nil {
				return err
			}
			r.rows["list"+j.key].Loom = append(r.rows["list"+j.key].Loom, ms(l))
			r.rows["list"+j.key].BaseSamples = append(r.rows["list"+j.key].BaseSamples, ms(g))
			return nil
		})
		s.close()
		if err != nil {
			return err
		}
	}
	return nil
}

// pathsOnce times one find over "." and one grep, and checks that they
// count the same lines.
func (r *runner) pathsOnce(ctx context.Context, s *session, j pathsJob) (loom, grep time.Duration, err error) {
	pause()
	if _, err := s.call(ctx, "begin_step", `{}`); err != nil {
		return 0, 0, err
	}
	args, _ := json.Marshal(map[string]any{"paths": []string{"."}, "pattern": j.pattern})
	a, err := s.call(ctx, "find", string(args))
	if err != nil {
		return 0, 0, err
	}
	var found struct {
		Total *int `json:"total"`
	}
	if err := json.Unmarshal(a.Structured, &found); err != nil || found.Total == nil {
		return 0, 0, fmt.Errorf("find %s: no total in %.200s", args, a.Structured)
	}
	pause()
	argv := append(append([]string{r.cfg.Grep, "-rn", "-F"}, j.excludes...), "--", j.pattern, ".")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = j.root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err = cmd.Run()
	grep = time.Since(t0)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return 0, 0, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, errb.String())
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != *found.Total {
		return 0, 0, fmt.Errorf("find over %s counts %d lines, %s %d", j.root, *found.Total, strings.Join(argv, " "), n)
	}
	return a.Elapsed, grep, nil
}

// listOnce times one inspect of "." and one git ls-files, and checks that
// they list the same number of files.
func (r *runner) listOnce(ctx context.Context, s *session, j pathsJob) (loom, git time.Duration, err error) {
	pause()
	ds, a, err := inspect(ctx, s, ".")
	if err != nil {
		return 0, 0, err
	}
	pause()
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-co", "--exclude-standard")
	cmd.Dir = j.root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	t0 := time.Now()
	out, err := cmd.Output()
	git = time.Since(t0)
	if err != nil {
		return 0, 0, fmt.Errorf("git ls-files in %s: %w", j.root, err)
	}
	var d struct {
		Lines int64 `json:"lines"`
	}
	if len(ds) != 1 {
		return 0, 0, errors.New("inspect of . gave no descriptor")
	}
	var res struct {
		Results []struct {
			Lines int64 `json:"lines"`
		} `json:"results"`
	}
	if err := json.Unmarshal(a.Structured, &res); err != nil || len(res.Results) != 1 {
		return 0, 0, fmt.Errorf("inspect of .: %.200s", a.Structured)
	}
	d.Lines = res.Results[0].Lines
	if n := int64(bytes.Count(out, []byte("\n"))); n != d.Lines {
		return 0, 0, fmt.Errorf("the listing of %s has %d lines, git ls-files %d", j.root, d.Lines, n)
	}
	return a.Elapsed, git, nil
}
