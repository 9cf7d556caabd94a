package conformance

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	update = flag.Bool("update", false, "rewrite the server section of every script that differs with what the server answers")
	strict = flag.Bool("strict", false, "replay the scripts of knownDiscrepancies too, and fail on them")
)

// knownDiscrepancies are scripts whose expectations follow SPEC.md where the
// server does not yet; TestScripts skips them, saying why, unless -strict
// is given (-update skips them too). `loom-check replay` always fails
// them. Remove an entry when the server is fixed; never -update a script to
// make it pass.
var knownDiscrepancies = map[string]string{}

// scripts returns the scripts under testdata.
func scripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// TestScripts replays every script against the real binary, through the
// code that `loom-check replay` runs (cmd/loom-check tests the command).
func TestScripts(t *testing.T) {
	r := Runner{Server: []string{binary}, Update: *update}
	for _, file := range scripts(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if why, ok := knownDiscrepancies[name]; ok && !*strict {
				t.Skip("known server discrepancy: " + why)
			}
			var out bytes.Buffer
			ok := r.Run(t.Context(), file, &out)
			if !ok {
				t.Error("\n" + out.String())
			}
		})
	}
}

// sectionRef is how a script's header names what it checks.
var sectionRef = regexp.MustCompile(`SPEC(\.md)?\s+sections?\s+\d`)

// TestScriptHeaders checks that every script says which SPEC section it
// checks and has a server section to compare with, and that every known
// discrepancy names a script.
func TestScriptHeaders(t *testing.T) {
	for _, file := range scripts(t) {
		s, err := ParseScript(file)
		require.NoError(t, err)
		assert.Regexp(t, sectionRef, s.Comment, "%s: the header names no SPEC section", file)
		assert.NotEmpty(t, s.Server, "%s: no server section", file)
	}
	for name := range knownDiscrepancies {
		assert.FileExists(t, filepath.Join("testdata", name+".txtar"), "a stale entry of knownDiscrepancies")
	}
}

// failing is a script whose second expectation is wrong on purpose: the
// line range 1-1 of "a\nb\n" is "a\n".
const failing = `A deliberately failing script (SPEC section 4.2).

-- files/a.txt --
a
b
-- client --
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt"]}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1,"last":1}}}
-- server --
`

// passing is a script that any SPEC-conforming server passes.
const passing = `A passing script: begin_step numbers steps from 2 (SPEC section 5).

-- client --
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}
"{not json"
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}
-- server --
{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"step 2"}],"structuredContent":{"step":2,"limits":{"max_lookups":8,"max_lookup_bytes":8192,"max_step_bytes":65536,"max_expand_bytes":16777216,"max_result_bytes":16777216,"max_store_bytes":67108864,"max_results":1024,"preview_bytes":1024,"page_size":16}}}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the message is not valid JSON"}}
{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"step 3"}],"structuredContent":{"step":3,"limits":{"max_lookups":8,"max_lookup_bytes":8192,"max_step_bytes":65536,"max_expand_bytes":16777216,"max_result_bytes":16777216,"max_store_bytes":67108864,"max_results":1024,"preview_bytes":1024,"page_size":16}}}}
`

// writeScripts writes a passing and a failing script, whose failing one
// holds the server's answers except a wrong selection, into a temp dir.
func writeScripts(t *testing.T) (dir, pass, fail string) {
	t.Helper()
	dir = t.TempDir()
	pass = filepath.Join(dir, "a_pass.txtar")
	fail = filepath.Join(dir, "b_fail.txtar")
	require.NoError(t, os.WriteFile(pass, []byte(passing), 0o644))
	require.NoError(t, os.WriteFile(fail, []byte(failing), 0o644))

	// Fill the failing script's server section with the server's own
	// answers, then break the selection: only that one difference remains.
	var out bytes.Buffer
	require.True(t, Runner{Server: []string{binary}, Update: true}.Run(t.Context(), fail, &out), out.String())
	data, err := os.ReadFile(fail)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), failing), "-update changed more than the server section:\n%s", data)
	broken := strings.ReplaceAll(string(data), `"text": "a\n"`, `"text": "b\n"`)
	require.NotEqual(t, string(data), broken, "the selection's text is not in the updated script:\n%s", data)
	require.NoError(t, os.WriteFile(fail, []byte(broken), 0o644))
	return dir, pass, fail
}

// TestReplayOutput checks Replay's report: each exchange, a verdict per
// script, the difference of the failing one, and the last line.
func TestReplayOutput(t *testing.T) {
	dir, _, _ := writeScripts(t)
	var out bytes.Buffer
	passed, failed, err := Replay(t.Context(), []string{binary}, []string{dir}, &out)
	require.NoError(t, err)
	got := out.String()
	assert.Equal(t, 1, passed, got)
	assert.Equal(t, 1, failed, got)
	assert.True(t, strings.HasSuffix(got, "\n1 passed, 1 failed\n"), got)
	assert.Regexp(t, `(?m)^=== a_pass\.txtar: A passing script`, got)
	assert.Regexp(t, `(?m)^--- PASS a_pass\.txtar \(\d+\.\d\ds\)$`, got)
	assert.Regexp(t, `(?m)^--- FAIL b_fail\.txtar \(\d+\.\d\ds\)$`, got)
	assert.Contains(t, got, "\n  > {not json\n")
	assert.Regexp(t, `(?m)^  < \{"jsonrpc":"2.0","id":null,"error":\{"code":-32700`, got)
	// The difference names the response and the member, want and got.
	assert.Contains(t, got, "    response 4 differs from the script:\n")
	assert.Contains(t, got, `/result/content/0/text: want "b\n", got "a\n"`)
	assert.Contains(t, got, `/result/structuredContent/text: want "b\n", got "a\n"`)

	// A missing script fails on its own; the others still run.
	out.Reset()
	passed, failed, err = Replay(t.Context(), []string{binary}, []string{filepath.Join(dir, "a_pass.txtar"), filepath.Join(dir, "nope.txtar")}, &out)
	require.NoError(t, err)
	assert.Equal(t, [2]int{1, 1}, [2]int{passed, failed}, out.String())
	assert.True(t, strings.HasSuffix(out.String(), "\n1 passed, 1 failed\n"), out.String())
}
