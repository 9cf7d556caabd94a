package perfbench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// A Row is one comparison: loom's samples against a baseline's.
type Row struct {
	// Section is the table the row is printed in ("" for the first).
	Section string
	Name    string
	Unit    string // "ms", "MiB", "bytes", "ms/MiB", "lookups/s"
	Loom    []float64
	// Base names the baseline ("" for none) and holds its samples.
	Base        string
	BaseSamples []float64
	// Paired rows hold one sample of each side per round, taken one after
	// the other (Loom[i] and BaseSamples[i]): their Ratio is the median of
	// the rounds' ratios, and RatioSpread the least and greatest of them.
	// Other rows compare the medians.
	Paired bool
	// Higher is a measure where more is better (a throughput): the ratio
	// is base/loom, so that, as for a time, above 1 is loom behind.
	Higher bool
	// Speedup prints base/loom ("x faster") instead of loom/base.
	Speedup bool
	Target  *Target
	Note    string
}

// LoomMedian is the median of loom's samples.
func (r *Row) LoomMedian() float64 { return Median(r.Loom) }

// BaseMedian is the median of the baseline's samples.
func (r *Row) BaseMedian() float64 { return Median(r.BaseSamples) }

// inverted reports a ratio of base/loom.
func (r *Row) inverted() bool { return r.Speedup || r.Higher }

// ratios are the rounds' ratios of a paired row, for the rounds that have
// both samples.
func (r *Row) ratios() []float64 {
	var qs []float64
	for i := range min(len(r.Loom), len(r.BaseSamples)) {
		a, b := r.Loom[i], r.BaseSamples[i]
		if r.inverted() {
			a, b = b, a
		}
		if q := Ratio(a, b); q > 0 {
			qs = append(qs, q)
		}
	}
	return qs
}

// Ratio is loom/base (base/loom for a Speedup or Higher row): of the
// medians, or for a Paired row the median of the rounds' ratios; 0 without
// a baseline.
func (r *Row) Ratio() float64 {
	if r.Paired {
		return Median(r.ratios())
	}
	if r.inverted() {
		return Ratio(r.BaseMedian(), r.LoomMedian())
	}
	return Ratio(r.LoomMedian(), r.BaseMedian())
}

// RatioSpread is the least and the greatest of a Paired row's rounds'
// ratios (0, 0 for other rows).
func (r *Row) RatioSpread() (lo, hi float64) {
	if !r.Paired {
		return 0, 0
	}
	return Spread(r.ratios())
}

// Status is "met", "MISSED", or "" without a target or samples.
func (r *Row) Status() string {
	if r.Target == nil || len(r.Loom) == 0 || (!r.Target.Absolute && len(r.BaseSamples) == 0) {
		return ""
	}
	q := r.Ratio()
	if r.Target.Met == nil && q == 0 {
		return ""
	}
	if r.Target.met(q, r.LoomMedian(), r.BaseMedian()) {
		return "met"
	}
	return "MISSED"
}

// A Report is the outcome of one run.
type Report struct {
	Date      time.Time
	NProc     int
	CPU       string
	GoVersion string
	Runs      int
	Rows      []*Row
	Notes     []string
}

// value renders v without its unit, to a precision that depends on its
// size.
func value(v float64, unit string) string {
	switch {
	case unit == "bytes" || v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func num(v float64, unit string) string {
	if unit == "bytes" {
		return value(v, unit) + " B"
	}
	return value(v, unit) + " " + unit
}

// spread renders the median of xs and, for more than one sample that
// differ, their least and greatest: "21.2 ms (20.1-23.4)".
func spread(xs []float64, unit string) string {
	s := num(Median(xs), unit)
	if lo, hi := Spread(xs); len(xs) > 1 && lo != hi {
		s += " (" + value(lo, unit) + "-" + value(hi, unit) + ")"
	}
	return s
}

func ratioText(q float64) string {
	if q >= 1000 {
		return fmt.Sprintf("%.0f", q)
	}
	return fmt.Sprintf("%.3g", q)
}

// cells renders a row's columns: measure, loom, baseline, its value,
// ratio, target, status, note.
func (r *Row) cells() []string {
	loom, base, ratio := "n/a", "", ""
	if len(r.Loom) > 0 {
		loom = spread(r.Loom, r.Unit)
	}
	if r.Base != "" {
		base = "n/a"
		if len(r.BaseSamples) > 0 {
			base = spread(r.BaseSamples, r.Unit)
		}
		if q := r.Ratio(); q > 0 {
			ratio = ratioText(q) + "x"
			if r.Speedup {
				ratio += " faster"
			}
			if lo, hi := r.RatioSpread(); len(r.ratios()) > 1 && lo != hi {
				ratio += " (" + ratioText(lo) + "-" + ratioText(hi) + ")"
			}
		}
	}
	target := ""
	if r.Target != nil {
		target = r.Target.Text
	}
	return []string{r.Name, loom, r.Base, base, ratio, target, r.Status(), r.Note}
}

var header = []string{"measure", "loom", "vs", "baseline", "ratio", "target", "status", "note"}

// sections returns the rows by section, in the order the sections first
// appear.
func (rep *Report) sections() (names []string, rows map[string][]*Row) {
	rows = map[string][]*Row{}
	for _, r := range rep.Rows {
		if _, ok := rows[r.Section]; !ok {
			names = append(names, r.Section)
		}
		rows[r.Section] = append(rows[r.Section], r)
	}
	return names, rows
}

// WriteText writes the report as aligned plain-text tables, one a section.
func (rep *Report) WriteText(w io.Writer) error {
	names, rows := rep.sections()
	for i, name := range names {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if name != "" {
			fmt.Fprintln(w, name)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(header, "\t"))
		for _, r := range rows[name] {
			fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

// WriteMarkdown writes the report as Markdown: a header with the machine,
// then a table a section.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## loom-results performance, %s\n\n", rep.Date.Format(time.RFC3339))
	fmt.Fprintf(w, "- nproc: %d\n- CPU: %s\n- Go: %s\n- runs: %d (interleaved rounds; medians, (min-max) over the samples; "+
		"a ratio with a spread is the median of the rounds' ratios)\n", rep.NProc, rep.CPU, rep.GoVersion, rep.Runs)
	names, rows := rep.sections()
	for _, name := range names {
		fmt.Fprintln(w)
		if name != "" {
			fmt.Fprintf(w, "### %s\n\n", name)
		}
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows[name] {
			c := r.cells()
			for i := range c {
				c[i] = strings.ReplaceAll(c[i], "|", `\|`)
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
		}
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}
