package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndOfInputUnterminatedLine checks SPEC section 2's "On end of input
// the server answers every request it has read, then exits with status 0"
// where a script cannot: the input's last line has no final "\n". That
// line is still a message: answered when it is a request, refused with
// -32600 and id null when it is over --max-message-bytes.
func TestEndOfInputUnterminatedLine(t *testing.T) {
	t.Parallel()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"eof","version":"1"}}}`
	step := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`
	}
	tests := []struct {
		name  string
		input string
		flags []string
		want  []string // per answer: its id, then "step N" or the JSON-RPC error code
	}{
		{"request", initialize + "\n" + step("2") + "\n" + step("3"), nil,
			[]string{"1", "2 step 2", "3 step 3"}},
		{"request ending in \\r\\n", initialize + "\r\n" + step("2") + "\r\n", nil,
			[]string{"1", "2 step 2"}},
		{"over the limit", initialize + "\n" + step("2") + "\n" + step("3") + strings.Repeat(" ", 200), []string{"--max-message-bytes", "200"},
			[]string{"1", "2 step 2", "null -32600"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, append([]string{"--root", t.TempDir()}, tt.flags...)...)
			cmd.Stdin = strings.NewReader(tt.input)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "the server exits with status 0 at the end of input; stderr:\n%s", stderr.String())

			var got []string
			for line := range strings.Lines(stdout.String()) {
				var msg struct {
					ID     json.RawMessage `json:"id"`
					Result *struct {
						Content []struct{ Text string } `json:"content"`
					} `json:"result"`
					Error *struct{ Code int } `json:"error"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &msg), line)
				desc := string(msg.ID)
				switch {
				case msg.Error != nil:
					desc += " " + strconv.Itoa(msg.Error.Code)
				case msg.Result != nil && len(msg.Result.Content) == 1:
					desc += " " + msg.Result.Content[0].Text
				}
				got = append(got, desc)
			}
			assert.Equal(t, tt.want, got, "stdout:\n%s", stdout.String())
		})
	}
}
