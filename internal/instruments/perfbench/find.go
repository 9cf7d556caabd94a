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
	"strconv"
	"strings"
	"time"
)

// A findCase is one row against grep: find of a literal, with or without
// ignore_case, that matches one line or most lines of the source.
type findCase struct {
	key, name  string
	pattern    string
	ignoreCase bool
	target     float64
}

var findCases = []findCase{
	{"findone", "find literal, 1 line", findNeedle, false, 1.0},
	{"findmost", "find literal, most lines", findCommon, false, 1.0},
	{"findonei", "find ignore_case, 1 line", strings.ToUpper(findNeedle), true, 1.5},
	{"findmosti", "find ignore_case, most lines", strings.ToUpper(findCommon), true, 1.5},
}

// grepFlags are the flags of the grep that does what fc's find does, as
// the issue names them: -F -c for a literal, -c -i for ignore_case.
func (fc findCase) grepFlags() []string {
	if fc.ignoreCase {
		return []string{"-c", "-i"}
	}
	return []string{"-F", "-c"}
}

func (fc findCase) grepName() string { return "grep " + strings.Join(fc.grepFlags(), " ") }

func (fc findCase) args() string {
	b, _ := json.Marshal(map[string]any{"result": "r1", "pattern": fc.pattern, "ignore_case": fc.ignoreCase})
	return string(b)
}

// grepLocale is the locale grep runs in: UTF-8, so that -i folds case as
// find's ignore_case does (Unicode simple folding), not bytes.
const grepLocale = "C.UTF-8"

// findPhase times find over a warm server's result against grep over the
// same file, less grep's start (the same grep over an empty file), in
// turn: find, grep, grep's start, for each case.
func (r *runner) findPhase(ctx context.Context) error {
	if r.cfg.Grep == "" {
		return nil
	}
	s, err := r.startLoom(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	if _, _, err := inspect(ctx, s, findFile); err != nil {
		return err
	}
	r.rep.Notes = append(r.rep.Notes, "grep runs with LC_ALL="+grepLocale+", so that -i folds Unicode as find's ignore_case does")
	return r.rounds(ctx, PhaseFind, func(ctx context.Context, i int) error {
		for j := range findCases {
			fc := findCases[(i+j)%len(findCases)]
			var loom, grep []float64
			for range findCalls {
				l, g, err := r.findOnce(ctx, s, fc)
				if err != nil {
					return fmt.Errorf("%s: %w", fc.name, err)
				}
				loom, grep = append(loom, ms(l)), append(grep, ms(g))
			}
			row := r.rows[fc.key]
			row.Loom = append(row.Loom, Median(loom))
			row.BaseSamples = append(row.BaseSamples, Median(grep))
		}
		return nil
	})
}

// findCalls is the number of finds (and greps) of each case per round; a
// round's sample is their median.
const findCalls = 3

// findOnce times one find and one grep, less grep's start, each after a
// pause, and checks that they count the same lines.
func (r *runner) findOnce(ctx context.Context, s *session, fc findCase) (loom, grep time.Duration, err error) {
	pause()
	if _, err := s.call(ctx, "begin_step", `{}`); err != nil {
		return 0, 0, err
	}
	a, err := s.call(ctx, "find", fc.args())
	if err != nil {
		return 0, 0, err
	}
	var found struct {
		Total *int `json:"total"`
	}
	if err := json.Unmarshal(a.Structured, &found); err != nil || found.Total == nil {
		return 0, 0, fmt.Errorf("find %s: no total in %.200s", fc.args(), a.Structured)
	}
	argv := append(append([]string{r.cfg.Grep}, fc.grepFlags()...), fc.pattern)
	pause()
	d, n, err := timeGrep(ctx, append(argv, filepath.Join(r.c.Root, findFile)))
	if err != nil {
		return 0, 0, err
	}
	if n != *found.Total {
		return 0, 0, fmt.Errorf("find counts %d lines, %s %d", *found.Total, fc.grepName(), n)
	}
	var starts []float64
	for range grepStarts {
		pause()
		start, _, err := timeGrep(ctx, append(argv, filepath.Join(r.c.Root, emptyFile)))
		if err != nil {
			return 0, 0, err
		}
		starts = append(starts, float64(start))
	}
	return a.Elapsed, lessStart(d, time.Duration(Median(starts))), nil
}

// grepStarts is the number of times grep's start is timed for each grep:
// a start is a millisecond or two, and one slow one on a busy machine
// would take most of the grep's time away.
const grepStarts = 3

// lessStart is a process's time less its start, or 0 when the start was
// measured slower than the whole (a busy machine): a baseline of 0 leaves
// that round out of the row's ratio rather than give it a meaningless one.
func lessStart(d, start time.Duration) time.Duration { return max(d-start, 0) }

// timeGrep runs grep -c (argv) in grepLocale and returns its wall time and
// the count it printed. Status 1 (no line matched) is a count of 0.
func timeGrep(ctx context.Context, argv []string) (time.Duration, int, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL="+grepLocale)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return d, 0, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, errb.String())
	}
	n, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		return d, 0, fmt.Errorf("%s printed %q, not a count", strings.Join(argv, " "), out.String())
	}
	return d, n, nil
}
