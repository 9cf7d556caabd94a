package results

import (
	"crypto/sha256"
	"hash"
	"sync"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/selectors"
)

// Analyze hashes data, checks that it is UTF-8, indexes its lines, learns
// whether its line endings are CRLF and, when it is one JSON value, finds
// its type and builds its JSON index. The digest
// runs on its own goroutine, beside the JSON scan (itself in two halves for
// a large document) and the UTF-8 and line pass, so a large result costs
// about one hash. data is kept, not copied: the caller must not change it
// afterwards.
func Analyze(data []byte) (*Text, *errcode.Error) {
	return AnalyzeDigested(data, nil)
}

// AnalyzeDigested is Analyze with the digest of data begun by d while data
// was being read (nil: none begun).
func AnalyzeDigested(data []byte, d *Digest) (*Text, *errcode.Error) {
	return AnalyzeRead(data, d, nil)
}

// AnalyzeRead is Analyze with the digest begun by d and the text's scan
// begun by ts while data was being read (nil: none begun), so that only
// what arrived last is left to them.
func AnalyzeRead(data []byte, d *Digest, ts *selectors.TextScan) (*Text, *errcode.Error) {
	t := &Text{Data: data}
	if d == nil {
		d = &Digest{}
		d.Watch(data) // on its own goroutine only from parallelHash bytes
	}
	defer func() { t.Sum = d.Sum(data) }()
	// The index is built now, beside the digest, so that the first pointer
	// lookup scans nothing. A document that is not JSON fails the scan at
	// its first bytes, mostly at the first (mayBeJSON).
	if mayBeJSON(data) && len(data) <= selectors.MaxSize {
		if ix, err := jsontape.Build(data, jsontape.Options{}); err == nil {
			t.JSON, t.Index = ix.Type(), ix
		}
	}
	if ts == nil {
		ts = &selectors.TextScan{}
	}
	lines, err := ts.Lines(data)
	if err != nil {
		return nil, err
	}
	t.Lines = lines
	t.CRLF = selectors.CRLF(data)
	return t, nil
}

// mayBeJSON reports whether data could be one JSON value: its first byte
// that is not whitespace could start one (RFC 8259 section 2).
func mayBeJSON(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n':
			return true
		}
		return false
	}
	return false
}

// parallelHash is the size from which a digest runs on another goroutine;
// below it a goroutine costs more than it saves.
const parallelHash = 256 << 10

// A Digest computes the SHA-256 of a buffer while the buffer is still being
// filled: Watch takes each filled prefix as a reader produces it (a
// workspace watcher), and once the first prefix reaches parallelHash bytes,
// a goroutine hashes the new bytes of each while the reading goes on. The
// zero Digest is ready to use; Sum ends it.
type Digest struct {
	prefixes chan []byte
	done     chan hashed
	stopped  sync.Once
	last     hashed
}

// hashed is what the hashing goroutine has done: the hash of the first n
// bytes.
type hashed struct {
	h hash.Hash
	n int
}

// Watch takes the bytes filled so far. Bytes once given must not change.
func (d *Digest) Watch(filled []byte) {
	if d.prefixes == nil {
		if len(filled) < parallelHash {
			return // Sum hashes it all at the end
		}
		// A 16 MiB file comes in 16 prefixes: the reader never waits.
		d.prefixes = make(chan []byte, 64)
		d.done = make(chan hashed, 1)
		go func() {
			h, n := sha256.New(), 0
			for b := range d.prefixes {
				h.Write(b[n:])
				n = len(b)
			}
			d.done <- hashed{h, n}
		}()
	}
	d.prefixes <- filled
}

// Sum returns the digest of data, which must begin with every prefix given
// to Watch: it hashes what the goroutine has not. It ends the digest; a
// Digest sums one buffer.
func (d *Digest) Sum(data []byte) (sum [sha256.Size]byte) {
	if d.prefixes == nil {
		return sha256.Sum256(data)
	}
	r := d.stop()
	r.h.Write(data[r.n:])
	r.h.Sum(sum[:0])
	return sum
}

// Stop ends a digest whose data will never be summed (the read failed), so
// that its goroutine ends.
func (d *Digest) Stop() {
	if d.prefixes != nil {
		d.stop()
	}
}

func (d *Digest) stop() hashed {
	d.stopped.Do(func() {
		close(d.prefixes)
		d.last = <-d.done
	})
	return d.last
}
