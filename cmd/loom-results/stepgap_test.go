package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStepGapFlag: --step-gap reaches the server: by default (500ms, with
// --steps model) a pause longer than that begins a step and calls back to
// back share one; --step-gap 0 never begins one; a gap given is the gap.
// --steps client has no gap (its flag errors are TestBadCommandLine's).
func TestStepGapFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		pause time.Duration
		want  []int64 // the steps of three lookups: two back to back, one after the pause
	}{
		{"default, a pause past 500ms", []string{"--steps", "model"}, 700 * time.Millisecond, []int64{1, 1, 2}},
		{"0: never", []string{"--steps", "model", "--step-gap", "0"}, 700 * time.Millisecond, []int64{1, 1, 1}},
		{"200ms", []string{"--steps", "model", "--step-gap", "200ms"}, 400 * time.Millisecond, []int64{1, 1, 2}},
		{"client steps", []string{"--steps", "client"}, 700 * time.Millisecond, []int64{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			args := append([]string{"--root", t.TempDir(), "--answers", "full"}, tt.args...)
			done := make(chan error, 1)
			go func() {
				done <- run(context.Background(), args, inR, outW, io.Discard)
				outW.Close()
			}()
			out := bufio.NewReader(outR)
			step := func(id string) int64 {
				t.Helper()
				_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"list_results","arguments":{}}}`+"\n")
				require.NoError(t, err)
				line, err := out.ReadString('\n')
				require.NoError(t, err)
				var resp struct {
					Result struct {
						StructuredContent struct {
							Budget struct{ Step int64 }
						}
					}
				}
				require.NoError(t, json.NewDecoder(strings.NewReader(line)).Decode(&resp), line)
				return resp.Result.StructuredContent.Budget.Step
			}
			var got []int64
			got = append(got, step("1"), step("2"))
			time.Sleep(tt.pause)
			got = append(got, step("3"))
			inW.Close()
			require.NoError(t, <-done)
			assert.Equal(t, tt.want, got)
		})
	}
}
