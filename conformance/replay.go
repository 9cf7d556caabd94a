package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
)

// Replay replays each script (a .txtar file, or a directory whose *.txtar
// files are replayed in name order) against a fresh server started as
// serverCmd followed by --root, a temporary directory holding the script's
// files, and the script's flags. It prints to out each exchange and a
// verdict per script, and ends with the line "N passed, M failed". A script
// that cannot be read or whose server cannot start counts as failed; err
// is for what stops the replay itself (ctx ending, out failing).
func Replay(ctx context.Context, serverCmd []string, scripts []string, out io.Writer) (passed, failed int, err error) {
	return Runner{Server: serverCmd}.Replay(ctx, scripts, out)
}

// A Runner replays scripts.
type Runner struct {
	// Server is the command that serves one session; the runner appends
	// --root DIR and the script's flags.
	Server []string
	// Update rewrites the server section of a script whose responses
	// differ from the server's, with the server's, pretty-printed; the
	// rest of the script is left as it was. Checks that do not compare
	// with the server section (bounded bytes, exit status) still fail.
	Update bool
	// Timeout bounds one session; zero means a minute.
	Timeout time.Duration
}

// Replay is the package-level Replay with r's settings.
func (r Runner) Replay(ctx context.Context, scripts []string, out io.Writer) (passed, failed int, err error) {
	files, err := expandScripts(scripts)
	if err != nil {
		return 0, 0, err
	}
	w := &errWriter{w: out}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return passed, failed, err
		}
		if r.Run(ctx, f, w) {
			passed++
		} else {
			failed++
		}
		if w.err != nil {
			return passed, failed, w.err
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return passed, failed, w.err
}

// expandScripts returns the script files that args name: files as given,
// directories as their *.txtar files in name order.
func expandScripts(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, errors.New("no scripts given")
	}
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			files = append(files, a) // an unreadable script fails on its own
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.txtar"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no *.txtar scripts", a)
		}
		slices.Sort(m)
		files = append(files, m...)
	}
	return files, nil
}

// Run replays one script, printing its exchanges and verdict to out, and
// reports whether it passed.
func (r Runner) Run(ctx context.Context, file string, out io.Writer) bool {
	start := time.Now()
	name := filepath.Base(file)
	s, err := ParseScript(file)
	if err != nil {
		fmt.Fprintf(out, "=== %s\n    %v\n--- FAIL %s\n", name, err, name)
		return false
	}
	fmt.Fprintf(out, "=== %s: %s\n", name, s.Title())
	sess, err := r.session(ctx, s)
	if err != nil {
		fmt.Fprintf(out, "    %v\n--- FAIL %s\n", err, name)
		return false
	}
	mismatches, failures := sess.report(out)
	verdict := "PASS"
	if mismatches > 0 && r.Update {
		if err := os.WriteFile(file, s.withServer(sess.got), 0o644); err != nil {
			fmt.Fprintf(out, "    update: %v\n", err)
			failures++
		} else {
			fmt.Fprintf(out, "    updated the server section of %s\n", file)
			mismatches, verdict = 0, "UPDATED"
		}
	}
	if mismatches+failures > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "--- %s %s (%.2fs)\n", verdict, name, time.Since(start).Seconds())
	return mismatches+failures == 0
}

// session is one replayed session and what came of it.
type session struct {
	s      *Script
	limits Limits
	got    []json.RawMessage // the server's messages, in order
	exit   error             // the server's exit
	stderr []byte
}

// session runs s against a fresh server and collects its answers.
func (r Runner) session(ctx context.Context, s *Script) (*session, error) {
	if len(r.Server) == 0 {
		return nil, errors.New("no server command")
	}
	lim, err := s.Limits()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "loom-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	if err := s.layOut(root); err != nil {
		return nil, fmt.Errorf("laying out the workspace: %w", err)
	}

	timeout := r.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append(append(slices.Clone(r.Server), "--root", root), s.Flags...)
	p, err := stdioclient.Start(ctx, argv, stdioclient.Options{Dir: root})
	if err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}

	// Write every message, then end the input: the server answers every
	// request it has read and exits (SPEC section 2). Reading runs at the
	// same time, so neither side blocks on a full pipe.
	rootJSON := jsonText(root)
	seen := newAnswered()
	go func() {
		for i, m := range s.Client {
			if m.Wait > 0 {
				// A pause between turns: once every request before it is
				// answered.
				if !seen.waitFor(s.Client[:i]) {
					break
				}
				time.Sleep(m.Wait)
			}
			if p.WriteLine(bytes.ReplaceAll(m.Line, []byte(RootVar), rootJSON)) != nil {
				break
			}
		}
		p.CloseInput()
	}()
	sess := &session{s: s, limits: lim}
	for {
		line, err := p.ReadLine()
		if t := bytes.TrimSpace(line); len(t) > 0 {
			t = bytes.ReplaceAll(t, rootJSON, []byte(RootVar))
			t = hideVersion(t)
			sess.got = append(sess.got, json.RawMessage(t))
			seen.add(t)
		}
		if err != nil {
			break
		}
	}
	seen.end()
	sess.exit = p.Wait()
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled) {
		sess.exit = fmt.Errorf("session timed out after %v (%v)", timeout, sess.exit)
	}
	sess.stderr = p.Stderr.Bytes()
	return sess, nil
}

// answered are the ids of the responses read so far, for a "wait D" line
// (Script): the writer waits on it, the reader adds to it.
type answered struct {
	mu    sync.Mutex
	cond  sync.Cond
	ids   map[string]bool // compact JSON ids
	ended bool            // the server's output ended
}

func newAnswered() *answered {
	a := &answered{ids: map[string]bool{}}
	a.cond.L = &a.mu
	return a
}

// add records the id of a response line.
func (a *answered) add(line []byte) {
	var resp struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &resp) != nil || len(resp.ID) == 0 {
		return
	}
	a.mu.Lock()
	a.ids[string(compact(resp.ID))] = true
	a.mu.Unlock()
	a.cond.Broadcast()
}

// end records that no more responses come.
func (a *answered) end() {
	a.mu.Lock()
	a.ended = true
	a.mu.Unlock()
	a.cond.Broadcast()
}

// waitFor waits until every request of sent is answered, at most
// answerWait (a request answered with id null, as one over the message
// limit is, never shows its id); false when the output ended first.
func (a *answered) waitFor(sent []ClientMessage) bool {
	expired := false
	t := time.AfterFunc(answerWait, func() {
		a.mu.Lock()
		expired = true
		a.mu.Unlock()
		a.cond.Broadcast()
	})
	defer t.Stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range sent {
		for m.ID != nil && !a.ids[string(m.ID)] && !expired {
			if a.ended {
				return false
			}
			a.cond.Wait()
		}
	}
	return true
}

// answerWait bounds how long a "wait D" line waits for the answers before
// it.
const answerWait = 10 * time.Second

// report prints the session's exchanges with every difference and failed
// check after the response it concerns. It returns the number of responses
// that differ from the server section (or are missing from one side) and
// the number of other failed checks.
func (sess *session) report(out io.Writer) (mismatches, failures int) {
	s := sess.s
	j := 0 // the next server message to show
	showResponse := func(k int, c *ClientMessage) {
		fmt.Fprintf(out, "  < %s\n", clip(string(sess.got[k]), 2000))
		if k < len(s.Server) {
			if d := diffJSON(s.Server[k], sess.got[k]); len(d) > 0 {
				mismatches++
				fmt.Fprintf(out, "    response %d differs from the script:\n", k+1)
				for _, l := range d {
					fmt.Fprintf(out, "      %s\n", l)
				}
			}
		} else {
			mismatches++
			fmt.Fprintf(out, "    response %d is not in the script\n", k+1)
		}
		if c != nil {
			for _, e := range checkBounds(sess.limits, c, sess.got[k]) {
				failures++
				fmt.Fprintf(out, "    bounded bytes: %s\n", e)
			}
		}
	}
	for i := range s.Client {
		c := &s.Client[i]
		fmt.Fprintf(out, "  > %s\n", clip(string(c.Line), 2000))
		for k := j; k < len(sess.got); k++ {
			if answers(c, sess.got[k], sess.limits.MaxMessageBytes) {
				for ; j < k; j++ { // messages nobody asked for
					showResponse(j, nil)
				}
				showResponse(k, c)
				j = k + 1
				break
			}
		}
	}
	for ; j < len(sess.got); j++ {
		showResponse(j, nil)
	}
	for k := len(sess.got); k < len(s.Server); k++ {
		mismatches++
		fmt.Fprintf(out, "    response %d is missing: want %s\n", k+1, clip(string(compact(s.Server[k])), 400))
	}
	if sess.exit != nil {
		failures++
		fmt.Fprintf(out, "    the server did not exit with status 0 at the end of input: %v\n", sess.exit)
	}
	if mismatches+failures > 0 && len(sess.stderr) > 0 {
		fmt.Fprintf(out, "    server stderr:\n%s\n", indent(clip(string(sess.stderr), 4000), "      "))
	}
	return mismatches, failures
}

// answers reports whether resp is the answer to c: the same id, or id null
// for a line that is not a request or is over the message limit.
func answers(c *ClientMessage, resp []byte, maxMessage int64) bool {
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return false
	}
	id := compact(r.ID)
	if c.ID != nil && bytes.Equal(id, c.ID) {
		return true
	}
	nullID := len(id) == 0 || string(id) == "null"
	return nullID && (c.ID != nil || c.Method == "" || int64(len(c.Line)) > maxMessage)
}

// RootVar stands for the session's workspace directory (--root): in the
// client section it is replaced by the directory, and in what the server
// writes the directory is replaced by it, so that scripts can name absolute
// paths under the root and messages that quote it compare equal.
const RootVar = "$ROOT"

// VersionVar stands for the server's version in what the server writes:
// serverInfo's version ({"name": "loom-results", "version": V}, in the
// answer to initialize and in the _meta of 2026-07-28 answers) is replaced
// by it, so that a script holds for every build, tagged, pseudo-versioned
// or devel. The end-to-end tests check the version itself against
// --version.
const VersionVar = "$VERSION"

var serverInfoVersion = regexp.MustCompile(`("name"\s*:\s*"loom-results"\s*,\s*"version"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// hideVersion replaces serverInfo's version in msg by VersionVar.
func hideVersion(msg []byte) []byte {
	// "$$" is a literal "$" in a template.
	return serverInfoVersion.ReplaceAll(msg, []byte(`${1}"`+strings.ReplaceAll(VersionVar, "$", "$$")+`"`))
}

// jsonText returns s as it appears inside a JSON string literal.
func jsonText(s string) []byte {
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
}

// lookupTools are the tools that count as lookups (SPEC section 5).
var lookupTools = map[string]bool{
	"get_range": true, "get_lines": true, "get_json": true, "find": true, "list_results": true,
}

// checkBounds checks the bounded bytes of SPEC section 6 on the answer to a
// lookup: a successful lookup's text is at most --max-lookup-bytes (and
// "bytes", when given, is its UTF-8 length); "escaped_bytes", when given,
// is the text's escaped measure and at most --max-step-bytes; the budget's
// bytes_used is at most --max-step-bytes. An error answer carries no
// selection, so its text is not a lookup's text.
func checkBounds(l Limits, c *ClientMessage, resp []byte) []string {
	if c.Method != "tools/call" || !lookupTools[c.Tool] {
		return nil
	}
	var r struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Structured *struct {
				Bytes        *int64 `json:"bytes"`
				EscapedBytes *int64 `json:"escaped_bytes"`
				Budget       *struct {
					BytesUsed int64 `json:"bytes_used"`
				} `json:"budget"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &r) != nil || r.Result == nil {
		return nil // a protocol fault, or not JSON: the comparison tells
	}
	var errs []string
	var text strings.Builder
	for _, c := range r.Result.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	n := int64(text.Len())
	if !r.Result.IsError && n > l.MaxLookupBytes {
		errs = append(errs, fmt.Sprintf("%s text of %d bytes is over --max-lookup-bytes %d", c.Tool, n, l.MaxLookupBytes))
	}
	st := r.Result.Structured
	if st == nil {
		return errs
	}
	if st.Bytes != nil && !r.Result.IsError && *st.Bytes != n {
		errs = append(errs, fmt.Sprintf("%s bytes is %d, its text has %d", c.Tool, *st.Bytes, n))
	}
	if st.EscapedBytes != nil {
		if *st.EscapedBytes > l.MaxStepBytes {
			errs = append(errs, fmt.Sprintf("%s escaped_bytes %d is over --max-step-bytes %d", c.Tool, *st.EscapedBytes, l.MaxStepBytes))
		}
		if e := EscapedLen(text.String()); !r.Result.IsError && *st.EscapedBytes != e {
			errs = append(errs, fmt.Sprintf("%s escaped_bytes is %d, its text measures %d", c.Tool, *st.EscapedBytes, e))
		}
	}
	if st.Budget != nil && st.Budget.BytesUsed > l.MaxStepBytes {
		errs = append(errs, fmt.Sprintf("%s budget bytes_used %d is over --max-step-bytes %d", c.Tool, st.Budget.BytesUsed, l.MaxStepBytes))
	}
	return errs
}

// EscapedLen is SPEC section 6's measure of a returned text: its length as
// a JSON string literal, quotes included, escaping only '"', '\\' and bytes
// 0x00-0x1F (\b \f \n \r \t as two bytes, the others as six).
func EscapedLen(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	w.err = err
	return n, err
}
