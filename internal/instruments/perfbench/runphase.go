package perfbench

import (
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

// The rows of run (SPEC section 10): what running a command through the
// server costs over running it directly, the server's memory while a
// command floods it, how soon a timed-out command's processes are all gone,
// and (phase runlog, on request: it runs this repository's whole test
// suite) what a model reads of a failing go test ./... through run.

const sectionRun = "run: against running the command directly"

// runScript is the command of the timeout row: descendants in the group,
// one that left it (setsid) and a double-forking daemon, each printing its
// PID; it runs until --run-timeout ends it.
const runScript = `setsid sleep 600 &
echo $!
sleep 600 &
echo $!
setsid sh -c 'sleep 600 & echo $!' &
wait
`

// runTimeout is --run-timeout of the timeout row.
const runTimeout = time.Second

func (r *runner) defineRunRows(add func(string, *Row)) {
	row := func(key string, rw *Row) {
		rw.Section = sectionRun
		add(key, rw)
	}
	if r.cfg.runs(PhaseRun) {
		row("runtrue", &Row{Name: "run true", Unit: "ms", Base: "true (process)", Paired: true})
		gotest := &Row{Name: "run go test ./limits", Unit: "ms", Base: "go test ./limits (process)", Paired: true}
		if r.cfg.Module == "" {
			gotest.Note = "not in the module: no go test"
		}
		row("rungotest", gotest)
		bound := float64(2*runResultBytes)/(1<<20) + 32
		row("runflood", &Row{Name: "peak RSS (VmHWM), run of a " + sizeName(int(r.cfg.FloodBytes)) + " flood", Unit: "MiB",
			Base: fmt.Sprintf("2 x --max-result-bytes (%s) + 32 MiB", sizeName(runResultBytes)), Target: AtMost(1, "≤ 1x"),
			Note: fmt.Sprintf("bound %.0f MiB", bound)})
		row("runend", &Row{Name: "timeout to every descendant ended (3 sleeps, setsid and a daemon)", Unit: "ms"})
	}
	if r.cfg.runs(PhaseRunLog) {
		for _, c := range logCommands {
			log := &Row{Name: "bytes a model reads, failing " + c.command + ": run's answer + find FAIL", Unit: "bytes", Base: "the whole log"}
			if r.cfg.Module == "" {
				log.Note = "not in the module: no go test"
			}
			row(c.key, log)
		}
	}
}

// runResultBytes is --max-result-bytes of the flood row: the default.
const runResultBytes = 16 << 20

// runPhase runs the run rounds, each with fresh servers.
func (r *runner) runPhase(ctx context.Context) error {
	if err := os.WriteFile(filepath.Join(r.c.Root, "descendants.sh"), []byte(runScript), 0o644); err != nil {
		return err
	}
	return r.rounds(ctx, PhaseRun, func(ctx context.Context, _ int) error { return r.runRound(ctx) })
}

// runRound measures each run row once, loom before its reference.
func (r *runner) runRound(ctx context.Context) error {
	add := func(key string, v float64) { r.rows[key].Loom = append(r.rows[key].Loom, v) }
	base := func(key string, v float64) { r.rows[key].BaseSamples = append(r.rows[key].BaseSamples, v) }

	// run true against true, in a server started for it; a first call
	// before the measured one, so that both sides find the program cached.
	s, err := r.startLoom(ctx, "--run", "t=true")
	if err != nil {
		return err
	}
	if _, err := runCall(ctx, s, "t"); err != nil {
		s.close()
		return err
	}
	pause()
	a, err := runCall(ctx, s, "t")
	s.close()
	if err != nil {
		return err
	}
	add("runtrue", ms(a.Elapsed))
	pause()
	d, _, err := timeProcess(ctx, []string{"true"})
	if err != nil {
		return err
	}
	base("runtrue", ms(d))

	if r.cfg.Module != "" {
		// go test ./limits in the module, the test cache warm on both sides.
		s, err := startSession(ctx, append(append([]string{}, r.cfg.Loom...), "--root", r.cfg.Module, "--run", "t=go test ./limits"))
		if err != nil {
			return err
		}
		if _, err := runCall(ctx, s, "t"); err != nil {
			s.close()
			return err
		}
		pause()
		a, err := runCall(ctx, s, "t")
		s.close()
		if err != nil {
			return err
		}
		add("rungotest", ms(a.Elapsed))
		pause()
		cmd := exec.CommandContext(ctx, "go", "test", "./limits")
		cmd.Dir = r.cfg.Module
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go test ./limits: %w: %s", err, out)
		}
		base("rungotest", ms(time.Since(t0)))
	}

	// The flood: the peak RSS of a fresh server whose command writes
	// FloodBytes as fast as it can.
	settle()
	s, err = r.startLoom(ctx, "--max-result-bytes", strconv.Itoa(runResultBytes),
		"--run", "flood=head -c "+strconv.FormatInt(r.cfg.FloodBytes, 10)+" /dev/zero")
	if err != nil {
		return err
	}
	a, err = runCall(ctx, s, "flood")
	if err != nil {
		s.close()
		return err
	}
	var fd struct {
		Bytes  int64 `json:"bytes"`
		Source struct {
			DroppedBytes int64 `json:"dropped_bytes"`
		} `json:"source"`
	}
	if err := json.Unmarshal(a.Structured, &fd); err != nil {
		s.close()
		return err
	}
	if fd.Bytes+fd.Source.DroppedBytes != r.cfg.FloodBytes {
		s.close()
		return fmt.Errorf("flood: kept %d and dropped %d bytes of %d", fd.Bytes, fd.Source.DroppedBytes, r.cfg.FloodBytes)
	}
	hwm, err := s.vmHWM()
	s.close()
	if err != nil {
		return err
	}
	add("runflood", float64(hwm)/(1<<20))
	base("runflood", float64(2*runResultBytes)/(1<<20)+32)
	r.floodNote(a.Elapsed)

	// The timeout: the call's time past --run-timeout is the time from the
	// timeout to every process ended (and the answer).
	settle()
	s, err = r.startLoom(ctx, "--run-timeout", runTimeout.String(), "--run", "kids=sh descendants.sh")
	if err != nil {
		return err
	}
	a, err = runCall(ctx, s, "kids")
	s.close()
	if err != nil {
		return err
	}
	if !strings.Contains(a.Text, "timed_out") {
		return fmt.Errorf("the descendants' command did not time out: %s", a.Text)
	}
	// The text is the header, then the output: a PID a line.
	lines := strings.Split(strings.TrimSpace(a.Text), "\n")[1:]
	if len(lines) != 3 {
		return fmt.Errorf("the descendants' command printed %q, not three PIDs", lines)
	}
	for _, line := range lines {
		pid, err := strconv.Atoi(line)
		if err != nil {
			return fmt.Errorf("the descendants' command printed %q, not a PID", line)
		}
		if ended, err := processEnded(pid); !ended {
			return fmt.Errorf("process %d outlived the run (%v)", pid, err)
		}
	}
	add("runend", ms(a.Elapsed-runTimeout))
	return nil
}

// floodNote records the flood's speed in the row's note.
func (r *runner) floodNote(d time.Duration) {
	row := r.rows["runflood"]
	speed := fmt.Sprintf("%.2f GB/s through the server", float64(r.cfg.FloodBytes)/d.Seconds()/1e9)
	if i := strings.Index(row.Note, "; "); i >= 0 {
		row.Note = row.Note[:i]
	}
	row.Note += "; " + speed
}

// runCall calls run with the given name; an error answer is an error.
func runCall(ctx context.Context, s *session, name string) (*answer, error) {
	return s.call(ctx, "run", `{"name":`+strconv.Quote(name)+`}`)
}

// runLogPhase runs go test ./... of a copy of the module in which one test
// fails, through run, then finds FAIL in its output: the bytes of the two
// answers' text against the whole log's. Once: it runs the whole suite.
func (r *runner) runLogPhase(ctx context.Context) error {
	if r.cfg.Module == "" {
		return nil
	}
	copyDir := filepath.Join(r.cfg.Dir, "module")
	if err := copyModule(ctx, r.cfg.Module, copyDir); err != nil {
		return err
	}
	failing := "package limits\n\nimport \"testing\"\n\nfunc TestFailsOnPurpose(t *testing.T) {\n\tt.Fatalf(\"budget = %d, want %d\", 7, 8)\n}\n"
	if err := os.WriteFile(filepath.Join(copyDir, "limits", "zz_fails_test.go"), []byte(failing), 0o644); err != nil {
		return err
	}
	for _, c := range logCommands {
		if err := r.runLog(ctx, copyDir, c.key, c.command); err != nil {
			return err
		}
	}
	return nil
}

// logCommands are the commands of the runlog rows: go test's own output,
// and with -v, every test's lines.
var logCommands = []struct{ key, command string }{
	{"runlog", "go test ./..."},
	{"runlogv", "go test -v ./..."},
}

// runLog runs command in dir through run, finds FAIL in its output, and
// records the bytes of both answers' text against the output's.
func (r *runner) runLog(ctx context.Context, dir, key, command string) error {
	s, err := startSession(ctx, append(append([]string{}, r.cfg.Loom...), "--root", dir, "--run-timeout", "30m", "--run", "test="+command))
	if err != nil {
		return err
	}
	defer s.close()
	a, err := runCall(ctx, s, "test")
	if err != nil {
		return err
	}
	var d struct {
		ID     string `json:"id"`
		Bytes  int64  `json:"bytes"`
		Source struct {
			ExitCode     *int64 `json:"exit_code"`
			DroppedBytes int64  `json:"dropped_bytes"`
		} `json:"source"`
	}
	if err := json.Unmarshal(a.Structured, &d); err != nil {
		return err
	}
	if d.Source.ExitCode == nil || *d.Source.ExitCode == 0 {
		return fmt.Errorf("%s of the copy did not fail: %s", command, a.Text)
	}
	found, err := s.call(ctx, "find", `{"result":`+strconv.Quote(d.ID)+`,"pattern":"FAIL"}`)
	if err != nil {
		return err
	}
	row := r.rows[key]
	row.Loom = append(row.Loom, float64(len(a.Text)+len(found.Text)))
	row.BaseSamples = append(row.BaseSamples, float64(d.Bytes+d.Source.DroppedBytes))
	row.Note = fmt.Sprintf("run's answer %d bytes, find's %d; the run took %.0f s", len(a.Text), len(found.Text), a.Elapsed.Seconds())
	return nil
}

// copyModule copies the module's files that git tracks into dir.
func copyModule(ctx context.Context, module, dir string) error {
	out, err := exec.CommandContext(ctx, "git", "-C", module, "ls-files", "-z").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(module, name))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // deleted in the work tree
			}
			return err
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
