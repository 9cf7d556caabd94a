package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"loom-results/selectors"
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
	return describe(t.Sum, int64(len(t.Data)), int64(t.Lines.Count()), t.JSON, t.Data, complete, src, got, view, previewBytes)
}

// describe builds a descriptor from a text's facts; head is the text, or at
// least its first previewBytes+1 bytes.
func describe(sum [sha256.Size]byte, size, lines int64, typ selectors.JSONType, head []byte,
	complete bool, src Source, got Retained, view View, previewBytes int64) Descriptor {
	d := Descriptor{
		SHA256:   hex.EncodeToString(sum[:]),
		Bytes:    size,
		Lines:    lines,
		Complete: complete,
		Source:   src,
		Retained: got.Result != nil,
	}
	if typ != "" {
		t := string(typ)
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

// ListedText returns the listed descriptor as compact JSON, its sha256 cut
// to its first 12 hex digits and <, > and & as they are: the result's entry
// in list_results' text content. It is built once; it must not be changed.
func (r *Result) ListedText() []byte {
	r.listing()
	return r.listedText
}

func (r *Result) listing() {
	r.listedOnce.Do(func() {
		r.listed = Describe(r.Text, r.Complete, r.Source, Retained{Result: r}, Listed, 0)
		short := r.listed
		short.SHA256 = short.SHA256[:12]
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(short); err != nil {
			panic(err) // a descriptor holds strings, numbers and bools
		}
		r.listedText = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	})
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
