package server

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/server/transport"
)

// inspectAnswer is inspect's structured content.
type inspectAnswer struct {
	Results []inspectEntry `json:"results"`
}

// inspectEntry is one entry of inspect's "results": a descriptor, or the
// path's error; one of the two is set.
type inspectEntry struct {
	*results.Descriptor
	*pathError
}

// pathError is the entry of a path that inspect could not read: the path
// and its error.
type pathError struct {
	Path  string          `json:"path"`
	Error json.RawMessage `json:"error"`
}

// AppendJSON appends the answer as json.Marshal writes it: each entry a
// descriptor, or {"path", "error"}, the error errorJSON's compact output.
func (a inspectAnswer) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"results":`...)
	if a.Results == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, e := range a.Results {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.Descriptor != nil {
				dst = e.Descriptor.AppendJSON(dst)
				continue
			}
			if e.pathError == nil {
				dst = append(dst, "{}"...)
				continue
			}
			dst = append(dst, `{"path":`...)
			dst = transport.AppendString(dst, e.Path)
			dst = append(dst, `,"error":`...)
			if e.Error == nil {
				dst = append(dst, "null"...)
			} else {
				dst = append(dst, e.Error...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func inspectTool(cfg ToolConfig) transport.Tool {
	return define[briefing.InspectRequest](cfg, definition{
		name: "inspect",
		client: fmt.Sprintf("Read 1 to %d files under the root once and keep their exact bytes for this session. "+
			"Shows a descriptor per path (ID, sha256, bytes, lines, a preview of at most %d bytes), not the contents; "+
			"a directory (\".\" is the root) is retained as the list of its files, one path a line, .gitignore honoured; "+
			"use find and get_lines/get_range/get_json to read what you need. Files over %d bytes are refused (too_large). "+
			"Not a lookup: it spends no budget.", briefing.MaxPaths, cfg.PreviewBytes, cfg.MaxResultBytes),
		model: fmt.Sprintf("Keep the exact bytes of 1 to %d files for this session and show a descriptor of each (ID, sha256, "+
			"bytes, lines, a preview of at most %d bytes), not its contents; a directory gives the list of its files "+
			"(.gitignore honoured) as a result. Not a lookup.", briefing.MaxPaths, cfg.PreviewBytes),
		annotations: hints("Inspect files", true),
		input: map[string]keywords{
			"paths": {description: "Paths relative to the root (or absolute under it)."},
		},
		output: inspectOutput,
	}, renderInspect)
}

// renderInspect renders inspect's entries: a descriptor, or the path's
// error line, each.
func renderInspect(entries []briefing.Entry) (string, any) {
	var text strings.Builder
	out := inspectAnswer{Results: make([]inspectEntry, len(entries))}
	for i, e := range entries {
		if e.Err != nil {
			out.Results[i] = inspectEntry{pathError: &pathError{entries[i].Path, errorJSON(e.Err)}}
			fmt.Fprintf(&text, "%s: %s\n", results.TextName(cutPath(e.Path)), e.Err.Text())
			continue
		}
		out.Results[i] = inspectEntry{Descriptor: e.Descriptor}
		renderDescriptor(&text, *e.Descriptor)
	}
	return text.String(), out
}

// cutPath is a path as an error entry's text shows it: whole, or for one
// longer than the system takes, its first 200 bytes (on a character
// boundary) and its size. The structured entry has it whole.
func cutPath(p string) string {
	if len(p) < 4096 {
		return p
	}
	n := 200
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return p[:n] + "... (" + strconv.Itoa(len(p)) + " bytes)"
}
