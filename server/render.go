package server

import (
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/results"
)

// renderDescriptor renders a descriptor as text content: its header line
// (renderHeader), then the preview, and a closing line when the preview is
// not the whole result. Example:
//
//	r3 file server/tools.go: 48213 bytes, 1204 lines, complete, sha256=0a1b2c3d4e5f, json=object
//	<preview>
//	[preview: first 1024 of 48213 bytes]
func renderDescriptor(b *strings.Builder, d results.Descriptor) {
	renderHeader(b, d)
	if d.Preview == nil || *d.Preview == "" {
		return
	}
	b.WriteString(*d.Preview)
	if !strings.HasSuffix(*d.Preview, "\n") {
		b.WriteByte('\n') // the header says "no final newline" when this is the end
	}
	if !*d.PreviewComplete {
		b.WriteString("[preview: first " + strconv.Itoa(len(*d.Preview)) + " of " + strconv.FormatInt(d.Bytes, 10) + " bytes]\n")
	}
}

// headerLine is a descriptor's header line alone, as renderDescriptor
// writes it: the first line of a lookup by path (SPEC section 4).
func headerLine(d results.Descriptor) string {
	var b strings.Builder
	renderHeader(&b, d)
	return b.String()
}

// renderHeader writes a descriptor's header line (SPEC section 3), "\n"
// included: the ID (or why there is none), the source, bytes, lines, the
// line-ending facts that edits depend on ("crlf" for a CRLF result, "no
// final newline" for a non-empty one that does not end with "\n"),
// completeness, the digest's first 12 hex digits, the JSON type and
// whether the result was reused. Every answer that shows a result's header
// writes it here, so that they all read alike:
//
//	r3 file a.txt: 120 bytes, 4 lines, crlf, no final newline, complete, sha256=0a1b2c3d4e5f
func renderHeader(b *strings.Builder, d results.Descriptor) {
	if d.ID != nil {
		b.WriteString(*d.ID)
	} else {
		b.WriteString("(not retained: " + d.Reason + ")")
	}
	b.WriteByte(' ')
	b.WriteString(renderSource(d.Source))
	b.WriteString(": ")
	b.WriteString(count(d.Bytes, "byte") + ", ")
	b.WriteString(count(d.Lines, "line") + ", ")
	if d.CRLF {
		b.WriteString("crlf, ")
	}
	if d.NoFinalNewline {
		b.WriteString("no final newline, ")
	}
	if d.Complete {
		b.WriteString("complete")
	} else {
		b.WriteString("incomplete")
	}
	b.WriteString(", sha256=" + d.SHA256[:12])
	if d.JSON != nil {
		b.WriteString(", json=" + *d.JSON)
	}
	if d.Reused != nil && *d.Reused {
		b.WriteString(", reused")
	}
	b.WriteByte('\n')
}

// renderSource renders a source compactly: `file a.go`, `listing src`,
// `output "go test" exit=1 timed_out dropped=120`, `edit /content path=a.go`.
// A path or pointer holding a control character is quoted
// (results.TextName), so that no name ends the header line; a label is
// always quoted.
func renderSource(s results.Source) string {
	parts := []string{s.Kind}
	if s.At != nil {
		parts = append(parts, results.TextName(*s.At))
	}
	if s.Path != nil {
		if s.Kind == results.KindFile || s.Kind == results.KindListing {
			parts = append(parts, results.TextName(*s.Path))
		} else {
			parts = append(parts, "path="+results.TextName(*s.Path))
		}
	}
	if s.Label != nil {
		parts = append(parts, strconv.Quote(*s.Label))
	}
	switch {
	case s.ExitCode == nil:
	case *s.ExitCode == nil:
		parts = append(parts, "exit=signal")
	default:
		parts = append(parts, "exit="+strconv.FormatInt(**s.ExitCode, 10))
	}
	if s.TimedOut != nil && *s.TimedOut {
		parts = append(parts, "timed_out")
	}
	if s.Cancelled {
		parts = append(parts, "cancelled")
	}
	if s.DroppedBytes > 0 {
		parts = append(parts, "dropped="+strconv.FormatInt(s.DroppedBytes, 10))
	}
	if s.Replaced > 0 {
		parts = append(parts, "replaced="+strconv.FormatInt(s.Replaced, 10))
	}
	return strings.Join(parts, " ")
}

// count renders n and a noun, plural unless n is 1: "1 line", "0 lines".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
