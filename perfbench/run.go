package perfbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config says what to run and on which sizes.
type Config struct {
	// Runs is the number of interleaved rounds.
	Runs int
	// Loom is the command that starts loom-results; --root and limit flags
	// are appended.
	Loom []string
	// FSServer is the command that starts @modelcontextprotocol/server-
	// filesystem (the allowed directory is appended); nil skips its rows.
	FSServer []string
	// OpenSSL and JQ are the programs' paths; "" skips their rows.
	OpenSSL, JQ string
	// Dir is a fresh directory for the corpus.
	Dir string
	// InspectBytes is the size of the inspected file and of each file that
	// fills the store; TextBytes the file of the get_lines rows; JSONBytes
	// the get_json document. All at most --max-result-bytes.
	InspectBytes, TextBytes, JSONBytes int
	// StoreBytes is --max-store-bytes of the server whose peak RSS is read.
	StoreBytes int64
	// Progress receives one line per round; nil for none.
	Progress io.Writer
}

// DefaultConfig returns the sizes of the issue: a 16 MiB file, a 5 MiB file,
// a 16 MiB JSON document and a 64 MiB store (the SPEC defaults).
func DefaultConfig() Config {
	return Config{
		Runs:         7,
		InspectBytes: 16<<20 - 64,
		TextBytes:    5 << 20,
		JSONBytes:    16 << 20,
		StoreBytes:   64 << 20,
	}
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
}

func (r *runner) row(key string) *Row { return r.rows[key] }

// Run measures every row in cfg.Runs interleaved rounds and returns the
// report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("runs %d: need at least 1", cfg.Runs)
	}
	c, err := writeCorpus(cfg.Dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("writing the corpus: %w", err)
	}
	rep := &Report{Date: time.Now(), NProc: runtime.NumCPU(), CPU: cpuModel(), GoVersion: runtime.Version(), Runs: cfg.Runs}
	r := &runner{cfg: cfg, c: c, rep: rep, rows: map[string]*Row{}}
	r.defineRows()

	warm, err := r.startLoom(ctx)
	if err != nil {
		return nil, err
	}
	defer warm.close()
	if err := r.prepareWarm(ctx, warm); err != nil {
		return nil, err
	}
	var fs *session
	if cfg.FSServer != nil {
		if fs, err = startSession(ctx, append(append([]string{}, cfg.FSServer...), c.Root)); err != nil {
			return nil, err
		}
		defer fs.close()
		if err := r.checkSame(ctx, warm, fs); err != nil {
			return nil, err
		}
	}
	// Two phases, each in interleaved rounds: the warm lookups with both
	// servers running, then, with them stopped, the cold measures, so that
	// no process of the first phase works beside a cold one.
	for round := range cfg.Runs {
		if err := r.warmRound(ctx, warm, fs); err != nil {
			return nil, fmt.Errorf("warm round %d: %w", round+1, err)
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "loom-perf: warm round %d/%d done\n", round+1, cfg.Runs)
		}
	}
	warm.close()
	if fs != nil {
		fs.close()
	}
	for round := range cfg.Runs {
		if err := r.coldRound(ctx); err != nil {
			return nil, fmt.Errorf("cold round %d: %w", round+1, err)
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "loom-perf: cold round %d/%d done\n", round+1, cfg.Runs)
		}
	}
	return rep, nil
}

func (r *runner) defineRows() {
	fsName := "server-filesystem"
	mid := r.c.TextLines / 2
	add := func(key string, row *Row) {
		r.rows[key] = row
		r.rep.Rows = append(r.rep.Rows, row)
	}
	mib := func(n int) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
	add("inspect", &Row{Name: "inspect " + mib(r.cfg.InspectBytes) + " (fresh server)", Unit: "ms", Base: "openssl dgst -sha256 (process)", Target: AtMost(1.0, "≤ 1.0x")})
	add("floor", &Row{Name: "floor: begin_step", Unit: "ms"})
	add("tail", &Row{Name: "get_lines last 20 of " + mib(r.cfg.TextBytes), Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
	add("tailfs", &Row{Name: "get_lines last 20 of " + mib(r.cfg.TextBytes), Unit: "ms", Base: fmt.Sprintf("%s tail:%d", fsName, fsTail), Target: AtMost(0.6, "≤ 0.6x")})
	add("mid", &Row{Name: fmt.Sprintf("get_lines 20 at line %d", mid), Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
	add("midfs", &Row{Name: fmt.Sprintf("get_lines 20 at line %d", mid), Unit: "ms", Base: fmt.Sprintf("%s head:%d", fsName, mid+20), Speedup: true, Target: FasterBy(20, "≥ 20x faster")})
	add("midbytes", &Row{Name: fmt.Sprintf("text returned, 20 at line %d", mid), Unit: "bytes", Base: fmt.Sprintf("%s head:%d", fsName, mid+20)})
	add("range", &Row{Name: "get_range 20 lines' bytes, end of " + mib(r.cfg.TextBytes), Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
	add("list", &Row{Name: "list_results, 16-entry page", Unit: "ms", Base: "floor", Target: AtMost(3, "≤ 3x floor")})
	add("json1", &Row{Name: "first get_json, " + mib(r.cfg.JSONBytes) + " (fresh server)", Unit: "ms", Base: "jq -c (process)", Target: AtMost(0.05, "≤ 0.05x")})
	add("json2", &Row{Name: "later get_json, elsewhere", Unit: "ms", Base: "floor", Target: AtMost(2, "≤ 2x floor")})
	add("rss", &Row{Name: "peak RSS (VmHWM), full store", Unit: "MiB", Base: "stored bytes", Target: &Target{
		Text: "≤ 1.05x stored + 16 MiB",
		Met:  func(loom, base float64) bool { return base > 0 && loom <= 1.05*base+16 },
	}})
	add("ready", &Row{Name: "process start to tools/list", Unit: "ms", Base: fsName, Target: &Target{
		Text:     "≤ 15 ms (loom)",
		Met:      func(loom, _ float64) bool { return loom <= 15 },
		Absolute: true,
	}})
	if r.cfg.FSServer == nil {
		for _, k := range []string{"tailfs", "midfs", "midbytes", "ready"} {
			r.rows[k].Note = "server-filesystem not installed"
		}
		r.rep.Notes = append(r.rep.Notes, "server-filesystem rows skipped: run `npm ci` in clients/")
	}
	if r.cfg.OpenSSL == "" {
		r.rows["inspect"].Note = "openssl not found"
	}
	if r.cfg.JQ == "" {
		r.rows["json1"].Note = "jq not found"
		r.rep.Notes = append(r.rep.Notes, "jq row skipped: jq is not on PATH (apt-get install -y jq)")
	}
}

func (r *runner) startLoom(ctx context.Context, extra ...string) (*session, error) {
	argv := append(append(append([]string{}, r.cfg.Loom...), "--root", r.c.Root), extra...)
	return startSession(ctx, argv)
}

// descriptor is the part of an inspect entry the harness reads.
type descriptor struct {
	ID       *string `json:"id"`
	Bytes    int64   `json:"bytes"`
	Reused   bool    `json:"reused"`
	Retained bool    `json:"retained"`
	Error    *struct {
		Code string `json:"code"`
	} `json:"error"`
}

func inspect(ctx context.Context, s *session, paths ...string) ([]descriptor, *answer, error) {
	b, _ := json.Marshal(map[string]any{"paths": paths})
	a, err := s.call(ctx, "inspect", string(b))
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

// coldRound times a fresh server, the processes it is compared with, and
// the peak RSS of a full store.
func (r *runner) coldRound(ctx context.Context) error {
	add := func(key string, d time.Duration) { r.rows[key].Loom = append(r.rows[key].Loom, ms(d)) }
	base := func(key string, d time.Duration) { r.rows[key].BaseSamples = append(r.rows[key].BaseSamples, ms(d)) }

	// Cold: a fresh server first. Every cold measure starts on a settled
	// machine: the processes of the calls before it (server-filesystem
	// collecting a 2.6 MB answer, a server exiting) still work for tens of
	// milliseconds after answering, on the same two cores.
	pointerItem := r.c.JSONItems - 10
	settle()
	fresh, err := r.startLoom(ctx)
	if err != nil {
		return err
	}
	add("ready", fresh.Ready)
	ds, a, err := inspect(ctx, fresh, "big.txt")
	if err != nil {
		fresh.close()
		return err
	}
	if ds[0].Reused || !ds[0].Retained {
		fresh.close()
		return fmt.Errorf("inspect big.txt in a fresh server: reused %v, retained %v", ds[0].Reused, ds[0].Retained)
	}
	add("inspect", a.Elapsed)
	if _, _, err := inspect(ctx, fresh, "big.json"); err != nil {
		fresh.close()
		return err
	}
	a, err = fresh.call(ctx, "get_json", `{"result":"r2","pointer":"/items/`+strconv.Itoa(pointerItem)+`/name"}`)
	fresh.close()
	if err != nil {
		return err
	}
	add("json1", a.Elapsed)
	loomOut := a.Text

	// Then the processes (after the fresh server, so that jq's second of
	// work and memory is not what a fresh server starts next to).
	if r.cfg.OpenSSL != "" {
		settle()
		d, _, err := timeProcess(ctx, []string{r.cfg.OpenSSL, "dgst", "-sha256", filepath.Join(r.c.Root, "big.txt")})
		if err != nil {
			return err
		}
		base("inspect", d)
	}
	if r.cfg.JQ != "" {
		settle()
		d, out, err := timeProcess(ctx, []string{r.cfg.JQ, "-c", ".items[" + strconv.Itoa(pointerItem) + "].name", filepath.Join(r.c.Root, "big.json")})
		if err != nil {
			return err
		}
		base("json1", d)
		if got := strings.TrimSpace(string(out)); got != loomOut {
			return fmt.Errorf("get_json gave %q, jq %q", loomOut, got)
		}
	}

	if r.cfg.FSServer != nil {
		settle()
		other, err := startSession(ctx, append(append([]string{}, r.cfg.FSServer...), r.c.Root))
		if err != nil {
			return err
		}
		other.close()
		base("ready", other.Ready)
	}
	return r.peakRSS(ctx)
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

// peakRSS starts a fresh server, inspects the fill files one at a time
// until one is not retained (the store is full), and reads its VmHWM.
func (r *runner) peakRSS(ctx context.Context) error {
	s, err := r.startLoom(ctx, "--max-store-bytes", strconv.FormatInt(r.cfg.StoreBytes, 10))
	if err != nil {
		return err
	}
	defer s.close()
	var stored int64
	full := false
	for _, name := range r.c.Fill {
		ds, _, err := inspect(ctx, s, name)
		if err != nil {
			return err
		}
		if !ds[0].Retained {
			full = true
			break
		}
		stored += ds[0].Bytes
	}
	if !full {
		return fmt.Errorf("the store never filled after %d files", len(r.c.Fill))
	}
	hwm, err := s.vmHWM()
	if err != nil {
		return err
	}
	r.rows["rss"].Loom = append(r.rows["rss"].Loom, float64(hwm)/(1<<20))
	r.rows["rss"].BaseSamples = append(r.rows["rss"].BaseSamples, float64(stored)/(1<<20))
	return nil
}

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
