package perfbench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Config says what to run and on which sizes.
type Config struct {
	// Runs is the number of interleaved rounds.
	Runs int
	// Phases are the phases to run, of AllPhases; nil runs them all.
	Phases []string
	// Loom is the command that starts loom-results; --root and limit flags
	// are appended.
	Loom []string
	// Replay is the loom-replay command (internal/instruments/replayserver); nil skips
	// the rows against the replay server and handler.
	Replay []string
	// FSServer is the command that starts @modelcontextprotocol/server-
	// filesystem (the allowed directory is appended); nil skips its rows.
	FSServer []string
	// OpenSSL, JQ and Grep are the programs' paths; "" skips their rows.
	OpenSSL, JQ, Grep string
	// Dir is a fresh directory for the corpus.
	Dir string
	// InspectBytes is the size of the inspected file and of each file that
	// fills the store; TextBytes the file of the get_lines rows; JSONBytes
	// the get_json document; FindBytes the text of the rows against grep.
	// All at most --max-result-bytes.
	InspectBytes, TextBytes, JSONBytes, FindBytes int
	// InspectSizes are the smaller sizes of the inspect cost per MiB row;
	// InspectBytes is its largest.
	InspectSizes []int
	// StoreBytes is --max-store-bytes of the server whose peak RSS is read.
	StoreBytes int64
	// HTTPSessions are the session counts of the HTTP rows; HTTPLookups
	// the lookups of each measure, shared among its sessions; HTTPBytes
	// the size of the text and of the JSON document each session reads.
	HTTPSessions []int
	HTTPLookups  int
	HTTPBytes    int
	// Repo is this repository's directory, for the paths phase's row on
	// it ("" skips that row); TreeFiles and TreeBytes the generated tree's
	// files and bytes.
	Repo                 string
	TreeFiles, TreeBytes int
	// Module is the module's root directory, where the run rows run go
	// test; "" skips those rows. FloodBytes is what the flood row's command
	// writes.
	Module     string
	FloodBytes int64
	// Progress receives one line per round; nil for none.
	Progress io.Writer
}

// The phases of a run, in the order they run. Each has its own servers
// and stops them before the next starts.
const (
	PhaseWarm   = "warm"   // warm lookups against the floor and server-filesystem
	PhaseReplay = "replay" // warm lookups against the replay server, raw pipe and Go SDK
	PhaseFind   = "find"   // find against grep
	PhaseHTTP   = "http"   // HTTP lookups/s against the replay handler
	PhaseCold   = "cold"   // fresh servers: start, inspect, first pointer, re-inspect, peak RSS
	PhasePaths  = "paths"  // find over paths against grep -rn, the listing against git ls-files
	PhaseRun    = "run"    // run against the command run directly; a flood's peak RSS; the end of a timeout
	PhaseRunLog = "runlog" // what a model reads of a failing go test ./... through run (on request: the whole suite)
)

// AllPhases are the phases in the order they run, when none are named.
var AllPhases = []string{PhaseWarm, PhaseReplay, PhaseFind, PhasePaths, PhaseHTTP, PhaseCold, PhaseRun}

// OnRequest are the phases that run only when named.
var OnRequest = []string{PhaseRunLog}

// DefaultConfig returns the sizes of the issue: a 16 MiB file (and 1 and 4
// MiB ones), a 5 MiB file, a 16 MiB JSON document, a 64 MiB store (the
// SPEC defaults), 16 MiB of source for find, and 1, 8 and 32 HTTP sessions.
func DefaultConfig() Config {
	return Config{
		Runs:         7,
		InspectBytes: 16<<20 - 64,
		InspectSizes: []int{1<<20 - 64, 4<<20 - 64},
		TextBytes:    5 << 20,
		JSONBytes:    16 << 20,
		FindBytes:    16<<20 - 64,
		StoreBytes:   64 << 20,
		HTTPSessions: []int{1, 8, 32},
		HTTPLookups:  3000,
		HTTPBytes:    1 << 20,
		TreeFiles:    10_000,
		TreeBytes:    100 << 20,
		FloodBytes:   1 << 30,
	}
}

// SmallConfig is DefaultConfig at sizes that run in seconds: to check the
// program, not to measure.
func SmallConfig() Config {
	cfg := DefaultConfig()
	cfg.Runs = 1
	cfg.InspectBytes, cfg.InspectSizes = 1<<20, []int{256 << 10, 512 << 10}
	cfg.TextBytes, cfg.JSONBytes, cfg.FindBytes = 256<<10, 1<<20, 1<<20
	cfg.StoreBytes = 4 << 20
	cfg.HTTPSessions, cfg.HTTPLookups, cfg.HTTPBytes = []int{1, 4}, 200, 64<<10
	cfg.TreeFiles, cfg.TreeBytes = 500, 2<<20
	cfg.FloodBytes = 64 << 20
	return cfg
}

// Check reports a configuration Run refuses.
func (c Config) Check() error {
	if c.Runs < 1 {
		return fmt.Errorf("runs %d: need at least 1", c.Runs)
	}
	for _, p := range c.Phases {
		if !slices.Contains(AllPhases, p) && !slices.Contains(OnRequest, p) {
			return fmt.Errorf("no phase %q (phases: %s)", p, strings.Join(append(slices.Clone(AllPhases), OnRequest...), ", "))
		}
	}
	return nil
}

// runs reports whether the run includes phase: the named phases, or
// when none are named, AllPhases.
func (c Config) runs(phase string) bool {
	if c.Phases == nil {
		return slices.Contains(AllPhases, phase)
	}
	return slices.Contains(c.Phases, phase)
}

// fsTail is server-filesystem's "tail" for the last 20 lines: it splits
// the file at "\n" and counts the empty string after the final newline as
// a line, so tail:20 returns only 19 lines.
const fsTail = 21

// lookupCalls is the number of calls per round of each warm lookup (and
// five times as many floor calls, one before each).
const lookupCalls = 5

type runner struct {
	cfg  Config
	c    *corpus
	rows map[string]*Row
	rep  *Report
	// bigSHA is big.txt's digest; sizeTimes the fresh inspects' times by
	// file size, for the per-MiB row's note.
	bigSHA    string
	sizeTimes map[int][]float64
}

func (r *runner) row(key string) *Row { return r.rows[key] }

// Run measures every row of cfg.Phases, each phase in cfg.Runs interleaved
// rounds, and returns the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	c, err := writeCorpus(cfg.Dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("writing the corpus: %w", err)
	}
	sum := sha256.Sum256(c.Big)
	rep := &Report{Date: time.Now(), NProc: runtime.NumCPU(), CPU: cpuModel(), GoVersion: runtime.Version(), Runs: cfg.Runs}
	r := &runner{cfg: cfg, c: c, rep: rep, rows: map[string]*Row{}, bigSHA: hex.EncodeToString(sum[:]), sizeTimes: map[int][]float64{}}
	r.defineRows()

	// The phases one after the other, each in interleaved rounds and with
	// its own servers, so that no process of one phase works beside a
	// measure of another: the cold measures last, with every warm server
	// stopped.
	phases := []struct {
		name string
		run  func(context.Context) error
	}{
		{PhaseWarm, r.warmPhase},
		{PhaseReplay, r.replayPhase},
		{PhaseFind, r.findPhase},
		{PhasePaths, r.pathsPhase},
		{PhaseHTTP, r.httpPhase},
		{PhaseCold, r.coldPhase},
		{PhaseRun, r.runPhase},
		{PhaseRunLog, r.runLogPhase},
	}
	for _, p := range phases {
		if !cfg.runs(p.name) {
			continue
		}
		if err := p.run(ctx); err != nil {
			return nil, fmt.Errorf("%s phase: %w", p.name, err)
		}
	}
	if row := r.rows["permib"]; row != nil {
		row.Note = r.sizeNote()
	}
	return rep, nil
}

// rounds runs round cfg.Runs times, reporting each on Progress.
func (r *runner) rounds(ctx context.Context, phase string, round func(ctx context.Context, i int) error) error {
	for i := range r.cfg.Runs {
		if err := round(ctx, i); err != nil {
			return fmt.Errorf("round %d: %w", i+1, err)
		}
		if r.cfg.Progress != nil {
			fmt.Fprintf(r.cfg.Progress, "loom-perf: %s round %d/%d done\n", phase, i+1, r.cfg.Runs)
		}
	}
	return nil
}

// warmPhase times the warm lookups against the floor and server-filesystem,
// with both servers running.
func (r *runner) warmPhase(ctx context.Context) error {
	warm, err := r.startLoom(ctx)
	if err != nil {
		return err
	}
	defer warm.close()
	if err := r.prepareWarm(ctx, warm); err != nil {
		return err
	}
	var fs *session
	if r.cfg.FSServer != nil {
		if fs, err = startSession(ctx, append(append([]string{}, r.cfg.FSServer...), r.c.Root)); err != nil {
			return err
		}
		defer fs.close()
		if err := r.checkSame(ctx, warm, fs); err != nil {
			return err
		}
	}
	return r.rounds(ctx, PhaseWarm, func(ctx context.Context, _ int) error { return r.warmRound(ctx, warm, fs) })
}

// coldPhase runs the cold rounds.
func (r *runner) coldPhase(ctx context.Context) error {
	return r.rounds(ctx, PhaseCold, func(ctx context.Context, _ int) error { return r.coldRound(ctx) })
}

// Sections of the report.
const (
	sectionPeers  = "Against peers and the floor"
	sectionLimits = "Against the limits: loom ÷ a reference that cannot be beaten"
)

func (r *runner) defineRows() {
	fsName := "server-filesystem"
	mid := r.c.TextLines / 2
	add := func(key string, row *Row) {
		r.rows[key] = row
		r.rep.Rows = append(r.rep.Rows, row)
	}
	mib := sizeName
	peers := func(key string, row *Row) {
		row.Section = sectionPeers
		add(key, row)
	}
	if r.cfg.runs(PhaseCold) {
		peers("inspect", &Row{Name: "inspect " + mib(r.cfg.InspectBytes) + " (fresh server)", Unit: "ms", Base: "openssl dgst -sha256 (process)", Target: AtMost(1.0, "≤ 1.0x")})
	}
	if r.cfg.runs(PhaseWarm) {
		peers("floor", &Row{Name: "floor: begin_step", Unit: "ms"})
		peers("tail", &Row{Name: "get_lines last 20 of " + mib(r.cfg.TextBytes), Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
		peers("tailfs", &Row{Name: "get_lines last 20 of " + mib(r.cfg.TextBytes), Unit: "ms", Base: fmt.Sprintf("%s tail:%d", fsName, fsTail), Target: AtMost(0.6, "≤ 0.6x")})
		peers("mid", &Row{Name: fmt.Sprintf("get_lines 20 at line %d", mid), Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
		peers("midfs", &Row{Name: fmt.Sprintf("get_lines 20 at line %d", mid), Unit: "ms", Base: fmt.Sprintf("%s head:%d", fsName, mid+20), Speedup: true, Target: FasterBy(20, "≥ 20x faster")})
		peers("midbytes", &Row{Name: fmt.Sprintf("text returned, 20 at line %d", mid), Unit: "bytes", Base: fmt.Sprintf("%s head:%d", fsName, mid+20)})
		peers("range", &Row{Name: "get_range 20 lines' bytes, end of " + mib(r.cfg.TextBytes), Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
		peers("list", &Row{Name: "list_results, 16-entry page", Unit: "ms", Base: "floor", Target: AtMost(3, "≤ 3x floor")})
	}
	if r.cfg.runs(PhaseCold) {
		peers("json1", &Row{Name: "first get_json, " + mib(r.cfg.JSONBytes) + " (fresh server)", Unit: "ms", Base: "jq -c (process)", Target: AtMost(0.05, "≤ 0.05x")})
	}
	if r.cfg.runs(PhaseWarm) {
		peers("json2", &Row{Name: "later get_json, elsewhere", Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
	}
	if r.cfg.runs(PhaseCold) {
		peers("rss", &Row{Name: "peak RSS (VmHWM), full store", Unit: "MiB", Base: "stored bytes", Target: &Target{
			Text: "≤ 1.05x stored + 16 MiB",
			Met:  func(loom, base float64) bool { return base > 0 && loom <= 1.05*base+16 },
		}})
		peers("ready", &Row{Name: "process start to tools/list", Unit: "ms", Base: fsName, Target: &Target{
			Text:     "≤ 15 ms (loom)",
			Met:      func(loom, _ float64) bool { return loom <= 15 },
			Absolute: true,
		}})
	}
	r.defineLimitRows(add)
	r.definePathsRows(add)
	r.defineRunRows(add)
	if r.cfg.FSServer == nil && (r.cfg.runs(PhaseWarm) || r.cfg.runs(PhaseCold)) {
		for _, k := range []string{"tailfs", "midfs", "midbytes", "ready"} {
			if row := r.rows[k]; row != nil {
				row.Note = "server-filesystem not installed"
			}
		}
		r.rep.Notes = append(r.rep.Notes, "server-filesystem rows skipped: run `npm ci` in clients/")
	}
	if r.cfg.OpenSSL == "" && r.cfg.runs(PhaseCold) {
		r.rows["inspect"].Note = "openssl not found"
		r.rows["jsoninspect"].Note = "openssl not found"
	}
	if r.cfg.JQ == "" && r.cfg.runs(PhaseCold) {
		r.rows["json1"].Note = "jq not found"
		r.rep.Notes = append(r.rep.Notes, "jq row skipped: jq is not on PATH (apt-get install -y jq)")
	}
}

// defineLimitRows defines the rows of issue 15's table: loom against the
// reference that cannot be beaten, in the order, each paired round
// by round.
func (r *runner) defineLimitRows(add func(string, *Row)) {
	mib := sizeName
	limit := func(key string, row *Row) {
		row.Section, row.Paired = sectionLimits, true
		add(key, row)
	}
	if r.cfg.runs(PhaseCold) {
		limit("sha", &Row{Name: "inspect " + mib(r.cfg.InspectBytes) + " text (fresh server)", Unit: "ms", Base: "Go SHA-256, bytes in memory", Target: AtMost(1.25, "≤ 1.25x")})
		limit("jsoninspect", &Row{Name: "inspect " + mib(r.cfg.JSONBytes) + " JSON (fresh server)", Unit: "ms", Base: "openssl dgst -sha256 (process)", Target: AtMost(1.0, "≤ 1.0x")})
		sizes := []string{}
		for _, s := range append(append([]int{}, r.cfg.InspectSizes...), r.cfg.InspectBytes) {
			sizes = append(sizes, sizeName(s))
		}
		limit("permib", &Row{Name: "inspect cost per MiB, most of " + strings.Join(sizes, ", ") + " (fresh servers)", Unit: "ms/MiB", Base: "least of them", Target: AtMost(1.25, "≤ 1.25x")})
		limit("reinspect", &Row{Name: "re-inspect of the unchanged " + mib(r.cfg.InspectBytes) + " (live server)", Unit: "ms", Base: "its inspect in a fresh server", Target: AtMost(1.0, "≤ 1.0x")})
	}
	if r.cfg.runs(PhaseReplay) {
		for _, client := range replayClients {
			for _, job := range r.replayJobs() {
				limit(client.key+job.key, &Row{Name: job.name + ", " + client.name, Unit: "ms", Base: "replay server, " + client.name, Target: AtMost(client.target, fmt.Sprintf("≤ %.2fx", client.target))})
			}
		}
	}
	if r.cfg.runs(PhaseFind) {
		for _, fc := range findCases {
			limit(fc.key, &Row{Name: fc.name + " of " + mib(r.cfg.FindBytes) + " source", Unit: "ms", Base: fc.grepName() + " less its start", Target: AtMost(fc.target, fmt.Sprintf("≤ %.1fx", fc.target))})
		}
	}
	if r.cfg.runs(PhaseHTTP) {
		for _, n := range r.cfg.HTTPSessions {
			limit(fmt.Sprintf("http%d", n), &Row{Name: fmt.Sprintf("HTTP lookups/s, %d session%s", n, plural(n)), Unit: "lookups/s", Base: "replay handler (ratio replay ÷ loom)", Higher: true, Target: AtMost(1.10, "≤ 1.10x")})
		}
	}
	if r.cfg.Replay == nil && (r.cfg.runs(PhaseReplay) || r.cfg.runs(PhaseHTTP)) {
		r.rep.Notes = append(r.rep.Notes, "replay rows skipped: no loom-replay command")
	}
	if r.cfg.Grep == "" && r.cfg.runs(PhaseFind) {
		r.rep.Notes = append(r.rep.Notes, "find rows skipped: grep is not on PATH")
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (r *runner) startLoom(ctx context.Context, extra ...string) (*session, error) {
	argv := append(append(append([]string{}, r.cfg.Loom...), "--root", r.c.Root), extra...)
	return startSession(ctx, argv)
}

// descriptor is the part of an inspect entry the harness reads.
type descriptor struct {
	ID       *string `json:"id"`
	SHA256   string  `json:"sha256"`
	Bytes    int64   `json:"bytes"`
	Reused   bool    `json:"reused"`
	Retained bool    `json:"retained"`
	Error    *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// pathsArgs is inspect's arguments for paths.
func pathsArgs(paths []string) string {
	b, _ := json.Marshal(map[string]any{"paths": paths})
	return string(b)
}

func inspect(ctx context.Context, s *session, paths ...string) ([]descriptor, *answer, error) {
	a, err := s.call(ctx, "inspect", pathsArgs(paths))
	if err != nil {
		return nil, nil, err
	}
	var out struct {
		Results []descriptor `json:"results"`
	}
	if err := json.Unmarshal(a.Structured, &out); err != nil {
		return nil, nil, fmt.Errorf("inspect: %w", err)
	}
	for i, d := range out.Results {
		if d.Error != nil {
			return nil, nil, fmt.Errorf("inspect %s: %s", paths[i], d.Error.Code)
		}
	}
	return out.Results, a, nil
}

// prepareWarm inspects text.txt (r1), big.json (r2, indexed by a first
// pointer) and the 16 small files (r3-r18) in the warm server.
func (r *runner) prepareWarm(ctx context.Context, s *session) error {
	if _, _, err := inspect(ctx, s, "text.txt"); err != nil {
		return err
	}
	if _, _, err := inspect(ctx, s, "big.json"); err != nil {
		return err
	}
	if _, err := s.call(ctx, "get_json", `{"result":"r2","pointer":"/meta"}`); err != nil {
		return err
	}
	if _, _, err := inspect(ctx, s, r.c.Small...); err != nil {
		return err
	}
	_, err := s.call(ctx, "begin_step", `{}`)
	return err
}

func (r *runner) tailArgs() string {
	return fmt.Sprintf(`{"result":"r1","first":%d,"last":%d}`, r.c.TextLines-19, r.c.TextLines)
}

func (r *runner) midArgs() string {
	mid := r.c.TextLines / 2
	return fmt.Sprintf(`{"result":"r1","first":%d,"last":%d}`, mid+1, mid+20)
}

func (r *runner) fsArgs(key string, n int) string {
	b, _ := json.Marshal(map[string]any{"path": filepath.Join(r.c.Root, "text.txt"), key: n})
	return string(b)
}

// checkSame makes sure both servers return the same lines for the same job,
// so that the rows compare like with like.
func (r *runner) checkSame(ctx context.Context, loom, fs *session) error {
	for _, job := range []struct{ loom, fs string }{
		{r.tailArgs(), r.fsArgs("tail", fsTail)},
		{r.midArgs(), r.fsArgs("head", r.c.TextLines/2+20)},
	} {
		if _, err := loom.call(ctx, "begin_step", `{}`); err != nil {
			return err
		}
		a, err := loom.call(ctx, "get_lines", job.loom)
		if err != nil {
			return err
		}
		b, err := fs.call(ctx, "read_text_file", job.fs)
		if err != nil {
			return err
		}
		if want := strings.TrimRight(a.Text, "\n"); !strings.HasSuffix(strings.TrimRight(b.Text, "\n"), want) {
			return fmt.Errorf("server-filesystem %s does not end with loom's %s", job.fs, job.loom)
		}
	}
	return nil
}

// timedLookup starts a step with begin_step, the floor, then calls one
// lookup, and times both: each lookup is compared with the floor call made
// just before it on the same session, in the same state.
func (r *runner) timedLookup(ctx context.Context, s *session, tool, args string) (*answer, error) {
	floor, err := s.call(ctx, "begin_step", `{}`)
	if err != nil {
		return nil, err
	}
	r.rows["floor"].Loom = append(r.rows["floor"].Loom, ms(floor.Elapsed))
	return s.call(ctx, tool, args)
}

// warmRound times the warm lookups, interleaved call by call.
func (r *runner) warmRound(ctx context.Context, warm, fs *session) error {
	for i := range lookupCalls {
		if err := r.warmLookups(ctx, warm, fs, i); err != nil {
			return err
		}
	}
	floor := r.row("floor").Loom
	for _, k := range []string{"tail", "mid", "range", "list", "json2"} {
		r.rows[k].BaseSamples = floor
	}
	return nil
}

// warmLookups times one of each warm lookup; i varies the get_json pointer.
// The server-filesystem calls come last: their answers (2.6 MB for the
// head) leave garbage in this client and work in that server, both
// finished (settle) before the next loom call so that no loom call is
// charged with them.
func (r *runner) warmLookups(ctx context.Context, warm, fs *session, i int) error {
	add := func(key string, d time.Duration) { r.rows[key].Loom = append(r.rows[key].Loom, ms(d)) }
	base := func(key string, d time.Duration) { r.rows[key].BaseSamples = append(r.rows[key].BaseSamples, ms(d)) }
	// The five lookups, in an order that turns with i: the first after
	// the settle below finds the server idle for 300 ms, and was the
	// slowest (tail 0.410 ms against the same 760 bytes from the middle
	// at 0.344), so no row always takes that place.
	jobs := []func() error{
		func() error {
			a, err := r.timedLookup(ctx, warm, "get_lines", r.tailArgs())
			if err == nil {
				add("tail", a.Elapsed)
				add("tailfs", a.Elapsed)
			}
			return err
		},
		func() error {
			a, err := r.timedLookup(ctx, warm, "get_lines", r.midArgs())
			if err == nil {
				add("mid", a.Elapsed)
				add("midfs", a.Elapsed)
				r.rows["midbytes"].Loom = append(r.rows["midbytes"].Loom, float64(len(a.Text)))
			}
			return err
		},
		func() error {
			// The last 20 lines' bytes: every line but the first is lineLen bytes.
			end := int64(r.cfg.TextBytes)
			if info, err := os.Stat(filepath.Join(r.c.Root, "text.txt")); err == nil {
				end = info.Size()
			}
			a, err := r.timedLookup(ctx, warm, "get_range", fmt.Sprintf(`{"result":"r1","start":%d,"end":%d}`, end-int64(20*lineLen), end))
			if err == nil {
				add("range", a.Elapsed)
			}
			return err
		},
		func() error {
			a, err := r.timedLookup(ctx, warm, "list_results", `{"page":0,"page_size":16}`)
			if err == nil {
				add("list", a.Elapsed)
			}
			return err
		},
		func() error {
			item := (i*7919 + len(r.rows["json2"].Loom)*104729) % r.c.JSONItems
			a, err := r.timedLookup(ctx, warm, "get_json", fmt.Sprintf(`{"result":"r2","pointer":"/items/%d/tags/1","as":"string"}`, item))
			if err == nil {
				add("json2", a.Elapsed)
			}
			return err
		},
	}
	for k := range jobs {
		if err := jobs[(i+k)%len(jobs)](); err != nil {
			return err
		}
	}
	if fs != nil {
		b, err := fs.call(ctx, "read_text_file", r.fsArgs("tail", fsTail))
		if err != nil {
			return err
		}
		base("tailfs", b.Elapsed)
		b, err = fs.call(ctx, "read_text_file", r.fsArgs("head", r.c.TextLines/2+20))
		if err != nil {
			return err
		}
		base("midfs", b.Elapsed)
		r.rows["midbytes"].BaseSamples = append(r.rows["midbytes"].BaseSamples, float64(len(b.Text)))
		// server-filesystem goes on collecting its answer after sending
		// it, on the same two cores: let it finish first. Then one untimed
		// call, so that the next timed one finds the server as every other
		// does: just after a call of its own.
		settle()
		if _, err := warm.call(ctx, "begin_step", `{}`); err != nil {
			return err
		}
	}
	return nil
}

// settle lets the processes of earlier measures finish their background
// work, and collects this one's garbage, before a cold measure.
func settle() {
	runtime.GC()
	time.Sleep(settleTime)
}

// settleTime is how long settle waits.
const settleTime = 300 * time.Millisecond

// pause collects this process's garbage and lets the others' background
// work finish before a measure of a few milliseconds: shorter than settle,
// which comes before the cold measures.
func pause() {
	runtime.GC()
	time.Sleep(pauseTime)
}

// pauseTime is how long pause waits.
const pauseTime = 100 * time.Millisecond

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
