package perfbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/instruments/replayserver"
	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

func TestMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"none", nil, 0},
		{"one", []float64{3}, 3},
		{"odd, unsorted", []float64{5, 1, 3}, 3},
		{"even: mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"outlier", []float64{1, 1, 1, 1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := append([]float64(nil), tt.xs...)
			assert.Equal(t, tt.want, Median(tt.xs))
			assert.Equal(t, in, append([]float64(nil), tt.xs...), "the input is not reordered")
		})
	}
}

func TestRatioAndTargets(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0.5, Ratio(1, 2))
	assert.Equal(t, 0.0, Ratio(1, 0), "no baseline, no ratio")

	tests := []struct {
		name       string
		row        Row
		wantRatio  float64
		wantStatus string
	}{
		{"at most, met at the limit", Row{Loom: []float64{2}, Base: "b", BaseSamples: []float64{1}, Target: AtMost(2, "")}, 2, "met"},
		{"at most, missed", Row{Loom: []float64{3, 3, 9}, Base: "b", BaseSamples: []float64{1}, Target: AtMost(2, "")}, 3, "MISSED"},
		{"speedup, met", Row{Loom: []float64{1}, Base: "b", BaseSamples: []float64{40}, Speedup: true, Target: FasterBy(20, "")}, 40, "met"},
		{"speedup, missed", Row{Loom: []float64{1}, Base: "b", BaseSamples: []float64{10}, Speedup: true, Target: FasterBy(20, "")}, 10, "MISSED"},
		{"no baseline samples", Row{Loom: []float64{1}, Base: "b", Target: AtMost(2, "")}, 0, ""},
		{"absolute target without baseline", Row{Loom: []float64{10}, Base: "b", Target: &Target{Met: func(l, _ float64) bool { return l <= 15 }, Absolute: true}}, 0, "met"},
		{"no target", Row{Loom: []float64{1}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.wantRatio, tt.row.Ratio())
			assert.Equal(t, tt.wantStatus, tt.row.Status())
		})
	}
}

func TestPairedRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		row          Row
		wantRatio    float64
		wantLo       float64
		wantHi       float64
		wantStatus   string
		wantRatioTxt string
	}{
		{"median of the rounds' ratios, not the ratio of the medians",
			Row{Loom: []float64{10, 30, 20}, BaseSamples: []float64{10, 10, 40}, Base: "b", Paired: true, Target: AtMost(1.25, "")},
			1, 0.5, 3, "met", "1x (0.5-3)"},
		{"missed",
			Row{Loom: []float64{13, 14}, BaseSamples: []float64{10, 10}, Base: "b", Paired: true, Target: AtMost(1.25, "")},
			1.35, 1.3, 1.4, "MISSED", "1.35x (1.3-1.4)"},
		{"higher is better: base over loom",
			Row{Loom: []float64{1000, 2000}, BaseSamples: []float64{1100, 2000}, Base: "b", Paired: true, Higher: true, Target: AtMost(1.10, "")},
			1.05, 1, 1.1, "met", "1.05x (1-1.1)"},
		{"a round without its baseline is left out",
			Row{Loom: []float64{2, 4, 8}, BaseSamples: []float64{1, 2}, Base: "b", Paired: true, Target: AtMost(1, "")},
			2, 2, 2, "MISSED", "2x"},
		{"no baseline samples",
			Row{Loom: []float64{2}, Base: "b", Paired: true, Target: AtMost(1, "")},
			0, 0, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.wantRatio, tt.row.Ratio(), 1e-9)
			lo, hi := tt.row.RatioSpread()
			assert.InDelta(t, tt.wantLo, lo, 1e-9)
			assert.InDelta(t, tt.wantHi, hi, 1e-9)
			assert.Equal(t, tt.wantStatus, tt.row.Status())
			assert.Equal(t, tt.wantRatioTxt, tt.row.cells()[4])
		})
	}
}

func TestSpread(t *testing.T) {
	t.Parallel()
	lo, hi := Spread([]float64{3, 1, 2})
	assert.Equal(t, [2]float64{1, 3}, [2]float64{lo, hi})
	lo, hi = Spread(nil)
	assert.Equal(t, [2]float64{0, 0}, [2]float64{lo, hi})
	assert.Equal(t, "21.2 ms (20.1-23.4)", spread([]float64{21.2, 23.4, 20.1}, "ms"))
	assert.Equal(t, "0.200 ms", spread([]float64{0.2, 0.2}, "ms"), "no spread when the samples agree")
	assert.Equal(t, "760 B (700-800)", spread([]float64{760, 700, 800}, "bytes"))
	assert.Equal(t, "3496 lookups/s (3100-3600)", spread([]float64{3496, 3100, 3600}, "lookups/s"))
}

func TestReportMarkdown(t *testing.T) {
	t.Parallel()
	rep := &Report{NProc: 2, CPU: "cpu", GoVersion: "go", Runs: 1, Rows: []*Row{
		{Name: "a|b", Unit: "ms", Loom: []float64{1}, Base: "floor", BaseSamples: []float64{2}, Target: AtMost(1, "≤ 1x")},
		{Section: "limits", Name: "c", Unit: "ms", Loom: []float64{1.5, 1}, Base: "ref", BaseSamples: []float64{1, 1}, Paired: true, Target: AtMost(1.25, "≤ 1.25x")},
	}}
	var buf bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&buf))
	assert.Contains(t, buf.String(), "- nproc: 2\n")
	assert.Contains(t, buf.String(), "| a\\|b | 1.000 ms | floor | 2.000 ms | 0.5x | ≤ 1x | met |  |\n")
	assert.Contains(t, buf.String(), "\n### limits\n\n| measure | loom | vs | baseline | ratio | target | status | note |\n|---|")
	assert.Contains(t, buf.String(), "| c | 1.250 ms (1.000-1.500) | ref | 1.000 ms | 1.25x (1-1.5) | ≤ 1.25x | met |  |\n")
	buf.Reset()
	require.NoError(t, rep.WriteText(&buf))
	assert.Contains(t, buf.String(), "\nlimits\nmeasure")
}

func TestSizeName(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "16 MiB", sizeName(16<<20-64))
	assert.Equal(t, "1 MiB", sizeName(1<<20-64))
	assert.Equal(t, "256 KiB", sizeName(256<<10))
}

func TestLessStart(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 9*time.Millisecond, lessStart(10*time.Millisecond, time.Millisecond))
	assert.Equal(t, time.Duration(0), lessStart(time.Millisecond, 2*time.Millisecond), "never negative")
	row := Row{Loom: []float64{2, 3}, Base: "grep", BaseSamples: []float64{1, 0}, Paired: true}
	assert.Equal(t, 2.0, row.Ratio(), "a round without a baseline is left out of the ratio")
}

func TestWithoutDigits(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `{"id":,"step":}`, string(withoutDigits([]byte(`{"id":17,"step":302}`))))
}

// TestCodeText checks the text of the rows against grep: the needle on
// one line, the common literal on most, within the size, the same each
// time.
func TestCodeText(t *testing.T) {
	t.Parallel()
	for _, size := range []int{64 << 10, 1 << 20} {
		text := codeText(size)
		assert.LessOrEqual(t, len(text), size)
		assert.Greater(t, len(text), size-1024)
		assert.Equal(t, text, codeText(size))
		lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		needle, common := 0, 0
		for i, l := range lines {
			if strings.Contains(l, findNeedle) {
				needle++
				assert.InDelta(t, 0.6, float64(i)/float64(len(lines)), 0.05, "the needle is about 60%% of the way in")
			}
			if strings.Contains(l, findCommon) {
				common++
			}
		}
		assert.Equal(t, 1, needle)
		assert.Greater(t, common, len(lines)/2, "the common literal is on most lines")
		assert.True(t, utf8.Valid(text))
	}
}

func TestJobArgs(t *testing.T) {
	t.Parallel()
	jobs := lookupJobs(1000, 40_000, 500)
	require.Len(t, jobs, 4)
	for _, job := range jobs {
		for _, a := range job.args {
			assert.True(t, json.Valid([]byte(a)), "%s %s", job.tool, a)
		}
	}
	assert.Equal(t, fmt.Sprintf(`{"result":"r1","start":%d,"end":40000}`, 40_000-20*lineLen), jobs[1].args[0], "the last 20 lines' bytes")
	for _, fc := range findCases {
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(fc.args()), &got))
		assert.Equal(t, fc.ignoreCase, got["ignore_case"])
	}
	assert.Equal(t, "grep -c -i", findCases[2].grepName())
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	assert.NoError(t, DefaultConfig().Check())
	assert.NoError(t, SmallConfig().Check())
	cfg := DefaultConfig()
	cfg.Runs = 0
	assert.Error(t, cfg.Check())
	cfg = DefaultConfig()
	cfg.Phases = []string{"warm", "nope"}
	assert.ErrorContains(t, cfg.Check(), `no phase "nope"`)
	assert.True(t, cfg.runs("warm"))
	assert.False(t, cfg.runs("cold"))
	assert.True(t, DefaultConfig().runs("cold"), "nil runs every phase")
}

// TestRunSmoke runs one round of every phase on small files against the
// real binaries; the server-filesystem, openssl, jq and grep rows run when
// those are installed.
func TestRunSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts servers")
	}
	dir := t.TempDir()
	bin, err := loombin.Build(context.Background(), dir)
	require.NoError(t, err)
	replay, err := replayserver.Build(context.Background(), dir)
	require.NoError(t, err)
	root := filepath.Join(dir, "root")
	require.NoError(t, os.Mkdir(root, 0o755))
	root, err = filepath.EvalSymlinks(root)
	require.NoError(t, err)

	cfg := SmallConfig()
	cfg.Loom, cfg.Replay, cfg.Dir = []string{bin}, []string{replay}, root
	cfg.OpenSSL, _ = exec.LookPath("openssl")
	cfg.JQ, _ = exec.LookPath("jq")
	cfg.Grep, _ = exec.LookPath("grep")
	js, _ := filepath.Abs("../../../clients/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	if node, err := exec.LookPath("node"); err == nil {
		if _, err := os.Stat(js); err == nil {
			cfg.FSServer = []string{node, js}
		}
	}
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	for _, r := range rep.Rows {
		if r.Note == "" {
			assert.NotEmpty(t, r.Loom, r.Name)
		}
		if r.Paired && (r.Base != "openssl dgst -sha256 (process)" || cfg.OpenSSL != "") && (!strings.HasPrefix(r.Base, "grep") || cfg.Grep != "") {
			assert.Len(t, r.BaseSamples, len(r.Loom), r.Name)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, rep.WriteText(&buf))
	t.Log("\n" + buf.String())
}
