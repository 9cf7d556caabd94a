package editbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxFileBytes is the largest file replayed: SPEC section 2's default
// --max-result-bytes, 16 MiB.
const MaxFileBytes = 16 << 20

// A server's store holds 64 MiB and 1,024 results by default (SPEC 6); a
// session is replaced before a file could pass either.
const (
	sessionStoreBytes = 56 << 20
	sessionResults    = 1000
)

// Options configure Run.
type Options struct {
	// Repo is the repository (any directory inside it).
	Repo string
	// Commits is how many commits of HEAD's first-parent history to replay,
	// newest last; 0 or less means all.
	Commits int
	// Server is the command that serves MCP over stdio; --root DIR and
	// ServerFlags are appended.
	Server      []string
	ServerFlags []string
	// MaxFileBytes skips files larger than this, before or after; 0 means
	// MaxFileBytes.
	MaxFileBytes int64
	// Agent is the agent that plays the model: AgentSplice (the default,
	// "") or AgentWrite, which runs the server with --steps model --write.
	Agent string
	// Answers is AgentWrite's --answers: "text" (the default, "") or
	// "full", where the model reads a success's structured content as
	// JSON, as Claude Code and VS Code show it (SPEC section 1).
	Answers string
	// StepGap is the --step-gap that AgentWrite gives a server that has
	// the flag (SPEC v5); 0 means DefaultStepGap. The model pauses longer
	// than that between its turns, so that each turn begins a step and it
	// calls no begin_step. A server without the flag (SPEC v4) gets none,
	// and the model calls begin_step as that version asks.
	StepGap time.Duration
	// Misaim is the fraction of AgentWrite's edits that name one of their
	// lines one line off (a model that miscounts), drawn with Seed.
	Misaim float64
	Seed   uint64
	// Progress, when not nil, gets one line per commit.
	Progress io.Writer

	mis      *misaimer // Run's, for every commit
	features *features // the server's, found once
}

// DefaultStepGap is the --step-gap of the server the write agent runs:
// small, so that a run stays quick, and well above the milliseconds
// between the calls of one turn.
const DefaultStepGap = 20 * time.Millisecond

// turnPause is how much longer than the gap the model pauses between
// turns.
const turnPause = 10 * time.Millisecond

// features are what the server command serves beyond SPEC v4: --step-gap
// and, with it, line anchors (SPEC v5).
type features struct {
	stepGap bool
}

// serverFeatures reads the server's --help: a v5 server lists -step-gap.
func serverFeatures(ctx context.Context, server []string) *features {
	out, _ := exec.CommandContext(ctx, server[0], append(slices.Clone(server[1:]), "--help")...).CombinedOutput()
	return &features{stepGap: strings.Contains(string(out), "-step-gap")}
}

func (o Options) stepGap() time.Duration {
	if o.StepGap > 0 {
		return o.StepGap
	}
	return DefaultStepGap
}

// agent returns the agent's name and the server flags it needs.
func (o Options) agent() (string, []string) {
	if o.Agent == AgentWrite {
		return AgentWrite, []string{"--steps", "model", "--answers", o.answers(), "--write"}
	}
	return AgentSplice, nil
}

// answers is AgentWrite's --answers.
func (o Options) answers() string {
	if o.Answers == "" {
		return "text"
	}
	return o.Answers
}

// Cost is what one strategy costs on one file: bytes the model reads and
// bytes it generates.
type Cost struct {
	Read      int64 `json:"read"`
	Generated int64 `json:"generated"`
}

func (c Cost) context() int64 { return c.Read + c.Generated }

// FileResult is one modified file of one commit.
type FileResult struct {
	Commit   string `json:"commit"`
	Path     string `json:"path"`
	OldPath  string `json:"old_path,omitempty"`
	Bytes    int    `json:"bytes"`
	NewBytes int    `json:"new_bytes"`
	Hunks    int    `json:"hunks"`
	// OracleHunks are the hunks that find could not locate, so git's
	// position was used.
	OracleHunks    int `json:"oracle_hunks"`
	Finds          int `json:"finds"`
	AmbiguousFinds int `json:"ambiguous_finds"`
	Lookups        int `json:"lookups"`
	Steps          int `json:"steps"`
	Calls          int `json:"calls"`      // every call the model makes, begin_step included
	StepCalls      int `json:"step_calls"` // the model's begin_step calls among them
	Turns          int `json:"turns"`      // the model's turns: calls sent together, each on the answers before
	Retries        int `json:"retries"`
	// Misaims (Options.Misaim): edits sent one line off, those the server
	// refused (detected), those then resent and written right (recovered),
	// and those written as sent (landed silently: the file is not the
	// commit's, SilentLanding).
	MisaimsMade      int  `json:"misaims_made"`
	MisaimsDetected  int  `json:"misaims_detected"`
	MisaimsRecovered int  `json:"misaims_recovered"`
	MisaimsSilent    int  `json:"misaims_silent"`
	SilentLanding    bool `json:"silent_landing,omitempty"`
	// ComposedLines and ComposedBytes are the added lines referenced from
	// the old file instead of retyped; LiteralBytes the escaped literal text
	// of the edits.
	ComposedLines int    `json:"composed_lines"`
	ComposedBytes int64  `json:"composed_bytes"`
	LiteralBytes  int64  `json:"literal_bytes"`
	Preserved     bool   `json:"preserved"`
	Error         string `json:"error,omitempty"`

	Loom       Cost            `json:"loom"`
	Whole      Cost            `json:"whole"`
	StrReplace Cost            `json:"str_replace"`
	Floor      Cost            `json:"floor"`
	LoomParts  map[string]Cost `json:"loom_parts"`
	// StrReplaceParts splits the str_replace baseline's generated bytes.
	StrReplaceParts strReplaceParts `json:"str_replace_parts"`
}

func (r *FileResult) charge(part string, read, generated int64) {
	if r.LoomParts == nil {
		r.LoomParts = map[string]Cost{}
	}
	p := r.LoomParts[part]
	p.Read += read
	p.Generated += generated
	r.LoomParts[part] = p
	r.Loom.Read += read
	r.Loom.Generated += generated
}

// CommitInfo is one replayed commit.
type CommitInfo struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
	Files   int    `json:"files"`
	// Skipped counts the commit's changes that are not replayed, by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
}

// Report is the outcome of Run.
type Report struct {
	Repo    string       `json:"repo"`
	Agent   string       `json:"agent"`
	Answers string       `json:"answers,omitempty"`  // AgentWrite's --answers
	StepGap string       `json:"step_gap,omitempty"` // AgentWrite's --step-gap, when the server has it
	Misaim  float64      `json:"misaim,omitempty"`
	Seed    uint64       `json:"seed,omitempty"`
	Commits []CommitInfo `json:"commits"`
	Files   []FileResult `json:"files"`
}

// Run replays the last opts.Commits commits of opts.Repo. Files the loom
// strategy fails on are reported (not preserved), not returned as errors;
// err is for what stops the run (git, the server not starting, ctx).
func Run(ctx context.Context, opts Options) (*Report, error) {
	if len(opts.Server) == 0 {
		return nil, errors.New("no server command")
	}
	if opts.Agent != "" && opts.Agent != AgentSplice && opts.Agent != AgentWrite {
		return nil, fmt.Errorf("agent %q is not %s or %s", opts.Agent, AgentSplice, AgentWrite)
	}
	if a := opts.answers(); a != "text" && a != "full" {
		return nil, fmt.Errorf("answers %q is not text or full", a)
	}
	if _, err := git(ctx, opts.Repo, "rev-parse", "--git-dir"); err != nil {
		return nil, err
	}
	if opts.Misaim < 0 || opts.Misaim > 1 {
		return nil, fmt.Errorf("misaim %g is not a fraction from 0 to 1", opts.Misaim)
	}
	opts.mis = newMisaimer(opts.Misaim, opts.Seed)
	opts.features = serverFeatures(ctx, opts.Server)
	kind, _ := opts.agent()
	rep := &Report{Repo: opts.Repo, Agent: kind, Misaim: opts.Misaim, Seed: opts.Seed}
	if kind == AgentWrite && opts.features.stepGap {
		rep.StepGap = opts.stepGap().String()
	}
	if kind == AgentWrite {
		rep.Answers = opts.answers()
	}
	commits, err := listCommits(ctx, opts.Repo, opts.Commits)
	if err != nil {
		return nil, err
	}
	bl, err := openBlobs(ctx, opts.Repo)
	if err != nil {
		return nil, err
	}
	defer bl.Close()
	for _, c := range commits {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		info := CommitInfo{Hash: c.Hash, Subject: c.Subject, Skipped: map[string]int{}}
		jobs, err := collect(ctx, opts.Repo, bl, c, opts.maxFileBytes(), info.Skipped)
		if err != nil {
			return rep, fmt.Errorf("commit %.12s: %w", c.Hash, err)
		}
		files, err := replay(ctx, opts, jobs)
		if err != nil {
			return rep, fmt.Errorf("commit %.12s: %w", c.Hash, err)
		}
		info.Files = len(files)
		if len(info.Skipped) == 0 {
			info.Skipped = nil
		}
		rep.Commits = append(rep.Commits, info)
		rep.Files = append(rep.Files, files...)
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%.12s %d file(s) %s\n", c.Hash, len(files), c.Subject)
		}
	}
	return rep, nil
}

// collect returns the jobs of commit c: its modified text files, renamed
// ones included, diffed against its first parent. Everything else is
// counted in skipped by reason.
func collect(ctx context.Context, dir string, bl *blobs, c commit, maxBytes int64, skipped map[string]int) ([]*job, error) {
	if len(c.Parents) == 0 {
		skipped["root_commit"]++
		return nil, nil
	}
	chs, err := changes(ctx, dir, c.Parents[0], c.Hash)
	if err != nil {
		return nil, err
	}
	var jobs []*job
	for _, ch := range chs {
		reason, j, err := prepare(ctx, dir, bl, c, ch, maxBytes)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			skipped[reason]++
			continue
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// prepare reads one change's blobs and hunks, or says why it is skipped.
func prepare(ctx context.Context, dir string, bl *blobs, c commit, ch change, maxBytes int64) (string, *job, error) {
	switch ch.Status {
	case 'M', 'R':
	case 'A':
		return "added", nil, nil
	case 'D':
		return "deleted", nil, nil
	case 'C':
		return "copied", nil, nil
	case 'T':
		return "type_changed", nil, nil
	default:
		return "other", nil, nil
	}
	if !regular(ch.OldMode) || !regular(ch.NewMode) {
		return "not_regular_file", nil, nil
	}
	if ch.OldBlob == ch.NewBlob {
		return "unchanged_content", nil, nil
	}
	if !utf8.ValidString(ch.OldPath) || !utf8.ValidString(ch.NewPath) || !filepath.IsLocal(filepath.FromSlash(ch.OldPath)) {
		return "unusable_path", nil, nil
	}
	old, _, err := bl.read(ch.OldBlob, maxBytes)
	if errors.Is(err, errTooLarge) {
		return "too_large", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	neu, _, err := bl.read(ch.NewBlob, maxBytes)
	if errors.Is(err, errTooLarge) {
		return "too_large", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if !isText(old) || !isText(neu) {
		return "binary", nil, nil
	}
	hunks, err := diffHunks(ctx, dir, ch.OldBlob, ch.NewBlob)
	if err != nil {
		return "", nil, err
	}
	j := &job{commit: c.Hash, oldPath: ch.OldPath, newPath: ch.NewPath, old: old, new: neu, hunks: hunks}
	if err := checkHunks(j); err != nil {
		return "", nil, fmt.Errorf("%s: %w", ch.NewPath, err)
	}
	return "", j, nil
}

func (o Options) maxFileBytes() int64 {
	if o.MaxFileBytes > 0 {
		return o.MaxFileBytes
	}
	return MaxFileBytes
}

func regular(mode string) bool { return mode == "100644" || mode == "100755" }

// checkHunks verifies that the hunks turn the old file into the new one,
// so that every later failure is the server's or the agent's, not git's.
func checkHunks(j *job) error {
	oldLines, newLines := splitLines(j.old), splitLines(j.new)
	var out [][]byte
	next := 1 // the next old line to copy
	for _, h := range j.hunks {
		upto := h.OldStart - 1 // old lines before the hunk
		if h.OldCount == 0 {
			upto = h.OldStart
		}
		if upto < next-1 || upto > len(oldLines) || h.OldStart+h.OldCount-1 > len(oldLines) ||
			h.NewCount > 0 && (h.NewStart < 1 || h.NewStart-1+h.NewCount > len(newLines)) {
			return fmt.Errorf("hunk %+v does not fit %d old and %d new lines", h, len(oldLines), len(newLines))
		}
		out = append(out, oldLines[next-1:upto]...)
		if h.NewCount > 0 {
			out = append(out, newLines[h.NewStart-1:h.NewStart-1+h.NewCount]...)
		}
		next = upto + h.OldCount + 1
	}
	out = append(out, oldLines[next-1:]...)
	if string(join(out)) != string(j.new) {
		return errors.New("git's hunks do not rebuild the new file")
	}
	return nil
}

// replay runs the jobs of one commit against servers rooted at a temporary
// directory that holds the old versions, one server while its store has
// room.
func replay(ctx context.Context, opts Options, jobs []*job) ([]FileResult, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	if opts.features == nil {
		opts.features = serverFeatures(ctx, opts.Server)
	}
	if opts.mis == nil {
		opts.mis = newMisaimer(opts.Misaim, opts.Seed)
	}
	root, err := os.MkdirTemp("", "loom-editbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	for _, j := range jobs {
		p := filepath.Join(root, filepath.FromSlash(j.oldPath))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, j.old, 0o644); err != nil {
			return nil, err
		}
	}
	var (
		s            *session
		used, stored int
		files        []FileResult
	)
	defer func() {
		if s != nil {
			_ = s.close()
		}
	}()
	for _, j := range jobs {
		size := len(j.old) + len(j.new)
		if s != nil && s.broken {
			_ = s.close() // its failure is the failed file's error
			s = nil
		}
		if s != nil && (used+size > sessionStoreBytes || stored+2 > sessionResults) {
			err := s.close()
			s = nil
			if err != nil {
				return files, err
			}
		}
		if s == nil {
			kind, flags := opts.agent()
			gap := kind == AgentWrite && opts.features.stepGap
			if gap {
				flags = append(flags, "--step-gap", opts.stepGap().String())
			}
			if s, err = startSession(ctx, opts.Server, root, append(append([]string{}, opts.ServerFlags...), flags...)); err != nil {
				return files, err
			}
			s.structuredSeen = slices.Contains(flags, "full")
			s.anchored = opts.features.stepGap
			if gap {
				s.pause = opts.stepGap() + turnPause
			}
			used, stored = 0, 0
		}
		used, stored = used+size, stored+2
		kind, _ := opts.agent()
		r := replayFile(ctx, s, j, kind, root, opts.mis)
		if r.Error != "" && ctx.Err() != nil {
			return files, ctx.Err()
		}
		files = append(files, r)
	}
	last := s
	s = nil
	if err := last.close(); err != nil && !last.broken {
		return files, err // a server that fails to exit cleanly fails the run
	}
	return files, nil
}

// replayFile runs the agent on j and computes the baselines.
func replayFile(ctx context.Context, s *session, j *job, kind, root string, mis *misaimer) FileResult {
	r := FileResult{Commit: j.commit, Path: j.newPath, Bytes: len(j.old), NewBytes: len(j.new), Hunks: len(j.hunks)}
	if j.oldPath != j.newPath {
		r.OldPath = j.oldPath
	}
	a := newAgent(s, j, &r, kind, root, mis)
	if err := a.run(ctx); err != nil {
		r.Preserved = false
		r.Error = err.Error()
	}
	r.Whole = wholeCost(j)
	r.StrReplace, r.StrReplaceParts = strReplaceCost(j, a.oldLines, a.newLines)
	r.Floor = floorCost(j, a.oldLines, a.newLines)
	return r
}
