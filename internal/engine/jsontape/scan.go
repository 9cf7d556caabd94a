package jsontape

import "math"

// scanner is the one state machine of the grammar (RFC 8259 with the rules
// of SPEC section 4.3). Validate runs it with no sink; Build runs it with a
// builder that records the tape; the two halves of a split build run it
// from the middle of a document (see split.go). Whatever it records, it
// accepts and rejects the same inputs, at the same offsets.
//
// The grammar has four states, written as labels: value (a value must
// start at i), next (a value just ended at i), name (a member name must
// start at i) and the end of input. The hot state lives in local variables;
// the struct holds what a stop, the end or a sink needs.
type scanner struct {
	data     []byte
	lenient  bool     // accept raw invalid UTF-8 inside strings
	sink     *builder // nil: record nothing
	maxDepth int      // the deepest nesting accepted (Options.MaxDepth)

	// stopAt, for the first half of a split, stops the scan right after
	// the first ',' at or after it (and the whitespace that follows); it
	// is math.MaxInt otherwise.
	stopAt int
	// phantom makes the scan start at i inside containers it does not
	// know: the second half of a split (see split.go).
	phantom bool
	// stopped is set when a scan stops at stopAt; run then goes on from
	// there.
	stopped bool

	// Where the scan stopped or ended: the offset, the open containers
	// (depth of them; inObj and count for the innermost) and the stack of
	// the outer ones' states, count<<1 | 1 for an object (see level). The
	// stack grows up to maxDepth from a few levels inline: a scan of a
	// message should not clear 4 KiB first.
	i     int
	depth int
	inObj bool
	count uint32 // elements of the innermost array before the one at i
	small [16]uint32
	deep  []uint32 // the levels past small

	top Type // the type of the document's value (whole scans only)

	// What a phantom scan learned (split.go): the kinds of the containers
	// it closed without having opened them, innermost first, the guesses
	// it made, and how deep it went above its start.
	phantoms []phantomClose
	known    int // phantom levels whose kind is known or guessed
	// hiDepth is the deepest the scan went: for a phantom scan, above the
	// level it started at; for any other, the document's deepest nesting
	// so far.
	hiDepth int
}

// status is how a scan ended: done (a whole valid document, or a phantom
// scan's part of one), failed (at offset i, for reason why) or one of the
// split outcomes below.
type status uint8

const (
	done status = iota
	failed
	stopped // the first half reached stopAt
	unsure  // a phantom scan met something only the true context decides
)

// run scans from sc.i and returns how it ended; on failure, sc.i is the
// offset and why the reason.
func (sc *scanner) run() (st status, why reason) {
	var (
		data    = sc.data
		n       = len(data)
		sink    = sc.sink
		stopAt  = sc.stopAt
		i       = sc.i
		depth   = sc.depth
		inObj   = sc.inObj
		count   = sc.count
		hi      = depth
		c       byte
		start   int
		nameWhy reason // why a missing name fails: after '{' or after ','
		inName  bool   // the string at start is a member name
		limit   = sc.maxDepth
		// The shortest scalar the sink records: minOwn bytes, or every
		// one for a small document's builder (see smallDocument).
		minScalar = minOwn
	)
	if sink != nil && sink.all {
		minScalar = 0
	}
	switch {
	case sc.phantom:
		goto phantomStart
	case sc.stopped:
		// Going on from a stop: right after a ',' (see stopAt).
		sc.stopped = false
		if inObj {
			nameWhy = errNameAfterComma
			goto name
		}
		goto value
	}
	if i = skipWS(data, i); i < n {
		sc.top = typeOfFirst(data[i])
	}

value:
	if i >= n {
		i, why = n, errValue
		goto out
	}
	c, start = data[i], i
	switch {
	case c == '"':
		inName = false
		goto str
	case c-'0' < 10 || c == '-':
		// The common number, -?(0|[1-9][0-9]*)(.[0-9]+)? and then a byte
		// that cannot continue it, inline, digits a word at a time;
		// scanNumber takes the rest (exponents, errors) from the start,
		// and ends it where this would.
		if c == '-' {
			i++
		}
		if i >= n || data[i]-'0' >= 10 || data[i] == '0' && i+1 < n && data[i+1]-'0' < 10 {
			goto number
		}
		for i++; i+8 <= n; i += 8 {
			if m := nonDigits(load8(data, i)); m != 0 {
				i += firstFlagged(m)
				goto fraction
			}
		}
		for i < n && data[i]-'0' < 10 {
			i++
		}
	fraction:
		if i < n && data[i] == '.' {
			if i++; i >= n || data[i]-'0' >= 10 {
				goto number
			}
			for i++; i+8 <= n; i += 8 {
				if m := nonDigits(load8(data, i)); m != 0 {
					i += firstFlagged(m)
					goto end
				}
			}
			for i < n && data[i]-'0' < 10 {
				i++
			}
		}
	end:
		if i < n && (data[i]-'0' < 10 || data[i]|0x20 == 'e') {
			goto number
		}
		if i-start >= minScalar && sink != nil {
			sink.scalar(start, i)
		}
	case c == '{' || c == '[':
		if depth == limit {
			why = errDepth
			goto out
		}
		obj := c == '{'
		if i = skipWS(data, i+1); i < n && (obj && data[i] == '}' || !obj && data[i] == ']') {
			// An empty container: nothing to record (see minOwn).
			i++
			goto next
		}
		if inObj {
			sc.setLevel(depth, count<<1|1)
		} else {
			sc.setLevel(depth, count<<1)
		}
		depth++
		// In a phantom scan, depth counts from the innermost container
		// not closed yet: past k closed phantoms it is k levels shallower.
		hi = max(hi, depth-len(sc.phantoms))
		inObj, count = obj, 0
		if sink != nil {
			sink.open(start)
		}
		if obj {
			nameWhy = errNameOrEnd
			goto name
		}
		if i >= n {
			i, why = n, errValueOrEnd
			goto out
		}
		goto value
	case c == 't':
		if i+4 <= n && string(data[i:i+4]) == "true" {
			i += 4
		} else if i, why = scanLiteral(data, i, "true"); why != 0 {
			goto out
		}
	case c == 'f':
		if i+5 <= n && string(data[i:i+5]) == "false" {
			i += 5
		} else if i, why = scanLiteral(data, i, "false"); why != 0 {
			goto out
		}
	case c == 'n':
		if i+4 <= n && string(data[i:i+4]) == "null" {
			i += 4
		} else if i, why = scanLiteral(data, i, "null"); why != 0 {
			goto out
		}
	default:
		why = errValue
		goto out
	}
	goto next

number:
	if i, why = scanNumber(data, start); why != 0 {
		goto out
	}
	if i-start >= minScalar && sink != nil {
		sink.scalar(start, i)
	}
	goto next

str:
	// A string value or name opens at data[start]. Most are short and
	// plain: find the closing quote inline, a word at a time, and leave
	// escapes, non-ASCII and the end of data to scanString.
	for i = start + 1; ; i += 8 {
		if i+8 > n {
			if i, why = scanString(data, i, sc.lenient); why != 0 {
				goto out
			}
			break
		}
		w := load8(data, i)
		m := stringSpecial(w)
		if m == 0 {
			continue
		}
		// The lowest flagged byte is a quote exactly when it is flagged
		// in the quotes' mask, whose false bits lie above a true quote.
		if q := w ^ swarOnes*'"'; m&-m&(q-swarOnes)&^q != 0 {
			i += firstFlagged(m) + 1
			break
		}
		if i, why = scanString(data, i+firstFlagged(m), sc.lenient); why != 0 {
			goto out
		}
		break
	}
	if !inName {
		if i-start >= minScalar && sink != nil {
			sink.scalar(start, i)
		}
		goto next
	}
	if i < n && data[i] <= ' ' {
		i = skipWS(data, i)
	}
	if i >= n || data[i] != ':' {
		why = errColon
		goto out
	}
	if i++; i < n && data[i] <= ' ' {
		i = skipWS(data, i)
	}
	goto value

next:
	if i < n && data[i] <= ' ' {
		i = skipWS(data, i)
	}
	if depth == 0 {
		if sc.phantom {
			goto phantomNext
		}
		if i != n {
			why = errAfterTop
			goto out
		}
		st = done
		goto out
	}
	if i >= n {
		i = n
		if inObj {
			why = errAfterMember
			goto out
		}
		why = errAfterElement
		goto out
	}
	c = data[i]
	if c == ',' {
		comma := i
		if i++; i < n && data[i] <= ' ' {
			i = skipWS(data, i)
		}
		if inObj {
			if comma >= stopAt {
				st = stopped
				goto out
			}
			nameWhy = errNameAfterComma
			goto name
		}
		if i < n && data[i] == ']' {
			why = errTrailingComma
			goto out
		}
		if count++; count%checkpointEvery == 0 && count >= firstCheckpoint && sink != nil {
			sink.checkpoint(i, count)
		}
		if comma >= stopAt {
			st = stopped
			goto out
		}
		goto value
	}
	if inObj && c == '}' || !inObj && c == ']' {
		i++
		depth--
		v := sc.level(depth)
		inObj, count = v&1 != 0, v>>1
		if sink != nil {
			sink.close(i)
		}
		goto next
	}
	if inObj {
		why = errAfterMember
		goto out
	}
	why = errAfterElement
	goto out

name:
	if i >= n {
		i, why = n, nameWhy
		goto out
	}
	if data[i] != '"' {
		if data[i] == '}' && nameWhy == errNameAfterComma {
			why = errTrailingComma
			goto out
		}
		why = nameWhy
		goto out
	}
	start, inName = i, true
	goto str

	// The phantom states: the innermost container is one the scan did not
	// open (depth 0), whose kind it may not know. Nothing here reports an
	// error: what is valid depends on the context the first half knows,
	// so anything unexpected is unsure, and the join rescans.
phantomStart:
	// Right after a ',' in the innermost phantom container.
	inObj = guessObject(data, i)
	sc.known = 1
	if inObj {
		nameWhy = errNameAfterComma
		goto name
	}
	goto value

phantomNext:
	if i >= n {
		// The end of the document: valid if the phantoms closed were all
		// the containers open at the split (the join checks), and no
		// container the scan guessed at after them is still open: that
		// one is unclosed, or its ',' followed the top-level value.
		if sc.known > len(sc.phantoms) {
			st = unsure
		}
		goto out
	}
	switch c = data[i]; c {
	case ',':
		if i++; i < n && data[i] <= ' ' {
			i = skipWS(data, i)
		}
		if sc.known == len(sc.phantoms) {
			// A container whose kind nothing has shown yet.
			inObj = guessObject(data, i)
			sc.known++
		}
		if inObj {
			nameWhy = errNameAfterComma
			goto name
		}
		if i < n && data[i] == ']' {
			st = unsure
			goto out
		}
		if count++; count%checkpointEvery == 0 && count >= firstCheckpoint && sink != nil {
			sink.checkpoint(i, count)
		}
		goto value
	case '}', ']':
		obj := c == '}'
		if sc.known > len(sc.phantoms) && inObj != obj {
			st = unsure // the guess was wrong, or the document is
			goto out
		}
		i++
		sc.phantoms = append(sc.phantoms, phantomClose{end: i, object: obj})
		sc.known = len(sc.phantoms)
		if sink != nil {
			sink.closePhantom(i)
		}
		count = 0
		goto next
	}
	st = unsure

out:
	sc.i, sc.depth, sc.inObj, sc.count = i, depth, inObj, count
	sc.hiDepth = max(sc.hiDepth, hi)
	sc.stopped = st == stopped
	if why != 0 {
		st = failed
	}
	return st, why
}

// guessObject guesses whether the ',' just before data[i] separates the
// members of an object: a member name is a string followed by ':', which
// no array element is.
func guessObject(data []byte, i int) bool {
	if i >= len(data) || data[i] != '"' {
		return false
	}
	j := skipWS(data, min(skipString(data, i+1), len(data)))
	return j < len(data) && data[j] == ':'
}

// phantomClose is a container that a phantom scan closed: where it ended
// and its kind.
type phantomClose struct {
	end    int
	object bool
}

// typeOfFirst returns the type of the value that starts with byte c, or ""
// when no value starts with c.
func typeOfFirst(c byte) Type {
	switch {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == '-' || c-'0' < 10:
		return Number
	case c == 't' || c == 'f':
		return Boolean
	case c == 'n':
		return Null
	}
	return ""
}

// newScanner returns a scanner for a whole document, with the nesting
// limit MaxDepth.
func newScanner(data []byte, lenient bool, sink *builder) scanner {
	return scanner{data: data, lenient: lenient, sink: sink, stopAt: math.MaxInt, maxDepth: MaxDepth}
}

// level returns level d of the stack: the state of the container at depth
// d (the top level for 0) while one at depth d+1 is open.
func (sc *scanner) level(d int) uint32 {
	if d < len(sc.small) {
		return sc.small[d]
	}
	return sc.deep[d-len(sc.small)]
}

// setLevel sets level d of the stack; d is at most one past its top.
func (sc *scanner) setLevel(d int, v uint32) {
	if d < len(sc.small) {
		sc.small[d] = v
		return
	}
	if d -= len(sc.small); d == len(sc.deep) {
		sc.deep = append(sc.deep, v)
		return
	}
	sc.deep[d] = v
}
