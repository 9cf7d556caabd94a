// Package results is the store of one briefing (SPEC sections 3, 6 and 7):
// immutable results under IDs r1, r2, ... that are never reused, their
// SHA-256 over exactly their bytes, their line and JSON indexes, and the
// caps on how many and how much they hold. Nothing is ever evicted.
package results

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/selectors"
)

// Source says where a result came from (SPEC section 3). Its JSON form is the
// descriptor's "source" object; two sources are equal when their members
// are, strings compared byte for byte.
type Source struct {
	Kind string `json:"kind"` // "file", "listing", "output" or "edit"
	// At is the JSON pointer of the expanded node (edit).
	At *string `json:"at,omitempty"`
	// Path is the root-relative path (file, listing), or the expanded
	// arguments' top-level string "path" (edit).
	Path *string `json:"path,omitempty"`
	// Label, ExitCode, TimedOut, Cancelled, DroppedBytes and Replaced
	// describe captured output. ExitCode is nil when not given
	// (retain_output without exit_code), and points to nil when a signal
	// ended a run's command (exit_code null). Cancelled and Replaced come
	// from run alone, and show only when true and when not 0.
	Label        *string `json:"label,omitempty"`
	ExitCode     **int64 `json:"exit_code,omitempty"`
	TimedOut     *bool   `json:"timed_out,omitempty"`
	Cancelled    bool    `json:"cancelled,omitempty"`
	DroppedBytes int64   `json:"dropped_bytes,omitempty"`
	Replaced     int64   `json:"replaced,omitempty"`
}

// AppendJSON appends the source's JSON form as json.Marshal writes it,
// except that a lone surrogate kept in its 3-byte form (an at pointer or a
// path that a client sent with a lone surrogate escape) is written back as
// that escape (limits.AppendJSONString).
func (s *Source) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"kind":`...)
	dst = limits.AppendJSONString(dst, s.Kind, true)
	if s.At != nil {
		dst = append(dst, `,"at":`...)
		dst = limits.AppendJSONString(dst, *s.At, true)
	}
	if s.Path != nil {
		dst = append(dst, `,"path":`...)
		dst = limits.AppendJSONString(dst, *s.Path, true)
	}
	if s.Label != nil {
		dst = append(dst, `,"label":`...)
		dst = limits.AppendJSONString(dst, *s.Label, true)
	}
	if s.ExitCode != nil {
		dst = append(dst, `,"exit_code":`...)
		if *s.ExitCode == nil {
			dst = append(dst, "null"...)
		} else {
			dst = strconv.AppendInt(dst, **s.ExitCode, 10)
		}
	}
	if s.TimedOut != nil {
		dst = append(dst, `,"timed_out":`...)
		dst = strconv.AppendBool(dst, *s.TimedOut)
	}
	if s.Cancelled {
		dst = append(dst, `,"cancelled":true`...)
	}
	if s.DroppedBytes != 0 {
		dst = append(dst, `,"dropped_bytes":`...)
		dst = strconv.AppendInt(dst, s.DroppedBytes, 10)
	}
	if s.Replaced != 0 {
		dst = append(dst, `,"replaced":`...)
		dst = strconv.AppendInt(dst, s.Replaced, 10)
	}
	return append(dst, '}')
}

// appendKey appends a form of the source in which every member is kept
// byte for byte (strings quoted by strconv, which round-trips any bytes):
// equal keys are equal source objects (SPEC section 3's reuse). A JSON
// encoding would not do: encoding/json writes every invalid byte as
// U+FFFD, so two different lone surrogates would read alike.
func (s *Source) appendKey(dst []byte) []byte {
	dst = strconv.AppendQuote(dst, s.Kind)
	for _, p := range [...]*string{s.At, s.Path, s.Label} {
		if p == nil {
			dst = append(dst, '-')
		} else {
			dst = strconv.AppendQuote(dst, *p)
		}
	}
	switch {
	case s.ExitCode == nil:
		dst = append(dst, '-')
	case *s.ExitCode == nil:
		dst = append(dst, 's')
	default:
		dst = strconv.AppendInt(dst, **s.ExitCode, 10)
		dst = append(dst, ',')
	}
	switch {
	case s.TimedOut == nil:
		dst = append(dst, '-')
	case *s.TimedOut:
		dst = append(dst, 't')
	default:
		dst = append(dst, 'f')
	}
	if s.Cancelled {
		dst = append(dst, 'c')
	}
	dst = strconv.AppendInt(dst, s.DroppedBytes, 10)
	dst = append(dst, ',')
	return strconv.AppendInt(dst, s.Replaced, 10)
}

// The source kinds.
const (
	KindFile    = "file"
	KindListing = "listing"
	KindOutput  = "output"
	KindEdit    = "edit"
)

// Text is a result's bytes with what one pass over them learned: the
// SHA-256, the line index and the JSON type.
type Text struct {
	Data  []byte
	Sum   [sha256.Size]byte
	Lines selectors.Lines
	// JSON is the type of the whole result when it is one strict JSON value
	// (SPEC section 4.3), else "".
	JSON jsontape.Type
	// Index is the JSON index of the result when JSON is set, else nil.
	Index *jsontape.Index
	// CRLF says that the text is CRLF as SPEC section 5.2 defines it:
	// at least one line ending, and every one "\r\n". A splice of it
	// writes a new line's "\n" as "\r\n", and its header says crlf.
	CRLF bool
}

// FinalNewline reports whether the text is empty or ends with '\n'; the
// header of one that does not says "no final newline" (SPEC section 3).
func (t *Text) FinalNewline() bool { return selectors.FinalNewline(t.Data) }

// Hex returns the full lowercase hex digest.
func (t *Text) Hex() string { return hex.EncodeToString(t.Sum[:]) }

// Result is one retained result. Everything is fixed once it is stored,
// apart from the error of a result that is not JSON, found at the first
// pointer lookup, and the indexes of large containers that lookups add to
// its JSON index.
type Result struct {
	ID       string
	Text     *Text
	Complete bool
	Source   Source

	notJSONOnce sync.Once
	notJSON     *errcode.Error
	lateIndex   *jsontape.Index

	listedOnce sync.Once
	listed     Descriptor
}

// JSON returns the result's JSON index, built when the result was analyzed
// (so the first pointer lookup scans nothing), or, for a result that is not
// one JSON value, the invalid_json error that says where it stops being
// one (found by one scan at the first lookup, and kept).
func (r *Result) JSON() (*jsontape.Index, *errcode.Error) {
	if r.Text.Index != nil {
		return r.Text.Index, nil
	}
	r.notJSONOnce.Do(func() {
		// A text that Analyze did not make may be JSON after all.
		r.lateIndex, r.notJSON = jsontape.Build(r.Text.Data, jsontape.Options{})
	})
	return r.lateIndex, r.notJSON
}
