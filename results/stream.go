package results

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"unicode/utf8"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/selectors"
)

// A Summary is what a descriptor says of a text that is not kept: its
// digest, size, line count and preview, learned by a StreamScan without
// ever holding the whole text. A text that is not kept has no JSON type
// here: StreamScan refuses texts that may be JSON (MaybeJSON).
type Summary struct {
	Sum   [sha256.Size]byte
	Size  int64
	Lines int64
	// NoFinalNewline and CRLF are the descriptor's facts of the same
	// names.
	NoFinalNewline, CRLF bool
	// Head is the text's first bytes, at least as many as the preview
	// needs.
	Head []byte
}

// A StreamScan learns a Summary from a text given in chunks: the digest,
// the UTF-8 check (with the offset of the first invalid sequence, across
// chunk boundaries), the line count and the first bytes. It is how inspect
// answers for a file that cannot be kept (the store is full) without
// holding the file: memory stays at one read window.
type StreamScan struct {
	h        hash.Hash
	size     int64
	newlines int64
	last     byte
	// carry holds the start of a multi-byte character cut by the end of
	// the previous chunk.
	carry []byte
	head  []byte
	headN int
	err   *errcode.Error
	nonWS byte // the first byte that is not JSON whitespace, 0 before it
	ends  selectors.EndingScan
}

// NewStreamScan returns a scan that keeps the first headBytes bytes (plus
// the few after them that a preview's character boundary may need).
func NewStreamScan(headBytes int64) *StreamScan {
	return &StreamScan{h: sha256.New(), headN: int(headBytes) + utf8.UTFMax}
}

// Write takes the next chunk. After a UTF-8 failure it only counts and
// hashes; Finish reports the failure.
func (s *StreamScan) Write(chunk []byte) {
	s.h.Write(chunk)
	if len(s.head) < s.headN {
		s.head = append(s.head, chunk[:min(len(chunk), s.headN-len(s.head))]...)
	}
	if s.nonWS == 0 {
		for _, c := range chunk {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				s.nonWS = c
				break
			}
		}
	}
	s.newlines += int64(bytes.Count(chunk, []byte{'\n'}))
	s.ends.Write(chunk)
	if len(chunk) > 0 {
		s.last = chunk[len(chunk)-1]
	}
	base := s.size
	s.size += int64(len(chunk))
	if s.err != nil {
		return
	}
	// Finish a character cut by the previous chunk.
	for len(s.carry) > 0 && len(chunk) > 0 {
		s.carry = append(s.carry, chunk[0])
		chunk = chunk[1:]
		base++
		if utf8.FullRune(s.carry) {
			if r, _ := utf8.DecodeRune(s.carry); r == utf8.RuneError {
				s.err = selectors.NotUTF8(base - int64(len(s.carry)))
				return
			}
			s.carry = s.carry[:0]
		}
	}
	// Validate up to the start of a character cut by this chunk's end.
	cut := len(chunk)
	for k := 1; k <= min(utf8.UTFMax-1, len(chunk)); k++ {
		if c := chunk[len(chunk)-k]; utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(chunk[len(chunk)-k:]) {
				cut = len(chunk) - k
			}
			break
		}
	}
	if !utf8.Valid(chunk[:cut]) {
		s.err = selectors.NotUTF8(base + int64(selectors.FirstInvalidUTF8(chunk[:cut])))
		return
	}
	s.carry = append(s.carry, chunk[cut:]...)
}

// MaybeJSON reports whether the text so far may be one JSON value: its
// first byte that is not whitespace (if any yet) could start one. Its JSON
// type needs the whole text, so such a text is read whole instead.
func (s *StreamScan) MaybeJSON() bool {
	switch c := s.nonWS; {
	case c == 0, c == '{', c == '[', c == '"', c == '-', c >= '0' && c <= '9', c == 't', c == 'f', c == 'n':
		return true
	}
	return false
}

// Finish returns the summary, or not_utf8 for a text that is not UTF-8.
func (s *StreamScan) Finish() (*Summary, *errcode.Error) {
	if s.err == nil && len(s.carry) > 0 {
		s.err = selectors.NotUTF8(s.size - int64(len(s.carry)))
	}
	if s.err != nil {
		return nil, s.err
	}
	lines := s.newlines
	if s.size > 0 && s.last != '\n' {
		lines++
	}
	sum := &Summary{Size: s.size, Lines: lines, Head: s.head,
		NoFinalNewline: s.size > 0 && s.last != '\n', CRLF: s.ends.CRLF()}
	s.h.Sum(sum.Sum[:0])
	return sum, nil
}

// DescribeSummary returns the descriptor of a text that was not kept (the
// store is full): as Describe's for a result that did not fit.
func DescribeSummary(s *Summary, complete bool, src Source, view View, previewBytes int64) Descriptor {
	f := facts{sum: s.Sum, size: s.Size, lines: s.Lines, noFinalNewline: s.NoFinalNewline, crlf: s.CRLF}
	return describe(f, s.Head, complete, src, Retained{}, view, previewBytes)
}
