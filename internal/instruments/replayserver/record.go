package replayserver

import (
	"bytes"
	"io"
	"slices"
	"sync"
)

// A Recorder makes a tape of a live session: it pairs each request the
// client sent with the answer of the same id. It is safe for concurrent
// use, since a client writes and reads on different goroutines.
type Recorder struct {
	mu      sync.Mutex
	pending map[string][]byte // request by its id's bytes
	tape    []Exchange
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{pending: make(map[string][]byte)} }

// Sent notes a message the client sent; a notification (no id) is not
// kept, since it gets no answer.
func (r *Recorder) Sent(msg []byte) {
	s, e, ok := idSpan(msg)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending[string(msg[s:e])] = slices.Clone(msg)
}

// Received notes a message the server sent: an answer is paired with the
// request of its id. A message that answers no pending request (a
// notification from the server) is not kept.
func (r *Recorder) Received(msg []byte) {
	s, e, ok := idSpan(msg)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := string(msg[s:e])
	req, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	r.tape = append(r.tape, Exchange{Request: req, Answer: slices.Clone(msg)})
}

// Add adds an exchange whose request and answer the caller has together
// (an HTTP client); the bytes are copied.
func (r *Recorder) Add(x Exchange) {
	x.Request, x.Answer = slices.Clone(x.Request), slices.Clone(x.Answer)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tape = append(r.tape, x)
}

// Tape returns the exchanges recorded so far, in the order they were
// answered.
func (r *Recorder) Tape() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.tape)
}

// Writer returns a writer to w that notes each line written through it as
// sent (the client's side of a stdio pipe).
func (r *Recorder) Writer(w io.WriteCloser) io.WriteCloser {
	return &lineTee{WriteCloser: w, note: r.Sent}
}

// Reader returns a reader of rd that notes each line read through it as
// received (the server's side of a stdio pipe).
func (r *Recorder) Reader(rd io.ReadCloser) io.ReadCloser {
	return &readTee{rd: rd, lines: lineTee{note: r.Received}}
}

// lineTee passes writes on and hands each complete line, without its line
// ending, to note.
type lineTee struct {
	io.WriteCloser
	note func([]byte)
	part []byte
}

// Write notes the lines of p before it passes them on: the answer to a
// request may be read before a Write that sent it returns.
func (t *lineTee) Write(p []byte) (int, error) {
	t.split(p)
	if t.WriteCloser == nil {
		return len(p), nil
	}
	return t.WriteCloser.Write(p)
}

func (t *lineTee) split(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.part = append(t.part, p...)
			return
		}
		line := append(t.part, p[:i]...)
		t.part = line[:0]
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			t.note(line)
		}
		p = p[i+1:]
	}
}

// readTee passes reads on and splits what was read into lines.
type readTee struct {
	rd    io.ReadCloser
	lines lineTee
}

func (t *readTee) Read(p []byte) (int, error) {
	n, err := t.rd.Read(p)
	t.lines.split(p[:n])
	return n, err
}

func (t *readTee) Close() error { return t.rd.Close() }
