package briefing

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSplice3Edits resolves write_file's splice of 3 edits on a
// 5,000-line result, without the write: the binding of the splice, its
// edits and their positions, and the checks of SPEC 5.2.
func BenchmarkSplice3Edits(b *testing.B) {
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "\tresult%04d, err := s.handle(ctx, request%04d) // line %d\n", i, i, i+1)
	}
	br := benchRoot(b, "w.go", sb.String())
	if e := br.inspectPaths([]string{"w.go"}); e[0].Err != nil {
		b.Fatal(e[0].Err)
	}
	splice := rawOf[SpliceForm](`{"result":"r1","sha256":"0123456789ab","edits":[` +
		`{"lines":[100,100],"text":"\tchanged100 := true\n"},` +
		`{"before":2500,"text":"\t// inserted before 2500\n"},` +
		`{"lines":[4900,4902],"text":""}]}`)
	r, err := br.store.Get("r1")
	if err != nil {
		b.Fatal(err)
	}
	digest := r.Text.Hex()[:12]
	splice = rawOf[SpliceForm](strings.Replace(string(splice.Bytes()), "0123456789ab", digest, 1))
	for b.Loop() {
		sp, err := newExpander(br, splice.Sub).splice(splice.Node, "/splice", "/splice")
		if err != nil || sp.parts != 3 {
			b.Fatal(err, sp.parts)
		}
	}
}
