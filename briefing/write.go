package briefing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/linediff"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// Written is the answer of write_file, its structured content as its json
// tags say (SPEC section 9): the one description of it, which AppendJSON
// writes faster and the tests hold AppendJSON to.
type Written struct {
	Path   string             `json:"path"`
	Bytes  int64              `json:"bytes"`
	SHA256 string             `json:"sha256"`
	Base   *string            `json:"base"`   // the base result's ID, or nil
	Result results.Descriptor `json:"result"` // the written text, retained as a file result
	Diff   string             `json:"diff"`   // the change as a unified diff
	Budget limits.Snapshot    `json:"budget"` // the step after the call
	Text   string             `json:"-"`      // the text content
	lines  int64              // of the written text, for Text
}

// TextContent is the write's line and its diff, the answer's text
// content.
func (w *Written) TextContent() string { return w.Text }

// diffContext is the unchanged lines a hunk shows around a change (GNU
// diff -U1, SPEC section 9).
const diffContext = 1

// writeFile writes an edit to a file under the root (SPEC section 9),
// once a refused step and the arguments are checked (OpOf). The checks go
// on in the SPEC's order: the new text's resolution (an unresolved edit
// refuses the step), the path, the base, the expansion cap, the store,
// then the file on disk against the base, before the write is prepared and
// again right before its rename (writeChecked). The written text is
// retained as a file result, as if inspected after the write.
func (b *Briefing) writeFile(req *WriteFileRequest) (*Written, *errcode.Error) {
	pieces, spliced, expanded, err := b.resolveWrite(req)
	if err != nil {
		if err.Code == errcode.UnresolvedEdit {
			b.budget.Refuse()
		}
		return nil, err
	}

	// The path: given, or the spliced result's own.
	p := req.Path
	if p == nil && spliced != nil {
		p = spliced.Source.Path
	}
	if p == nil {
		return nil, errcode.New(errcode.InvalidArgument,
			"path is required: %s has no source path to default to", spliced.ID)
	}
	target, err := b.opts.Root.Target(*p)
	if err != nil {
		return nil, err
	}

	// The base: given, or the spliced result when it is that file's.
	var base *results.Result
	switch {
	case req.Base != nil:
		if base, err = b.store.Get(*req.Base); err != nil {
			return nil, err
		}
	case spliced != nil && spliced.Source.Path != nil && b.samePath(*spliced.Source.Path, target.Rel):
		base = spliced
	}

	var size int64
	for _, piece := range pieces {
		size += int64(len(piece))
	}
	if expanded && size > b.budget.ExpandLeft() {
		return nil, b.budget.ChargeExpand(size)
	}
	text, err := results.Analyze(bytes.Join(pieces, nil))
	if err != nil {
		return nil, err // parts are valid UTF-8 and end on boundaries, so this does not happen
	}
	src := results.Source{Kind: results.KindFile, Path: &target.Rel}
	if b.opts.Policy == Bounded && b.store.Reusable(text.Sum, true, src) == nil && !b.store.Fits(size) {
		return nil, storeFull(size, b.store)
	}

	if err := b.writeChecked(target.Rel, base, text.Data); err != nil {
		return nil, b.withCurrent(err, target.Rel, base) // a conflict of either check
	}

	if expanded {
		b.budget.ChargeExpand(size) // within ExpandLeft, checked above
	}
	got := b.store.Retain(text, true, src)
	w := &Written{
		Path:   target.Rel,
		Bytes:  size,
		SHA256: text.Hex(),
		Result: results.Describe(text, true, src, got, b.view(), b.opts.Limits.PreviewBytes),
		Budget: b.budget.Snapshot(),
		lines:  int64(text.Lines.Count()),
	}
	var old []byte
	if base != nil {
		w.Base = &base.ID
		old = base.Text.Data
	}
	w.Diff = string(linediff.Diff(old, text.Data, diffContext))
	w.Text = w.render(b.opts.Limits.PreviewBytes)
	return w, nil
}

// checkForm is the argument check of write_file: exactly one of text,
// compose and splice (the binder has checked that compose is an array and
// splice an object), and a path unless a splice may give one.
func (req *WriteFileRequest) checkForm() *errcode.Error {
	given := 0
	for _, set := range []bool{req.Text != nil, req.Compose != nil, req.Splice != nil} {
		if set {
			given++
		}
	}
	switch {
	case given != 1:
		return errcode.New(errcode.InvalidArgument,
			"give exactly one of text (the whole new text), compose (parts) or splice (line edits of a result); %d given", given)
	case req.Path == nil && req.Splice == nil:
		return errcode.New(errcode.InvalidArgument, "path is required with text or compose (a splice defaults it to its result's path)")
	}
	return nil
}

// resolveWrite resolves the new text: text as it is (not an expansion), or
// the compose or splice argument through the expander that resolves
// expand_edit's nodes, with pointers under /compose and /splice. It
// returns the text's pieces, the spliced result (for a splice), and
// whether the text is an expansion.
func (b *Briefing) resolveWrite(req *WriteFileRequest) (pieces [][]byte, spliced *results.Result, expanded bool, err *errcode.Error) {
	switch {
	case req.Text != nil:
		return [][]byte{[]byte(*req.Text)}, nil, false, nil
	case req.Compose != nil:
		pieces, _, err = newExpander(b, req.Compose.Sub).compose(req.Compose.Node, "/compose")
		return pieces, nil, true, err
	}
	sp, err := newExpander(b, req.Splice.Sub).splice(req.Splice.Node, "/splice", "/splice")
	return sp.pieces, sp.result, true, err
}

// samePath reports whether a source path names rel: source paths of file
// results are clean already; an edit result's is its arguments' path as
// given, compared after cleaning (SPEC section 9).
func (b *Briefing) samePath(source, rel string) bool {
	clean, err := b.opts.Root.Rel(source)
	return err == nil && clean == rel
}

// writeChecked writes data to the file rel under the process's lock of
// that file (SPEC section 9: writes of one process to one file are
// serialized), after the conflict check, which runs again once the new
// bytes are synced, right before the rename. Text equal to base's is not
// written. Missing parent directories are created only for a new file
// (no base): with a base, the file was read, so its directory existed.
func (b *Briefing) writeChecked(rel string, base *results.Result, data []byte) *errcode.Error {
	dest, err := b.opts.Root.Lock(rel, base == nil)
	if err != nil {
		return err
	}
	defer dest.Unlock()
	if err := b.checkConflict(dest, base); err != nil {
		return err
	}
	if base != nil && bytes.Equal(base.Text.Data, data) {
		return nil
	}
	return dest.Write(data, func() *errcode.Error { return b.checkConflict(dest, base) })
}

// checkConflict checks the file on disk right before the write, and
// again right before its rename: with a base, it must hold exactly the
// base's bytes; without one, it must not exist, since write_file never
// overwrites text the model has not seen. The conflict's details say what
// is there now: its size (null when missing) and digest (null when
// missing, too large to read, or, with a base, of another size, which is
// a conflict without being read); its message is withCurrent's. It reads
// the file in the directory the write holds (dest), by its name there.
func (b *Briefing) checkConflict(dest *workspace.Dest, base *results.Result) *errcode.Error {
	rel := dest.Rel()
	now, err := dest.Target()
	if err != nil {
		return err
	}
	if !now.Exists {
		if base == nil {
			return nil
		}
		return conflict(rel, nil, nil)
	}
	size := now.Size
	if base != nil && size != int64(len(base.Text.Data)) {
		return conflict(rel, &size, nil)
	}
	var sum *string
	if size <= b.resultCap() {
		data, err := dest.Read(b.resultCap())
		if err != nil {
			return err
		}
		if base != nil && bytes.Equal(data, base.Text.Data) {
			return nil
		}
		s := sha256.Sum256(data)
		h := hex.EncodeToString(s[:])
		sum = &h
	}
	return conflict(rel, &size, sum)
}

// conflict is a conflict about the file rel, of size bytes and digest sum
// (nil: null), before withCurrent says what to do.
func conflict(rel string, size *int64, sum *string) *errcode.Error {
	return errcode.New(errcode.Conflict, "file %q does not hold the text of the edit's base", rel).
		With(errcode.Details{File: &errcode.File{Path: rel, SHA256: sum}, Size: size})
}

// withCurrent completes a conflict about the file rel, found by either
// conflict check (before the write is prepared, or right before the
// rename), so that the model can redo its edit without reading the file
// again (SPEC section 9): the file's current text is retained as inspect
// would retain it (reused when unchanged), and the error gives its ID
// (current), its size and digest, the diff from base to it (in the
// write's form, and cut as the write's is after the error's line), and a
// message that says to make the edit on it. When it cannot be retained
// (the file is missing, too large, not UTF-8, the store is full), the
// details are the check's, current and diff null, and the message says
// why. Any other error is returned as it is.
func (b *Briefing) withCurrent(err *errcode.Error, rel string, base *results.Result) *errcode.Error {
	if err.Code != errcode.Conflict {
		return err
	}
	d, ierr := b.inspect(rel)
	var cur *results.Result
	if ierr == nil && d.ID != nil {
		cur, _ = b.store.Get(*d.ID)
	}
	if cur == nil {
		return b.withoutCurrent(err, rel, base, ierr)
	}
	size := int64(len(cur.Text.Data))
	sum := cur.Text.Hex()
	file := &errcode.File{Path: rel, SHA256: &sum, Current: &cur.ID}
	var msg string
	switch {
	case base == nil:
		msg = fmt.Sprintf("file %q exists (%d bytes) and write_file never overwrites text you have not seen; its current text is %s: "+
			"make the edit on %s, with base %s", rel, size, cur.ID, cur.ID, cur.ID)
	case cur == base:
		msg = fmt.Sprintf("file %q changed while it was being written, and holds %s's text again: send the edit again", rel, base.ID)
	default:
		msg = fmt.Sprintf("file %q %s; its current text is %s: make the edit on %s", rel, changed(rel, base, size, &sum), cur.ID, cur.ID)
	}
	c := errcode.New(errcode.Conflict, "%s", msg).With(errcode.Details{File: file, Size: &size})
	if base != nil {
		diff := string(linediff.Diff(base.Text.Data, cur.Text.Data, diffContext))
		file.Diff = &diff
		if diff != "" {
			c.Tail = cutDiff(diff, b.opts.Limits.PreviewBytes)
		}
	}
	return c
}

// withoutCurrent is the conflict about the file rel when its current text
// could not be retained (inspect answered ierr, or kept no result): the
// size and digest that the check found (taken from the file itself when
// the check gave none), current and diff null, and a message that says
// why.
func (b *Briefing) withoutCurrent(err *errcode.Error, rel string, base *results.Result, ierr *errcode.Error) *errcode.Error {
	file, size := errcode.File{Path: rel}, err.Size
	if err.File != nil {
		file = *err.File
	} else if now, terr := b.opts.Root.Target(rel); terr == nil && now.Exists {
		size = &now.Size
	}
	file.Current, file.Diff = nil, nil
	var msg string
	switch {
	case size == nil && base != nil && readFrom(base, rel):
		msg = fmt.Sprintf("file %q no longer exists, but %s was read from it; write it with text or compose and no base to create it again (a splice always has a base)", rel, base.ID)
	case size == nil && base != nil:
		msg = fmt.Sprintf("file %q does not exist, so it does not hold %s's text; write it with text or compose and no base to create it", rel, base.ID)
	case size == nil:
		msg = fmt.Sprintf("file %q changed while it was being written; inspect it", rel)
	default:
		why := "the store is full"
		if ierr != nil {
			why = ierr.Text()
		}
		what := "exists (" + strconv.FormatInt(*size, 10) + " bytes) and write_file never overwrites text you have not seen"
		if base != nil {
			what = changed(rel, base, *size, file.SHA256)
		}
		msg = fmt.Sprintf("file %q %s; its current text cannot be retained (%s)", rel, what, why)
	}
	return errcode.New(errcode.Conflict, "%s", msg).With(errcode.Details{File: &file, Size: size})
}

// changed says how the file rel, now of size bytes and digest sum (nil:
// not known), differs from base: "changed since r6 was read (61340 ->
// 61368 bytes)", with the digests when the sizes are equal, or, for a base
// that was not read from rel, "does not hold r6's text (...)".
func changed(rel string, base *results.Result, size int64, sum *string) string {
	sizes := "(" + strconv.Itoa(len(base.Text.Data)) + " -> " + strconv.FormatInt(size, 10) + " bytes"
	if sum != nil && size == int64(len(base.Text.Data)) {
		sizes += ", sha256=" + base.Text.Hex()[:12] + " -> " + (*sum)[:12]
	}
	sizes += ")"
	if readFrom(base, rel) {
		return "changed since " + base.ID + " was read " + sizes
	}
	return "does not hold " + base.ID + "'s text " + sizes
}

// readFrom reports whether base is a file result of the file rel.
func readFrom(base *results.Result, rel string) bool {
	return base.Source.Kind == results.KindFile && base.Source.Path != nil && *base.Source.Path == rel
}

// render is the text content of SPEC section 9: the line
// "wrote <path>: <bytes> bytes, <lines> lines, sha256=<12 hex> result=<ID>
// base=<ID or none>", then the diff, cut to the preview's bytes by whole
// lines with "… N more diff lines".
func (w *Written) render(previewBytes int64) string {
	var sb strings.Builder
	id, base := "null", "none"
	if w.Result.ID != nil {
		id = *w.Result.ID
	}
	if w.Base != nil {
		base = *w.Base
	}
	sb.WriteString("wrote " + results.TextName(w.Path) + ": " + strconv.FormatInt(w.Bytes, 10) + " bytes, " +
		strconv.FormatInt(w.lines, 10) + " lines, sha256=" + w.SHA256[:12] + " result=" + id + " base=" + base + "\n")
	sb.WriteString(cutDiff(w.Diff, previewBytes))
	return sb.String()
}

// cutDiff returns diff when it is at most limit bytes, else as many of its
// first lines as fit together with the line "… N more diff lines" (N the
// lines not shown), then that line.
func cutDiff(diff string, limit int64) string {
	if int64(len(diff)) <= limit {
		return diff
	}
	total := strings.Count(diff, "\n")
	shown, size := 0, 0
	for rest := diff; rest != ""; shown++ {
		i := strings.IndexByte(rest, '\n') + 1
		if int64(size+i+len(moreDiffLines(total-shown-1))) > limit {
			break
		}
		size += i
		rest = rest[i:]
	}
	return diff[:size] + moreDiffLines(total-shown)
}

func moreDiffLines(n int) string {
	return selectors.Ellipsis + " " + strconv.Itoa(n) + " more diff lines\n"
}

// AppendJSON appends w's structured content as json.Marshal writes it. A
// nil Written is null.
func (w *Written) AppendJSON(dst []byte) []byte {
	if w == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"path":`...)
	dst = limits.AppendJSONString(dst, w.Path, true)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, w.Bytes, 10)
	dst = append(dst, `,"sha256":`...)
	dst = limits.AppendJSONString(dst, w.SHA256, true)
	dst = append(dst, `,"base":`...)
	if w.Base == nil {
		dst = append(dst, "null"...)
	} else {
		dst = limits.AppendJSONString(dst, *w.Base, true)
	}
	dst = append(dst, `,"result":`...)
	dst = w.Result.AppendJSON(dst)
	dst = append(dst, `,"diff":`...)
	dst = limits.AppendJSONString(dst, w.Diff, true)
	dst = append(dst, `,"budget":`...)
	dst = w.Budget.AppendJSON(dst)
	return append(dst, '}')
}
