package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
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
// output's tail.
const runOutput = `{"$ref":"#/$defs/descriptor"}`

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
// descriptor's header line, then the output's tail, preceded by
// "[tail: last N of M bytes]" when it is not the whole output:
//
//	r2 output "test" exit=1: 48213 bytes, 1204 lines, complete, sha256=0a1b2c3d4e5f
//	[tail: last 1019 of 48213 bytes]
//	--- FAIL: TestX (0.00s)
//	FAIL
//
// The structured content is the descriptor.
func renderRun(r *briefing.Ran) (string, any) {
	var b strings.Builder
	header := r.Descriptor
	header.Preview, header.PreviewComplete = nil, nil
	renderDescriptor(&b, header)
	if r.Tail != "" {
		if !r.TailComplete {
			b.WriteString("[tail: last " + strconv.Itoa(len(r.Tail)) + " of " + strconv.FormatInt(r.Descriptor.Bytes, 10) + " bytes]\n")
		}
		b.WriteString(r.Tail)
		if !strings.HasSuffix(r.Tail, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), &r.Descriptor
}

// commandNames lists the commands' names for the instructions: "test, lint".
func commandNames(cs []workspace.Command) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
