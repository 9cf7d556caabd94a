package selectors

import "bytes"

// An EndingScan learns whether a text is CRLF as SPEC section 5.2 defines
// it: it has at least one line ending, and every line ending in it is
// "\r\n" (a last line without an ending does not count, and a lone '\r'
// ends no line). It takes the text in chunks, in order, so that a text
// read in windows is judged as one; a "\r\n" cut between two chunks
// counts. The zero EndingScan is ready to use.
//
// It stops looking at the first '\n' without its '\r': a text with Unix
// line endings costs one line, a CRLF text one search a line.
type EndingScan struct {
	lf     bool // a '\n' not after '\r' was seen
	crlf   bool // a "\r\n" was seen
	lastCR bool // the last chunk ended with '\r'
}

// Write takes the next chunk of the text.
func (s *EndingScan) Write(chunk []byte) {
	if s.lf || len(chunk) == 0 {
		return
	}
	prevCR := s.lastCR
	s.lastCR = chunk[len(chunk)-1] == '\r'
	for i := 0; ; {
		j := bytes.IndexByte(chunk[i:], '\n')
		if j < 0 {
			return
		}
		i += j
		if i > 0 && chunk[i-1] == '\r' || i == 0 && prevCR {
			s.crlf = true
		} else {
			s.lf = true
			return
		}
		i++
	}
}

// CRLF reports whether the text so far is CRLF.
func (s *EndingScan) CRLF() bool { return s.crlf && !s.lf }

// CRLF reports whether data is CRLF (EndingScan).
func CRLF(data []byte) bool {
	var s EndingScan
	s.Write(data)
	return s.CRLF()
}

// FinalNewline reports whether data is empty or ends with '\n': a text
// for which SPEC section 3's header says "no final newline" is one for
// which this is false.
func FinalNewline(data []byte) bool {
	return len(data) == 0 || data[len(data)-1] == '\n'
}
