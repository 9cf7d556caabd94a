package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loom-results/loom-results/workspace"
)

// A Script is one scripted session: a txtar archive in the format of the
// official Go SDK's mcp/testdata/conformance/server/*.txtar. Its comment
// says what the session checks and which section of SPEC.md; its files are:
//
//   - "client": the messages the client sends, a sequence of JSON values
//     (one a line, or pretty-printed). An object or array is sent as one
//     line of compact JSON, its bytes otherwise as written (escapes and raw
//     bytes kept); a string is sent as one raw line holding its text, for
//     what is not JSON at all ("{not json"). A line "wait D" between two
//     values (D a Go duration, such as 600ms) makes the client wait, before
//     it sends the next message, until every request sent so far is
//     answered, and then D more: a pause between turns, as --step-gap
//     counts one (SPEC section 6).
//   - "server": the responses expected, a sequence of JSON values compared
//     structurally with what the server writes, in order.
//   - "files/<path>": a file of the workspace (--root) as the session
//     starts, its bytes exactly as the archive holds them (which always end
//     in a newline unless empty).
//   - "quoted/<path>": a file of the workspace given as one Go string
//     literal, for bytes an archive cannot hold plainly: no final newline,
//     "\r", invalid UTF-8.
//   - "symlinks": lines "<path> -> <target>", symbolic links of the
//     workspace.
//   - "flags": the server's flags beyond --root, split into words as a
//     POSIX shell splits them, quotes and backslashes removed (lines
//     starting with # are comments).
//
// In the client section $ROOT stands for the workspace directory; in the
// server's answers the directory is written as $ROOT (see RootVar), and
// serverInfo's version as $VERSION (see VersionVar).
type Script struct {
	Path    string
	Comment string
	Client  []ClientMessage
	Server  []json.RawMessage
	Flags   []string
	Files   map[string][]byte // workspace path -> contents
	Links   map[string]string // workspace path -> link target

	arch *archive
}

// A ClientMessage is one line the client sends.
type ClientMessage struct {
	Line []byte // what is written, without the final newline
	ID   []byte // the request's id as compact JSON; nil for a notification or a line that is not a request
	// Method and Tool are the request's method and, for tools/call, the
	// tool's name.
	Method, Tool string
	Raw          bool // the line came from a string of the client section
	// Wait is the pause before the line is sent, after every request
	// before it is answered (a "wait D" line before it); 0 for none.
	Wait time.Duration
}

// ParseScript reads and parses the script at file.
func ParseScript(file string) (*Script, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s, err := parseScript(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s.Path = file
	return s, nil
}

func parseScript(data []byte) (*Script, error) {
	a := parseArchive(data)
	s := &Script{
		Comment: string(a.Comment),
		Files:   map[string][]byte{},
		Links:   map[string]string{},
		arch:    a,
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("duplicate section %q", f.Name)
		}
		seen[f.Name] = true
		var err error
		switch name := f.Name; {
		case name == "client":
			s.Client, err = parseClient(f.Data)
		case name == "server":
			s.Server, err = parseValues(f.Data)
		case name == "flags":
			s.Flags, err = parseFlags(f.Data)
		case name == "symlinks":
			err = s.parseLinks(f.Data)
		case strings.HasPrefix(name, "files/"):
			err = s.addFile(strings.TrimPrefix(name, "files/"), f.Data)
		case strings.HasPrefix(name, "quoted/"):
			var body string
			body, err = strconv.Unquote(strings.TrimSpace(string(f.Data)))
			if err != nil {
				err = fmt.Errorf("section %q: want one Go string literal: %v", name, err)
			} else {
				err = s.addFile(strings.TrimPrefix(name, "quoted/"), []byte(body))
			}
		default:
			err = fmt.Errorf("unknown section %q", name)
		}
		if err != nil {
			return nil, err
		}
	}
	if !seen["client"] {
		return nil, errors.New("no client section")
	}
	return s, nil
}

// parseFlags reads a flags section: each line not starting with # split
// into words as a POSIX shell splits them (workspace.SplitWords), so that
// a value may hold blanks in quotes (--run test='go test ./...').
func parseFlags(data []byte) ([]string, error) {
	var flags []string
	for line := range strings.Lines(string(data)) {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			words, err := workspace.SplitWords(l)
			if err != nil {
				return nil, fmt.Errorf("section \"flags\": %v", err)
			}
			flags = append(flags, words...)
		}
	}
	return flags, nil
}

// addFile adds a workspace file, refusing paths that would leave the
// workspace.
func (s *Script) addFile(name string, data []byte) error {
	if err := checkWorkspacePath(name); err != nil {
		return err
	}
	if _, dup := s.Files[name]; dup {
		return fmt.Errorf("file %q given twice", name)
	}
	s.Files[name] = data
	return nil
}

func (s *Script) parseLinks(data []byte) error {
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, target, ok := strings.Cut(line, " -> ")
		if !ok {
			return fmt.Errorf("symlinks: want %q, got %q", "<path> -> <target>", line)
		}
		name = strings.TrimSpace(name)
		if err := checkWorkspacePath(name); err != nil {
			return err
		}
		s.Links[name] = strings.TrimSpace(target)
	}
	return nil
}

func checkWorkspacePath(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") {
		return fmt.Errorf("workspace path %q is not a clean relative path", name)
	}
	return nil
}

// parseValues splits data into its sequence of JSON values.
func parseValues(data []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []json.RawMessage
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("value %d: %v", len(out)+1, err)
		}
		out = append(out, v)
	}
}

// parseClient parses the client section: its values, and the "wait D"
// lines between them.
func parseClient(data []byte) ([]ClientMessage, error) {
	var out []ClientMessage
	var chunk []byte
	var wait time.Duration
	flush := func() error {
		msgs, err := parseClientValues(chunk)
		if err != nil {
			return err
		}
		if wait > 0 {
			if len(msgs) == 0 {
				return fmt.Errorf("client: \"wait %s\" is not followed by a message", wait)
			}
			msgs[0].Wait = wait
		}
		out = append(out, msgs...)
		chunk, wait = nil, 0
		return nil
	}
	for line := range strings.Lines(string(data)) {
		d, ok := strings.CutPrefix(strings.TrimSpace(line), "wait ")
		if !ok {
			chunk = append(chunk, line...)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		var err error
		if wait, err = time.ParseDuration(strings.TrimSpace(d)); err != nil || wait <= 0 {
			return nil, fmt.Errorf("client: %q: want \"wait D\", D a positive duration such as 600ms", strings.TrimSpace(line))
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// parseClientValues parses a run of the client section's values.
func parseClientValues(data []byte) ([]ClientMessage, error) {
	vals, err := parseValues(data)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	out := make([]ClientMessage, 0, len(vals))
	for _, v := range vals {
		var m ClientMessage
		if v[0] == '"' {
			var line string
			if err := json.Unmarshal(v, &line); err != nil {
				return nil, fmt.Errorf("client: %v", err)
			}
			if strings.ContainsAny(line, "\n") {
				return nil, fmt.Errorf("client: raw line %s holds a newline", v)
			}
			m.Line, m.Raw = []byte(line), true
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, v); err != nil {
				return nil, fmt.Errorf("client: %v", err)
			}
			m.Line = buf.Bytes()
		}
		m.describe()
		out = append(out, m)
	}
	return out, nil
}

// describe fills in the request facts of m from its line, when it is a
// JSON-RPC request.
func (m *ClientMessage) describe() {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(m.Line, &req) != nil {
		return
	}
	m.Method = req.Method
	if req.Method == "tools/call" {
		m.Tool = req.Params.Name
	}
	if len(req.ID) > 0 && req.Method != "" {
		m.ID = compact(req.ID)
	}
}

func compact(v []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}

// Title is the first line of the script's comment.
func (s *Script) Title() string {
	title, _, _ := strings.Cut(strings.TrimSpace(s.Comment), "\n")
	return title
}

// Limits are the limit flags a script's session runs with, the others at
// their SPEC section 2 defaults.
type Limits struct {
	MaxLookupBytes  int64
	MaxStepBytes    int64
	MaxMessageBytes int64
}

// Limits returns the limits of the script's session, read from its flags.
func (s *Script) Limits() (Limits, error) {
	l := Limits{MaxLookupBytes: 8192, MaxStepBytes: 65536, MaxMessageBytes: 32 << 20}
	for i := 0; i < len(s.Flags); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(s.Flags[i], "-"), "=")
		var dst *int64
		switch name {
		case "max-lookup-bytes":
			dst = &l.MaxLookupBytes
		case "max-step-bytes":
			dst = &l.MaxStepBytes
		case "max-message-bytes":
			dst = &l.MaxMessageBytes
		default:
			continue
		}
		if !hasVal {
			if i+1 == len(s.Flags) {
				return l, fmt.Errorf("flag %s has no value", s.Flags[i])
			}
			i++
			val = s.Flags[i]
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			// The server refuses it too; the session says how.
			continue
		}
		*dst = n
	}
	return l, nil
}

// TextAnswers reports whether the script's session answers in text alone
// (SPEC section 2, --answers: its value, or text with --steps model).
func (s *Script) TextAnswers() bool {
	vals := map[string]string{}
	for i := 0; i < len(s.Flags); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(s.Flags[i], "-"), "=")
		if name != "answers" && name != "steps" {
			continue
		}
		if !hasVal && i+1 < len(s.Flags) {
			i++
			val = s.Flags[i]
		}
		vals[name] = val
	}
	if a, ok := vals["answers"]; ok {
		return a == "text"
	}
	return vals["steps"] == "model"
}

// layOut writes the script's workspace under dir.
func (s *Script) layOut(dir string) error {
	for name, data := range s.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	for name, target := range s.Links {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(target, p); err != nil {
			return err
		}
	}
	return nil
}

// withServer returns the script's archive with its server section holding
// got, pretty-printed (see pretty), and every other section as it was.
func (s *Script) withServer(got []json.RawMessage) []byte {
	var buf bytes.Buffer
	for _, v := range got {
		buf.Write(pretty(v))
		buf.WriteByte('\n')
	}
	a := &archive{Comment: s.arch.Comment}
	replaced := false
	for _, f := range s.arch.Files {
		if f.Name == "server" {
			f.Data, replaced = buf.Bytes(), true
		}
		a.Files = append(a.Files, f)
	}
	if !replaced {
		a.Files = append(a.Files, archiveFile{Name: "server", Data: buf.Bytes()})
	}
	return a.format()
}
