package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/selectors"
)

// Descriptor is the structured form of a result that the model is shown
// instead of its bytes (SPEC section 3). Optional members are nil when a
// context policy or a listing leaves them out.
type Descriptor struct {
	ID              *string `json:"id"`
	SHA256          string  `json:"sha256"`
	Bytes           int64   `json:"bytes"`
	Lines           int64   `json:"lines"`
	Complete        bool    `json:"complete"`
	Source          Source  `json:"source"`
	JSON            *string `json:"json"`
	Preview         *string `json:"preview,omitempty"`
	PreviewComplete *bool   `json:"preview_complete,omitempty"`
	Reused          *bool   `json:"reused,omitempty"`
	Retained        bool    `json:"retained"`
	Reason          string  `json:"reason,omitempty"`
	// NoFinalNewline and CRLF are the facts that edits depend on, which
	// the text content's header states (SPEC section 3) and the
	// structured form leaves out: the text is not empty and does not end
	// with '\n'; the text is CRLF (SPEC section 5.2).
	NoFinalNewline bool `json:"-"`
	CRLF           bool `json:"-"`
}

// ReasonStoreFull is the reason of a result that did not fit (SPEC 3).
const ReasonStoreFull = "store_full"

// View chooses which optional members a descriptor shows.
type View int

// The views of a descriptor.
const (
	Full    View = iota // legacy context: preview, preview_complete, reused
	Compact             // bounded context (SPEC 7): no preview, no preview_complete
	Listed              // list_results (SPEC 5): no preview, preview_complete or reused
)

// Describe returns the descriptor of t as Retain kept it (or did not).
func Describe(t *Text, complete bool, src Source, got Retained, view View, previewBytes int64) Descriptor {
	f := facts{sum: t.Sum, size: int64(len(t.Data)), lines: int64(t.Lines.Count()), typ: t.JSON,
		noFinalNewline: !t.FinalNewline(), crlf: t.CRLF}
	return describe(f, t.Data, complete, src, got, view, previewBytes)
}

// facts are what a descriptor says of a text, whether it is kept or not.
type facts struct {
	sum                  [sha256.Size]byte
	size, lines          int64
	typ                  jsontape.Type
	noFinalNewline, crlf bool
}

// describe builds a descriptor from a text's facts; head is the text, or at
// least its first previewBytes+1 bytes.
func describe(f facts, head []byte, complete bool, src Source, got Retained, view View, previewBytes int64) Descriptor {
	d := Descriptor{
		SHA256:         hex.EncodeToString(f.sum[:]),
		Bytes:          f.size,
		Lines:          f.lines,
		Complete:       complete,
		Source:         src,
		Retained:       got.Result != nil,
		NoFinalNewline: f.noFinalNewline,
		CRLF:           f.crlf,
	}
	if f.typ != "" {
		t := string(f.typ)
		d.JSON = &t
	}
	if got.Result != nil {
		d.ID = &got.Result.ID
	} else {
		d.Reason = ReasonStoreFull
	}
	if view == Full {
		p, whole := Preview(head, previewBytes)
		d.Preview, d.PreviewComplete = &p, &whole
	}
	if view != Listed {
		d.Reused = &got.Reused
	}
	return d
}

// Listed returns the descriptor of a retained result as list_results shows
// it. A result never changes, so it is built once.
func (r *Result) Listed() Descriptor {
	r.listing()
	return r.listed
}

func (r *Result) listing() {
	r.listedOnce.Do(func() {
		r.listed = Describe(r.Text, r.Complete, r.Source, Retained{Result: r}, Listed, 0)
	})
}

// AppendJSON appends the descriptor's JSON form as json.Marshal writes it,
// except that a lone surrogate kept in its 3-byte form is written back as
// its escape (Source.AppendJSON). A nil descriptor is null.
func (d *Descriptor) AppendJSON(dst []byte) []byte {
	if d == nil {
		return append(dst, "null"...)
	}
	str := func(dst []byte, s *string) []byte {
		if s == nil {
			return append(dst, "null"...)
		}
		return limits.AppendJSONString(dst, *s, true)
	}
	dst = append(dst, `{"id":`...)
	dst = str(dst, d.ID)
	dst = append(dst, `,"sha256":`...)
	dst = limits.AppendJSONString(dst, d.SHA256, true)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, d.Bytes, 10)
	dst = append(dst, `,"lines":`...)
	dst = strconv.AppendInt(dst, d.Lines, 10)
	dst = append(dst, `,"complete":`...)
	dst = strconv.AppendBool(dst, d.Complete)
	dst = append(dst, `,"source":`...)
	dst = d.Source.AppendJSON(dst)
	dst = append(dst, `,"json":`...)
	dst = str(dst, d.JSON)
	if d.Preview != nil {
		dst = append(dst, `,"preview":`...)
		dst = limits.AppendJSONString(dst, *d.Preview, true)
	}
	if d.PreviewComplete != nil {
		dst = append(dst, `,"preview_complete":`...)
		dst = strconv.AppendBool(dst, *d.PreviewComplete)
	}
	if d.Reused != nil {
		dst = append(dst, `,"reused":`...)
		dst = strconv.AppendBool(dst, *d.Reused)
	}
	dst = append(dst, `,"retained":`...)
	dst = strconv.AppendBool(dst, d.Retained)
	if d.Reason != "" {
		dst = append(dst, `,"reason":`...)
		dst = limits.AppendJSONString(dst, d.Reason, true)
	}
	return append(dst, '}')
}

// Preview returns the longest prefix of data of at most n bytes that ends on
// a character boundary, and whether it is the whole of data.
func Preview(data []byte, n int64) (string, bool) {
	if int64(len(data)) <= n {
		return string(data), true
	}
	end := selectors.FloorCharBoundary(data, int(n))
	return string(data[:end]), false
}

// Tail returns the longest suffix of data of at most n bytes that starts
// at the beginning of a line, or, when the last line alone is longer, on a
// character boundary (SPEC section 10: run's text shows where the output
// ends); and whether it is the whole of data. A line begins at 0 or after
// a "\n"; the end of data, after a final "\n", begins none.
func Tail(data []byte, n int64) (string, bool) {
	start := TailStart(data, n)
	return string(data[start:]), start == 0
}

// TailStart is where Tail's suffix of at most n bytes starts: 0 exactly
// when it is the whole of data.
func TailStart(data []byte, n int64) int {
	if int64(len(data)) <= n {
		return 0
	}
	from := len(data) - int(max(n, 0))
	if i := bytes.IndexByte(data[from-1:len(data)-1], '\n'); i >= 0 {
		return from + i
	}
	return selectors.CeilCharBoundary(data, from)
}
