package perfbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
)

// replayClients are the two clients the lookups are timed through against
// the replay server, with the targets: the raw pipe (the least a
// client can do, so that the server's share shows) and the Go SDK client
// (what a Go agent uses).
var replayClients = []struct {
	key, name string
	target    float64
}{
	{"raw", "raw pipe", 1.10},
	{"sdk", "Go SDK client", 1.05},
}

// replayCalls is the number of calls per round of each lookup on each of
// the four servers; a round's sample is their median.
const replayCalls = 15

// A replayJob is one lookup of the rows against the replay server; a call
// takes args in turn.
type replayJob struct {
	key, name, tool string
	args            []string
}

// replayJobs are the lookups: get_lines, get_range, list_results
// and a warm get_json, on the results prepareLookups makes of text.txt and
// big.json.
func (r *runner) replayJobs() []replayJob {
	return lookupJobs(r.c.TextLines, fileSize(r.c.Root, "text.txt", r.cfg.TextBytes), r.c.JSONItems)
}

// lookupJobs are the lookups of the rows against the replay server and
// handler, on a text (r1) of textLines lines and textBytes bytes, made by
// sourceText, and a JSON document (r2) of jsonItems items, made by jsonDoc.
func lookupJobs(textLines int, textBytes int64, jsonItems int) []replayJob {
	var pointers []string
	for k := range 5 {
		item := (k*2 + 1) * jsonItems / 10
		pointers = append(pointers, fmt.Sprintf(`{"result":"r2","pointer":"/items/%d/tags/1","as":"string"}`, item))
	}
	mid := textLines / 2
	return []replayJob{
		{"lines", fmt.Sprintf("get_lines 20 at line %d", mid), "get_lines", []string{fmt.Sprintf(`{"result":"r1","first":%d,"last":%d}`, mid+1, mid+20)}},
		{"range", "get_range 20 lines' bytes, end of " + sizeName(int(textBytes)), "get_range",
			[]string{fmt.Sprintf(`{"result":"r1","start":%d,"end":%d}`, textBytes-int64(20*lineLen), textBytes)}},
		{"list", "list_results, 16-entry page", "list_results", []string{`{"page":0,"page_size":16}`}},
		{"json", "warm get_json", "get_json", pointers},
	}
}

// fileSize is the size of root/name, or guess when it cannot be read.
func fileSize(root, name string, guess int) int64 {
	if info, err := os.Stat(filepath.Join(root, name)); err == nil {
		return info.Size()
	}
	return int64(guess)
}

// A lookuper is a client of one server: the SDK's session or the raw pipe.
type lookuper interface {
	lookup(ctx context.Context, tool, args string) (time.Duration, error)
	close()
}

// prepareLookups makes the results the lookups read, as prepareWarm does:
// text.txt (r1), big.json (r2, indexed by a first pointer) and the 16
// small files (r3-r18).
func (r *runner) prepareLookups(ctx context.Context, c lookuper) error {
	return prepareFiles(ctx, c, "text.txt", "big.json", r.c.Small)
}

// prepareFiles inspects text (r1), then doc (r2) and its first pointer,
// then small (r3 on), then begins a step.
func prepareFiles(ctx context.Context, c lookuper, text, doc string, small []string) error {
	calls := [][2]string{
		{"inspect", pathsArgs([]string{text})},
		{"inspect", pathsArgs([]string{doc})},
		{"get_json", `{"result":"r2","pointer":"/meta"}`},
		{"inspect", pathsArgs(small)},
		{"begin_step", `{}`},
	}
	for _, call := range calls {
		if _, err := c.lookup(ctx, call[0], call[1]); err != nil {
			return err
		}
	}
	return nil
}

// replayPass makes every call of jobs once, each lookup after a
// begin_step, as the timed rounds do: the calls a recording must hold.
func replayPass(ctx context.Context, c lookuper, jobs []replayJob) error {
	for _, job := range jobs {
		for _, args := range job.args {
			if _, err := c.lookup(ctx, "begin_step", `{}`); err != nil {
				return err
			}
			if _, err := c.lookup(ctx, job.tool, args); err != nil {
				return err
			}
		}
	}
	return nil
}

// replayPhase records a loom session through each client, starts the
// replay server on each recording, and times the lookups on loom and on
// the replay server in turn, call by call (A B A B), each after a
// begin_step on the same server.
func (r *runner) replayPhase(ctx context.Context) error {
	if r.cfg.Replay == nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "loom-perf-tapes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	loomArgv := append(append([]string{}, r.cfg.Loom...), "--root", r.c.Root)

	// The recordings: a loom session through each client, from its first
	// byte (the handshake) to one pass of every call.
	record := func(name string, start func(*replayserver.Recorder) (lookuper, error)) ([]string, error) {
		rec := replayserver.NewRecorder()
		c, err := start(rec)
		if err != nil {
			return nil, err
		}
		err = r.prepareLookups(ctx, c)
		if err == nil {
			err = replayPass(ctx, c, r.replayJobs())
		}
		c.close()
		if err != nil {
			return nil, fmt.Errorf("recording through the %s: %w", name, err)
		}
		path := filepath.Join(dir, name+".tape")
		if err := replayserver.WriteTape(path, rec.Tape()); err != nil {
			return nil, err
		}
		return append(append([]string{}, r.cfg.Replay...), "--tape", path), nil
	}
	rawReplay, err := record("raw", func(rec *replayserver.Recorder) (lookuper, error) { return startPipe(ctx, loomArgv, rec) })
	if err != nil {
		return err
	}
	sdkReplay, err := record("sdk", func(rec *replayserver.Recorder) (lookuper, error) {
		return startRecordedSession(ctx, loomArgv, rec)
	})
	if err != nil {
		return err
	}

	// The four servers, each prepared alike (the replay servers answer
	// the preparation from the recording too).
	var started []lookuper
	defer func() {
		for _, c := range started {
			c.close()
		}
	}()
	starts := []func() (lookuper, error){
		func() (lookuper, error) { return startPipe(ctx, loomArgv, nil) },
		func() (lookuper, error) { return startPipe(ctx, rawReplay, nil) },
		func() (lookuper, error) { return startSession(ctx, loomArgv) },
		func() (lookuper, error) { return startSession(ctx, sdkReplay) },
	}
	for _, start := range starts {
		c, err := start()
		if err != nil {
			return err
		}
		started = append(started, c)
		if err := r.prepareLookups(ctx, c); err != nil {
			return err
		}
	}
	pairs := [][2]lookuper{{started[0], started[1]}, {started[2], started[3]}}
	if err := r.checkReplay(ctx, started[0].(*pipeClient), started[1].(*pipeClient)); err != nil {
		return err
	}
	return r.rounds(ctx, PhaseReplay, func(ctx context.Context, i int) error { return r.replayRound(ctx, i, pairs) })
}

// checkReplay makes sure the replay server gives loom's answers: for each
// call, the two answers are the same but for their digits (the ids, and
// the budget's counters, which moved on since the recording).
func (r *runner) checkReplay(ctx context.Context, loom, replay *pipeClient) error {
	for _, job := range r.replayJobs() {
		for _, args := range job.args {
			var got [2][]byte
			for i, c := range []*pipeClient{loom, replay} {
				if _, err := c.lookup(ctx, "begin_step", `{}`); err != nil {
					return err
				}
				line, _, err := c.request(ctx, "tools/call", `{"name":"`+job.tool+`","arguments":`+args+`}`)
				if err != nil {
					return err
				}
				got[i] = bytes.Clone(line)
			}
			if !bytes.Equal(withoutDigits(got[0]), withoutDigits(got[1])) {
				return fmt.Errorf("%s %s: the replay server answered %.300s, loom %.300s", job.tool, args, got[1], got[0])
			}
		}
	}
	return nil
}

// withoutDigits is b without its ASCII digits.
func withoutDigits(b []byte) []byte {
	return bytes.Map(func(c rune) rune {
		if c >= '0' && c <= '9' {
			return -1
		}
		return c
	}, b)
}

// replayRound times every lookup replayCalls times on each pair (loom,
// replay), alternating loom and replay call by call, and adds each side's
// median to its row. The lookups take turns at coming first in a round.
func (r *runner) replayRound(ctx context.Context, i int, pairs [][2]lookuper) error {
	jobs := r.replayJobs()
	for j := range jobs {
		job := jobs[(i+j)%len(jobs)]
		samples := make([][2][]float64, len(pairs))
		for k := range replayCalls {
			args := job.args[k%len(job.args)]
			for p, pair := range pairs {
				for side, c := range pair {
					if _, err := c.lookup(ctx, "begin_step", `{}`); err != nil {
						return err
					}
					d, err := c.lookup(ctx, job.tool, args)
					if err != nil {
						return err
					}
					samples[p][side] = append(samples[p][side], ms(d))
				}
			}
		}
		for p, client := range replayClients {
			row := r.rows[client.key+job.key]
			row.Loom = append(row.Loom, Median(samples[p][0]))
			row.BaseSamples = append(row.BaseSamples, Median(samples[p][1]))
		}
	}
	return nil
}
