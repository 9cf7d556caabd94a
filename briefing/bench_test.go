package briefing

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/writehook"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/workspace"
)

// benchBriefing writes a 16 MiB source-like file of 40-byte lines and
// returns a briefing whose root holds it, and its number of lines.
func benchBriefing(b *testing.B) (*Briefing, int) {
	b.Helper()
	var sb strings.Builder
	lines := 0
	for sb.Len() < 16<<20-64 {
		fmt.Fprintf(&sb, "\tx%07d := compute(a, b) // note é\n", lines)
		lines++
	}
	return benchRoot(b, "big.go", sb.String()), lines
}

// benchRoot returns a briefing over a temporary root holding one file,
// with budgets no benchmark reaches.
func benchRoot(b *testing.B, name, body string) *Briefing {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	cfg := limits.Defaults()
	cfg.MaxLookups = 1 << 62
	cfg.MaxStepBytes = 1 << 62
	cfg.MaxExpandBytes = 1 << 62
	return New(Options{Limits: cfg, Root: root})
}

// BenchmarkInspect16MiB is inspect of a 16 MiB file: read, SHA-256, UTF-8
// check and line index. Each iteration uses a fresh briefing, so nothing is
// reused.
func BenchmarkInspect16MiB(b *testing.B) {
	first, _ := benchBriefing(b)
	b.SetBytes(16 << 20)
	for b.Loop() {
		br := New(first.opts)
		if e := br.inspectPaths([]string{"big.go"}); e[0].Err != nil {
			b.Fatal(e[0].Err)
		}
		br.Close()
	}
}

// BenchmarkGetLinesNearEnd is a warm get_lines of 20 lines near the end of
// the 16 MiB result.
func BenchmarkGetLinesNearEnd(b *testing.B) {
	br, lines := benchBriefing(b)
	if e := br.inspectPaths([]string{"big.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	first := int64(lines - 25)
	last := first + 19
	for b.Loop() {
		if _, err := br.getLines(Ref{Result: "r1"}, first, &last, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetLinesNumbered8KiB is a numbered get_lines of lines
// 1000-1149 of a 4000-line file: 7,950 bytes with the lines' anchors.
func BenchmarkGetLinesNumbered8KiB(b *testing.B) {
	var sb strings.Builder
	for i := 1; i <= 4000; i++ {
		fmt.Fprintf(&sb, "\tvalue%05d := compute(%d, input) // step\n", i, i)
	}
	br := benchRoot(b, "f.go", sb.String())
	if e := br.inspectPaths([]string{"f.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	last := int64(1149)
	for b.Loop() {
		if _, err := br.getLines(Ref{Result: "r1"}, 1000, &last, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExpand16MiB1000Parts composes the 16 MiB result from 1,000 line
// references with a literal between each, as a large rewrite would.
func BenchmarkExpand16MiB1000Parts(b *testing.B) {
	br, lines := benchBriefing(b)
	if e := br.inspectPaths([]string{"big.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	args := compose1000(lines)
	b.SetBytes(16 << 20)
	for b.Loop() {
		br.beginStep()
		if _, err := expandEdit(br, jsonSub(args)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(args)), "arg-bytes")
}

// compose1000 returns expand_edit arguments that rebuild a file of lines
// lines from 500 line references and 500 one-line literals.
func compose1000(lines int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"path":"big.go","content":{"$compose":[`)
	per := lines / 500
	for i := 0; i < 500; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		first, last := i*per+1, (i+1)*per
		if i == 499 {
			last = lines
		}
		sb.WriteString(`{"result":"r1","lines":[` + strconv.Itoa(first) + `,` + strconv.Itoa(last) + `]},"// edited ` + strconv.Itoa(i) + `\n"`)
	}
	sb.WriteString(`]}}`)
	return []byte(sb.String())
}

// BenchmarkWriteFile5000Lines3Edits is write_file of a splice of three
// edits into a 5,000-line file (about 260 KB): resolution, the conflict
// check (the file read and compared), the atomic write, the retained
// result and the diff. Between iterations the file is put back untimed.
func BenchmarkWriteFile5000Lines3Edits(b *testing.B) { benchmarkWriteFile5000Lines3Edits(b) }

// BenchmarkWriteFile5000Lines3EditsNamed is the same with a named
// temporary file, the fallback where O_TMPFILE is missing (and, before
// it, the only kind): set beside the other, it shows what the anonymous
// file changes.
func BenchmarkWriteFile5000Lines3EditsNamed(b *testing.B) {
	old := writehook.Set(&writehook.Hooks{Named: true})
	defer writehook.Set(old)
	benchmarkWriteFile5000Lines3Edits(b)
}

func benchmarkWriteFile5000Lines3Edits(b *testing.B) {
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "\tresult%04d, err := s.handle(ctx, request%04d) // line %d\n", i, i, i+1)
	}
	body := sb.String()
	br := benchRoot(b, "w.go", body)
	if e := br.inspectPaths([]string{"w.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	path := filepath.Join(br.opts.Root.Dir(), "w.go")
	req := WriteFileRequest{Splice: rawOf[SpliceForm](`{"result":"r1","edits":[` +
		`{"lines":[100,100],"text":"\tchanged100 := true\n"},` +
		`{"before":2500,"text":"\t// inserted before 2500\n"},` +
		`{"lines":[4900,4902],"text":""}]}`)}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		br.beginStep()
		b.StartTimer()
		if _, err := writeFile(br, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInspectSizes is inspect of source-like files of 64 KiB to
// 16 MiB in a fresh briefing each time: what a byte costs at each size
// (SetBytes), so a fixed cost shows as a lower rate for small files.
func BenchmarkInspectSizes(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20} {
		var sb strings.Builder
		for i := 0; sb.Len() < size-64; i++ {
			fmt.Fprintf(&sb, "\tx%07d := compute(a, b) // note é\n", i)
		}
		first := benchRoot(b, "f.go", sb.String())
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(sb.Len()))
			for b.Loop() {
				br := New(first.opts)
				if e := br.inspectPaths([]string{"f.go"}); e[0].Err != nil {
					b.Fatal(e[0].Err)
				}
				br.Close()
			}
		})
	}
}

// BenchmarkInspectEndings16MiB is inspect of a 16 MiB file of 40-byte
// lines ending in "\n" and in "\r\n": what the line-ending facts of the
// descriptor's header (SPEC section 3: crlf, no final newline) cost at
// inspect. An LF file is known not to be CRLF at its first line; a CRLF
// file is checked to its end.
func BenchmarkInspectEndings16MiB(b *testing.B) {
	for _, ending := range []string{"\n", "\r\n"} {
		var sb strings.Builder
		for i := 0; sb.Len() < 16<<20-64; i++ {
			fmt.Fprintf(&sb, "\tx%07d := compute(a, b) // note é%s", i, ending)
		}
		first := benchRoot(b, "f.go", sb.String())
		name := "LF"
		if ending == "\r\n" {
			name = "CRLF"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(sb.Len()))
			for b.Loop() {
				br := New(first.opts)
				if e := br.inspectPaths([]string{"f.go"}); e[0].Err != nil {
					b.Fatal(e[0].Err)
				}
				br.Close()
			}
		})
	}
}

// BenchmarkLookupTooLarge is a get_lines or get_range over the caps of the
// 16 MiB result: the whole result (lookup_too_large), numbered or not, and
// 200 lines against a step with 4 KiB of escaped bytes left
// (step_bytes_exhausted). The answer says what would fit (SPEC section 8),
// so this is what finding it costs.
func BenchmarkLookupTooLarge(b *testing.B) {
	br, lines := benchBriefing(b)
	if e := br.inspectPaths([]string{"big.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	cfg := br.opts.Limits
	cfg.MaxStepBytes = 4 << 10
	tight := New(Options{Limits: cfg, Root: br.opts.Root})
	b.Cleanup(tight.Close)
	if e := tight.inspectPaths([]string{"big.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	all, some := int64(lines), int64(lines/2+200)
	for _, c := range []struct {
		name string
		b    *Briefing
		call func(*Briefing) *errcode.Error
	}{
		{"lines", br, func(b *Briefing) *errcode.Error { _, err := b.getLines(Ref{Result: "r1"}, 2, &all, false); return err }},
		{"numbered", br, func(b *Briefing) *errcode.Error { _, err := b.getLines(Ref{Result: "r1"}, 2, &all, true); return err }},
		{"range", br, func(b *Briefing) *errcode.Error {
			_, err := b.getRange(Ref{Result: "r1"}, new(int64(1)), nil)
			return err
		}},
		{"step", tight, func(b *Briefing) *errcode.Error {
			_, err := b.getLines(Ref{Result: "r1"}, int64(lines/2), &some, false)
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.call(c.b); err == nil {
					b.Fatal("the lookup fits")
				}
			}
		})
	}
}
