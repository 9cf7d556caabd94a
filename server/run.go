package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

type runArgs struct {
	Name string `arg:"name"`
}

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
	return transport.Tool{
		Tool: mcp.Tool{
			Name:        "run",
			Description: cfg.describe(description+" Not a lookup: it spends no budget."+commands, description+commands),
			RawInputSchema: schema([]prop{
				{"name", `{"type":"string","enum":` + string(marshal(names)) + `,"description":"The command to run, by its name."}`},
			}, "name"),
			Annotations: mcp.ToolAnnotation{
				Title:           "Run a named command",
				ReadOnlyHint:    mcp.ToBoolPtr(false),
				DestructiveHint: mcp.ToBoolPtr(true),
				IdempotentHint:  mcp.ToBoolPtr(false),
				OpenWorldHint:   mcp.ToBoolPtr(true),
			},
			RawOutputSchema: outputSchema(runOutput),
		},
		Handler: func(ctx context.Context, call transport.Call) (*mcp.CallToolResult, error) {
			b := briefingFrom(ctx)
			if b == nil {
				return nil, errNoBriefing
			}
			var res *mcp.CallToolResult
			b.Do(func() { res = runCall(ctx, b, call.Arguments, call.ProgressToken) })
			return res, nil
		},
	}
}

// runOutput is run's answer: the output's descriptor, whose preview is the
// output's tail.
const runOutput = `{"$ref":"#/$defs/descriptor"}`

// runCall runs one call of run in its turn of the briefing: the command's
// progress is sent as notifications/progress when the request carries a
// progressToken.
func runCall(ctx context.Context, b *briefing.Briefing, raw jsontape.Sub, token mcp.ProgressToken) *mcp.CallToolResult {
	var a runArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failure(err, nil)
	}
	var progress func(briefing.Progress)
	if token != nil {
		progress = func(p briefing.Progress) { transport.Notify(ctx, progressNote(token, p)) }
	}
	ran, err := b.Run(ctx, a.Name, progress)
	if err != nil {
		return failure(err, nil)
	}
	var text strings.Builder
	renderRun(&text, ran)
	return success(text.String(), &ran.Descriptor)
}

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
func renderRun(b *strings.Builder, r *briefing.Ran) {
	header := r.Descriptor
	header.Preview, header.PreviewComplete = nil, nil
	renderDescriptor(b, header)
	if r.Tail == "" {
		return
	}
	if !r.TailComplete {
		b.WriteString("[tail: last " + strconv.Itoa(len(r.Tail)) + " of " + strconv.FormatInt(r.Descriptor.Bytes, 10) + " bytes]\n")
	}
	b.WriteString(r.Tail)
	if !strings.HasSuffix(r.Tail, "\n") {
		b.WriteByte('\n')
	}
}

// commandNames lists the commands' names for the instructions: "test, lint".
func commandNames(cs []workspace.Command) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
