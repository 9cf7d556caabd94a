package loadtest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what a run measured and found.
type Report struct {
	Config  Config
	Binary  string
	URL     string
	PID     int
	Setup   time.Duration // initialize and inspect, all sessions
	Elapsed time.Duration // the lookup phase, all sessions
	Stopped error         // why the lookup phase ended early (--duration, a signal), or nil

	PeakRSS    int64 // the server's VmHWM, bytes
	RSSErr     error
	ServerCPU  time.Duration // the server's user and system time, up to the end of the lookups
	ServerExit error         // how the server exited after SIGTERM (nil: status 0)

	corpus *corpus
	stats  *stats
}

// OK reports a clean run: no error and no cross-session read.
func (r *Report) OK() bool { return r.stats.errors == 0 && r.stats.crossReads == 0 }

// StoredBytes is the bytes of the results that the sessions retained.
func (r *Report) StoredBytes() int64 { return r.stats.storedBytes }

// Lookups is the number of lookups answered.
func (r *Report) Lookups() int { return r.stats.lookups }

// Errors is the number of failed checks.
func (r *Report) Errors() int { return r.stats.errors }

// CrossReads is the number of answers that showed another session's data.
func (r *Report) CrossReads() int { return r.stats.crossReads }

// percentile is the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
}

func (r *Report) print(out io.Writer) {
	st, cfg := r.stats, r.Config
	var textBytes int64
	for _, f := range r.corpus.shared[:len(r.corpus.shared)-1] {
		textBytes += int64(len(f.data))
	}
	var uniqueFiles int
	for _, own := range r.corpus.unique {
		uniqueFiles += len(own)
	}
	fmt.Fprintf(out, "loom-load: %d sessions x %d lookups against %s (pid %d) at %s\n",
		cfg.Sessions, cfg.Lookups, r.Binary, r.PID, r.URL)
	fmt.Fprintf(out, "root: %d shared text files (64 KiB to 1 MiB, %s in all), doc.json (%s), %d session files (2-4 KiB)\n\n",
		len(r.corpus.shared)-1, size(textBytes), size(int64(len(r.corpus.json.data))), uniqueFiles)

	var all []time.Duration
	for _, v := range st.latency {
		all = append(all, v...)
	}
	slices.Sort(all)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "  %s\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("sessions", "%d", cfg.Sessions)
	lookups := fmt.Sprintf("%d", st.lookups)
	if r.Stopped != nil {
		lookups += fmt.Sprintf(" of %d (stopped: %v)", cfg.Sessions*cfg.Lookups, r.Stopped)
	}
	row("lookups", "%s", lookups)
	row("steps (begin_step calls)", "%d", st.steps)
	row("setup (initialize + inspect)", "%.2f s", r.Setup.Seconds())
	row("total time (lookups)", "%.2f s", r.Elapsed.Seconds())
	row("throughput", "%.0f lookups/s", float64(st.lookups)/max(r.Elapsed.Seconds(), 1e-9))
	row("latency p50 / p90 / p99", "%s / %s / %s", ms(percentile(all, 50)), ms(percentile(all, 90)), ms(percentile(all, 99)))
	row("errors", "%d", st.errors)
	row("isolation probes", "%d foreign IDs answered unknown_result, %d own reads verified", st.foreignProbes, st.ownProbes)
	row("cross-session reads", "%d", st.crossReads)
	if r.RSSErr != nil {
		row("server peak RSS (VmHWM)", "unknown: %v", r.RSSErr)
	} else {
		row("server peak RSS (VmHWM)", "%s", size(r.PeakRSS))
	}
	row("server CPU time (user + system)", "%.2f s", r.ServerCPU.Seconds())
	row("results stored", "%s (%s a session)", size(st.storedBytes), size(st.storedBytes/int64(cfg.Sessions)))
	row("cap --max-store-bytes x sessions", "%s x %d = %s", size(cfg.MaxStoreBytes), cfg.Sessions, size(cfg.MaxStoreBytes*int64(cfg.Sessions)))
	row("cap --max-total-bytes", "%s", size(cfg.MaxTotalBytes))
	if r.ServerExit != nil {
		row("server exit after SIGTERM", "%v", r.ServerExit)
	} else {
		row("server exit after SIGTERM", "status 0")
	}
	tw.Flush()

	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-12s\tcalls\tp50\tp90\tp99\tmax\t\n", "kind")
	for _, kind := range lookupKinds {
		v := slices.Clone(st.latency[kind])
		slices.Sort(v)
		var top time.Duration
		if len(v) > 0 {
			top = v[len(v)-1]
		}
		fmt.Fprintf(tw, "  %-12s\t%d\t%s\t%s\t%s\t%s\t\n", kind, len(v), ms(percentile(v, 50)), ms(percentile(v, 90)), ms(percentile(v, 99)), ms(top))
	}
	tw.Flush()

	for _, s := range st.errSamples {
		fmt.Fprintf(out, "error: %s\n", strings.TrimSpace(s))
	}
	for _, s := range st.crossSamples {
		fmt.Fprintf(out, "cross-session read: %s\n", s)
	}
	if r.OK() {
		fmt.Fprintln(out, "\nPASS")
	} else {
		fmt.Fprintf(out, "\nFAIL: %d errors, %d cross-session reads\n", st.errors, st.crossReads)
	}
}
