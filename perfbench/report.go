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
	Name string
	Unit string // "ms", "MiB", "bytes"
	Loom []float64
	// Base names the baseline ("" for none) and holds its samples.
	Base        string
	BaseSamples []float64
	// Speedup prints base/loom ("x faster") instead of loom/base.
	Speedup bool
	Target  *Target
	Note    string
}

// LoomMedian is the median of loom's samples.
func (r *Row) LoomMedian() float64 { return Median(r.Loom) }

// BaseMedian is the median of the baseline's samples.
func (r *Row) BaseMedian() float64 { return Median(r.BaseSamples) }

// Ratio is loom/base, or base/loom for a speedup row; 0 without a baseline.
func (r *Row) Ratio() float64 {
	if r.Speedup {
		return Ratio(r.BaseMedian(), r.LoomMedian())
	}
	return Ratio(r.LoomMedian(), r.BaseMedian())
}

// Status is "met", "MISSED", or "" without a target or samples.
func (r *Row) Status() string {
	if r.Target == nil || len(r.Loom) == 0 || (!r.Target.Absolute && len(r.BaseSamples) == 0) {
		return ""
	}
	if r.Target.Met(r.LoomMedian(), r.BaseMedian()) {
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

func num(v float64, unit string) string {
	switch {
	case unit == "bytes":
		return fmt.Sprintf("%.0f B", v)
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	default:
		return fmt.Sprintf("%.3f %s", v, unit)
	}
}

// cells renders a row's columns: measure, loom, baseline, its value,
// ratio, target, status, note.
func (r *Row) cells() []string {
	loom, base, ratio := "n/a", "", ""
	if len(r.Loom) > 0 {
		loom = num(r.LoomMedian(), r.Unit)
	}
	if r.Base != "" {
		base = "n/a"
		if len(r.BaseSamples) > 0 {
			base = num(r.BaseMedian(), r.Unit)
		}
		if q := r.Ratio(); q > 0 {
			ratio = fmt.Sprintf("%.3gx", q)
			if q >= 1000 {
				ratio = fmt.Sprintf("%.0fx", q)
			}
			if r.Speedup {
				ratio += " faster"
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

// WriteText writes the report as an aligned plain-text table.
func (rep *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rep.Rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

// WriteMarkdown writes the report as Markdown: a header with the machine,
// then the table.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## loom-results performance, %s\n\n", rep.Date.Format(time.RFC3339))
	fmt.Fprintf(w, "- nproc: %d\n- CPU: %s\n- Go: %s\n- runs: %d (interleaved rounds; medians)\n\n", rep.NProc, rep.CPU, rep.GoVersion, rep.Runs)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range rep.Rows {
		c := r.cells()
		for i := range c {
			c[i] = strings.ReplaceAll(c[i], "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
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
