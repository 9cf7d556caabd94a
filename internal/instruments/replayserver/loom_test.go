package replayserver

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

// pipeSession is a process driven line by line over stdio.
type pipeSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPipe(t *testing.T, rec *Recorder, argv ...string) *pipeSession {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	s := &pipeSession{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if rec != nil {
		s.in, s.out = rec.Writer(in), bufio.NewReader(rec.Reader(out))
	}
	t.Cleanup(func() { s.in.Close(); cmd.Wait() })
	return s
}

// send writes each line and reads one answer for each line that has an
// id.
func (s *pipeSession) send(t *testing.T, lines []string) []string {
	t.Helper()
	var answers []string
	for _, l := range lines {
		_, err := io.WriteString(s.in, l+"\n")
		require.NoError(t, err)
		if _, _, ok := idSpan([]byte(l)); !ok {
			continue
		}
		a, err := s.out.ReadString('\n')
		require.NoError(t, err)
		answers = append(answers, strings.TrimSuffix(a, "\n"))
	}
	return answers
}

// TestReplayLoom records a real loom-results session and replays it
// through the loom-replay command: every answer is loom's, byte for byte,
// and under other ids only the ids differ.
func TestReplayLoom(t *testing.T) {
	if testing.Short() {
		t.Skip("builds loom-results and loom-replay")
	}
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	loom, err := loombin.Build(ctx, dir)
	require.NoError(t, err)
	replay, err := Build(ctx, dir)
	require.NoError(t, err)
	root := filepath.Join(dir, "root")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n\"two\" é\nthree\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d.json"), []byte(`{"k":[1,{"id":2}]}`), 0o644))

	session := func(id func(int) string) []string {
		return []string{
			`{"jsonrpc":"2.0","id":` + id(0) + `,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":` + id(1) + `,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":` + id(2) + `,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt","d.json"]}}}`,
			`{"jsonrpc":"2.0","id":` + id(3) + `,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":2,"last":3}}}`,
			`{"jsonrpc":"2.0","id":` + id(4) + `,"method":"tools/call","params":{"name":"get_json","arguments":{"result":"r2","pointer":"/k/1"}}}`,
			`{"jsonrpc":"2.0","id":` + id(5) + `,"method":"tools/call","params":{"name":"list_results","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":` + id(6) + `,"method":"tools/call","params":{"name":"begin_step","arguments":{}}}`,
		}
	}
	rec := NewRecorder()
	recorded := startPipe(t, rec, loom, "--root", root).send(t, session(func(i int) string { return string(rune('1' + i)) }))
	require.Len(t, recorded, 7)
	tape := rec.Tape()
	require.Len(t, tape, 7)
	for i, x := range tape {
		assert.Equal(t, recorded[i], string(x.Answer))
	}
	tapePath := filepath.Join(dir, "tape")
	require.NoError(t, WriteTape(tapePath, tape))

	got := startPipe(t, nil, replay, "--tape", tapePath).send(t, session(func(i int) string { return string(rune('1' + i)) }))
	assert.Equal(t, recorded, got, "the same requests: loom's bytes")

	other := func(i int) string { return `"q` + string(rune('a'+i)) + `"` }
	got = startPipe(t, nil, replay, "--tape", tapePath).send(t, session(other))
	require.Len(t, got, len(recorded))
	for i := range got {
		assert.Equal(t, string(withID(t, []byte(recorded[i]), other(i))), got[i])
	}
}
