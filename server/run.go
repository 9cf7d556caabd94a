package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// runTool is run (SPEC section 10), listed with --run: the model runs one
// of the commands a person named, by name, and gets the output's
// descriptor and tail; the output is retained for find and the lookups.
func runTool(cfg ToolConfig) transport.Tool {
	names := make([]string, len(cfg.Commands))
	var list strings.Builder
	for i, c := range cfg.Commands {
		names[i] = c.Name
		fmt.Fprintf(&list, "\n- %s: %s", c.Name, c.Line)
	}
	description := fmt.Sprintf("Run one of the commands below, named by the person who started the server, in the project root "+
		"with their rights, and keep its output (stdout and stderr together) as a result. The answer shows the result's "+
		"descriptor and the output's last lines (at most %d bytes), where a run says how it ended; find (FAIL, error) and "+
		"get_lines read the rest. A command that runs past %s is stopped. You cannot change a command or add arguments.",
		cfg.PreviewBytes, cfg.RunTimeout)
	if re := (briefing.RunConfig{Failure: cfg.Failure, NoFailure: cfg.NoFailure}).FirstFailure(); re != nil {
		description += fmt.Sprintf(" When a run fails, the answer first shows where: [first failure: line N of L], then line N "+
			"(the first line matching %s) and the lines after it, numbered with anchors as get_lines numbers them, "+
			"within %d bytes, above a shorter tail.", re, cfg.PreviewBytes/2)
	}
	commands := "\nThe commands:" + list.String()
	return define[briefing.RunRequest](cfg, definition{
		name:        "run",
		client:      description + " Not a lookup: it spends no budget." + commands,
		model:       description + commands,
		annotations: writes("Run a named command", true),
		input: map[string]keywords{
			"name": {enum: names, description: "The command to run, by its name."},
		},
		output: runOutput,
	}, renderRun)
}

// runOutput is run's answer: the output's descriptor, whose preview is the
// output's tail, and the first failure that the text shows, or null (SPEC
// section 10).
var runOutput = ofForm[runAnswer](objectForm{description: "The output of the command, retained as a result (SPEC section 10).", requiredFirst: true},
	merged(descriptorMembers, map[string]string{
		"first_failure": `{"anyOf":[{"type":"null"},` + ofType[briefing.FirstFailure](map[string]string{
			"line":   `{"type":"integer","minimum":1}`,
			"anchor": anchorSchema("The line's anchor (SPEC 4.4)."),
			"text": `{"type":"string","description":"The line without its ending, cut to its first ` + strconv.Itoa(selectors.MaxFindLine) +
				` bytes on a character boundary."}`,
		}) + `],"description":"A failed run's first line that --run-failure matches, when it lies above the tail; null otherwise."}`,
	}))

// progressNote is a progress notification of a running command: the
// bytes of output so far, and its last complete line as the message.
func progressNote(token mcp.ProgressToken, p briefing.Progress) mcp.JSONRPCNotification {
	params := map[string]any{"progressToken": token, "progress": p.Read}
	if p.HasLine && p.Line != "" {
		params["message"] = p.Line
	}
	return mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationProgress),
			Params: mcp.NotificationParams{AdditionalFields: params},
		},
	}
}

// renderRun renders run's answer as text (SPEC section 10): the
// descriptor's header line, then, when a failed run's first failure lies
// above the tail, "[first failure: line N of L]" and its rows (lines N,
// N+1, ... numbered with their anchors), then the output's tail, preceded
// by "[tail: last N of M bytes]" when it is not the whole output:
//
//	r2 output "test" exit=1: 48213 bytes, 1204 lines, complete, sha256=0a1b2c3d4e5f
//	[first failure: line 1180 of 1204]
//	1180#k4: --- FAIL: TestX (0.00s)
//	1181#qz:     x_test.go:12: got 3, want 4
//	[tail: last 402 of 48213 bytes]
//	FAIL
//
// The structured content is the descriptor, whose preview is the tail of
// --preview-bytes, with "first_failure".
func renderRun(r *briefing.Ran) (string, any) {
	var b strings.Builder
	header := r.Descriptor
	header.Preview, header.PreviewComplete = nil, nil
	renderDescriptor(&b, header)
	if r.FirstFailure != nil {
		b.WriteString("[first failure: line " + strconv.Itoa(r.FirstFailure.Line) + " of " + strconv.FormatInt(r.Descriptor.Lines, 10) + "]\n")
		b.WriteString(r.FailureRows)
	}
	if r.Tail != "" {
		if !r.TailComplete {
			b.WriteString("[tail: last " + strconv.Itoa(len(r.Tail)) + " of " + strconv.FormatInt(r.Descriptor.Bytes, 10) + " bytes]\n")
		}
		b.WriteString(r.Tail)
		if !strings.HasSuffix(r.Tail, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), runAnswer{&r.Descriptor, r.FirstFailure}
}

// runAnswer is run's structured content: the output's descriptor and
// "first_failure", null when the text shows none.
type runAnswer struct {
	*results.Descriptor
	FirstFailure *briefing.FirstFailure `json:"first_failure"`
}

// AppendJSON appends the answer as json.Marshal writes it: the
// descriptor's members, then "first_failure".
func (a runAnswer) AppendJSON(dst []byte) []byte {
	dst = a.Descriptor.AppendJSON(dst)
	dst = append(dst[:len(dst)-1], `,"first_failure":`...)
	if f := a.FirstFailure; f == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"line":`...)
		dst = strconv.AppendInt(dst, int64(f.Line), 10)
		dst = append(dst, `,"anchor":`...)
		dst = transport.AppendString(dst, f.Anchor)
		dst = append(dst, `,"text":`...)
		dst = transport.AppendString(dst, f.Text)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// commandNames lists the commands' names for the instructions: "test, lint".
func commandNames(cs []workspace.Command) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
