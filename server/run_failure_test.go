//go:build unix

package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/jsontest"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// okLines are the "ok" lines of nine packages that passed, as go test ./...
// prints them after a failed one.
var okLines = func() string {
	var b strings.Builder
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "ok  \texample.com/calc/p%d\t0.0%ds\n", i, 10+i)
	}
	return b.String()
}()

// failureOutputs are the outputs of runs that the first-failure table
// replays (--preview-bytes 256, so 128 bytes of rows at most): each the
// output a command prints and its exit status (-1: killed by a signal).
var failureOutputs = []struct {
	name   string
	output string
	exit   int
	// text is run's whole text content after the header line; first the
	// structured first_failure (nil: null).
	text  string
	first map[string]any
}{{
	name: "go test, one failure",
	output: "--- FAIL: TestAdd (0.00s)\n    calc_test.go:12: Add(2, 2) = 5, want 4\nFAIL\nFAIL\texample.com/calc\t0.004s\n" +
		okLines + "FAIL\n",
	exit: 1,
	text: "[first failure: line 1 of 14]\n" +
		"1#vx: --- FAIL: TestAdd (0.00s)\n2#5o:     calc_test.go:12: Add(2, 2) = 5, want 4\n3#ij: FAIL\n4#nk: FAIL\texample.com/calc\t0.004s\n" +
		"[tail: last 101 of 396 bytes]\n" +
		"ok  \texample.com/calc/p7\t0.017s\nok  \texample.com/calc/p8\t0.018s\nok  \texample.com/calc/p9\t0.019s\nFAIL\n",
	first: map[string]any{"line": float64(1), "anchor": "1#vx", "text": "--- FAIL: TestAdd (0.00s)"},
}, {
	name: "go test -v, many failures",
	output: "=== RUN   TestAdd\n    calc_test.go:12: Add(2, 2) = 5, want 4\n--- FAIL: TestAdd (0.00s)\n" +
		"=== RUN   TestSub\n    calc_test.go:20: Sub(3, 1) = 4, want 2\n--- FAIL: TestSub (0.00s)\n" +
		"=== RUN   TestMul\n    calc_test.go:28: Mul(2, 3) = 5, want 6\n--- FAIL: TestMul (0.00s)\n" +
		"=== RUN   TestDiv\n--- PASS: TestDiv (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.005s\n" + okLines + "FAIL\n",
	exit: 1,
	text: "[first failure: line 3 of 23]\n" +
		"3#vx: --- FAIL: TestAdd (0.00s)\n4#4m: === RUN   TestSub\n5#au:     calc_test.go:20: Sub(3, 1) = 4, want 2\n" +
		"[tail: last 133 of 632 bytes]\n" +
		"ok  \texample.com/calc/p6\t0.016s\nok  \texample.com/calc/p7\t0.017s\nok  \texample.com/calc/p8\t0.018s\nok  \texample.com/calc/p9\t0.019s\nFAIL\n",
	first: map[string]any{"line": float64(3), "anchor": "3#vx", "text": "--- FAIL: TestAdd (0.00s)"},
}, {
	name: "a panic",
	output: "starting\nlistening on :8080\npanic: assignment to entry in nil map\n\ngoroutine 1 [running]:\n" +
		"main.(*Server).register(...)\n\t/src/server.go:41\nmain.main()\n\t/src/main.go:12 +0x1d\n\n" +
		"goroutine 18 [IO wait]:\ninternal/poll.runtime_pollWait(0x7f3a2c1e8f28, 0x72)\n\t/usr/local/go/src/runtime/netpoll.go:345 +0x85\n" +
		"net/http.(*Server).Serve(0xc0000b6000)\n\t/usr/local/go/src/net/http/server.go:3260 +0x33e\nexit status 2\n",
	exit: 2,
	text: "[first failure: line 3 of 16]\n" +
		"3#qh: panic: assignment to entry in nil map\n4#4o: \n5#dd: goroutine 1 [running]:\n6#e3: main.(*Server).register(...)\n" +
		"[tail: last 103 of 402 bytes]\n" +
		"net/http.(*Server).Serve(0xc0000b6000)\n\t/usr/local/go/src/net/http/server.go:3260 +0x33e\nexit status 2\n",
	first: map[string]any{"line": float64(3), "anchor": "3#qh", "text": "panic: assignment to entry in nil map"},
}, {
	name: "pytest's FAILED summary at the end",
	output: "============================= test session starts ==============================\n" +
		"platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0\nrootdir: /src\ncollected 4 items\n\n" +
		"tests/test_calc.py .F..                                                  [100%]\n\n" +
		"=================================== FAILURES ===================================\n" +
		"___________________________________ test_add ___________________________________\n\n" +
		"    def test_add():\n>       assert add(2, 2) == 4\nE       assert 5 == 4\nE        +  where 5 = add(2, 2)\n\n" +
		"tests/test_calc.py:6: AssertionError\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED tests/test_calc.py::test_add - assert 5 == 4\n" +
		"========================= 1 failed, 3 passed in 0.02s ==========================\n",
	exit: 1,
	text: "[tail: last 252 of 774 bytes]\n" +
		"\ntests/test_calc.py:6: AssertionError\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED tests/test_calc.py::test_add - assert 5 == 4\n" +
		"========================= 1 failed, 3 passed in 0.02s ==========================\n",
	first: nil,
}, {
	name: "a traceback",
	output: "loading config from settings.toml\nconnecting to the database\nTraceback (most recent call last):\n" +
		"  File \"/src/app.py\", line 14, in <module>\n    main()\n  File \"/src/app.py\", line 10, in main\n" +
		"    total = sum(rows) / len(rows)\n            ~~~~~~~~~~^~~~~~~~~~~\nZeroDivisionError: division by zero\n" +
		"closing the database\nflushing the log\nbye\n",
	exit: 1,
	text: "[first failure: line 3 of 12]\n" +
		"3#lx: Traceback (most recent call last):\n4#7w:   File \"/src/app.py\", line 14, in <module>\n5#vk:     main()\n" +
		"[tail: last 146 of 335 bytes]\n" +
		"    total = sum(rows) / len(rows)\n            ~~~~~~~~~~^~~~~~~~~~~\nZeroDivisionError: division by zero\n" +
		"closing the database\nflushing the log\nbye\n",
	first: map[string]any{"line": float64(3), "anchor": "3#lx", "text": "Traceback (most recent call last):"},
}, {
	name:   "a success that logs a FAIL line",
	output: "=== RUN   TestRetry\nFAIL then retry: attempt 1 of 3\n--- PASS: TestRetry (0.01s)\nPASS\n" + okLines,
	exit:   0,
	text:   "[tail: last 256 of 373 bytes]\n" + okLines[32:],
	first:  nil,
}, {
	name:   "a failure inside the tail",
	output: "ok  \texample.com/calc/p1\t0.011s\n--- FAIL: TestAdd (0.00s)\n    calc_test.go:12: Add(2, 2) = 5, want 4\nFAIL\nFAIL\texample.com/calc\t0.004s\nFAIL\n",
	exit:   1,
	text:   "ok  \texample.com/calc/p1\t0.011s\n--- FAIL: TestAdd (0.00s)\n    calc_test.go:12: Add(2, 2) = 5, want 4\nFAIL\nFAIL\texample.com/calc\t0.004s\nFAIL\n",
	first:  nil,
}, {
	name: "a huge single failing line",
	output: "=== RUN   TestBig\npanic: unexpected value: " + strings.Repeat("αβγ", 300) + "\n\ngoroutine 1 [running]:\n" +
		"example.com/big.TestBig(0xc000003a00)\n\t/src/big_test.go:9 +0x2c\ntesting.tRunner(0xc000003a00, 0x5d1a08)\n" +
		"\t/usr/local/go/src/testing/testing.go:1689 +0xfb\nFAIL\texample.com/big\t0.003s\nFAIL\n",
	exit: 2,
	text: "[first failure: line 2 of 10]\n" +
		// 31 bytes and 46 two-byte characters: 123 bytes, and "…\n" 4 more,
		// within the half (128); a 47th character would pass it.
		"2#g4: panic: unexpected value: " + strings.Repeat("αβγ", 15) + "α…\n" +
		"[tail: last 122 of 2054 bytes]\n" +
		"testing.tRunner(0xc000003a00, 0x5d1a08)\n\t/usr/local/go/src/testing/testing.go:1689 +0xfb\nFAIL\texample.com/big\t0.003s\nFAIL\n",
	first: map[string]any{"line": float64(2), "anchor": "2#g4", "text": "panic: unexpected value: " + strings.Repeat("αβγ", 35) + "αβ"}, // 239 bytes: a 240th would split β
}, {
	name:   "killed by a signal",
	output: "--- FAIL: TestAdd (0.00s)\n    calc_test.go:12: Add(2, 2) = 5, want 4\nFAIL\nFAIL\texample.com/calc\t0.004s\n" + okLines,
	exit:   -1,
	text: "[first failure: line 1 of 13]\n" +
		"1#vx: --- FAIL: TestAdd (0.00s)\n2#5o:     calc_test.go:12: Add(2, 2) = 5, want 4\n3#ij: FAIL\n4#nk: FAIL\texample.com/calc\t0.004s\n" +
		"[tail: last 128 of 391 bytes]\n" + okLines[5*32:],
	first: map[string]any{"line": float64(1), "anchor": "1#vx", "text": "--- FAIL: TestAdd (0.00s)"},
}}

// TestRunFirstFailure replays the table through run over stdio: each
// answer's exact text, its first_failure, a preview that stays the tail of
// --preview-bytes, and a budget never passed: the rows within half the
// preview, rows and tail together within it.
func TestRunFirstFailure(t *testing.T) {
	t.Parallel()
	const preview = 256
	files := map[string]string{}
	var values []string
	for i, c := range failureOutputs {
		name := "c" + strconv.Itoa(i)
		files[name+".out"] = c.output
		end := "exit " + strconv.Itoa(c.exit)
		if c.exit < 0 {
			end = "kill -KILL $$"
		}
		files[name+".sh"] = "cat " + name + ".out\n" + end + "\n"
		values = append(values, name+"=sh "+name+".sh")
	}
	cfg := limits.Defaults()
	cfg.PreviewBytes = preview
	s, _ := runServer(t, cfg, files, values...)
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()
	for i, c := range failureOutputs {
		res := p.Call(i+1, "run", `{"name":"c`+strconv.Itoa(i)+`"}`)
		require.Equal(t, "", mcptest.ErrCode(res), c.name)
		text, d := mcptest.Text(res), mcptest.Structured(res)
		header, rest, _ := strings.Cut(text, "\n")
		sum := sha256.Sum256([]byte(c.output))
		exit := strconv.Itoa(c.exit)
		if c.exit < 0 {
			exit = "signal"
		}
		assert.Equal(t, fmt.Sprintf(`r%d output "c%d" exit=%s: %d bytes, %d lines, complete, sha256=%s`,
			i+1, i, exit, len(c.output), strings.Count(c.output, "\n"), hex.EncodeToString(sum[:6])), header, c.name)
		assert.Equal(t, c.text, rest, c.name)
		got, ok := d["first_failure"]
		assert.True(t, ok, "%s: first_failure is always there", c.name)
		if c.first == nil {
			assert.Nil(t, got, "%s: first_failure is null", c.name)
		} else {
			assert.Equal(t, c.first, got, c.name)
		}

		rows, tail := splitRunText(t, rest)
		assert.LessOrEqual(t, len(rows), preview/2, c.name)
		assert.LessOrEqual(t, len(rows)+len(tail), preview, c.name)
		full := c.output[len(c.output)-len(d["preview"].(string)):]
		assert.Equal(t, full, d["preview"], "%s: the preview is the output's tail", c.name)
		assert.LessOrEqual(t, len(full), preview, c.name)
	}
}

// splitRunText returns the rows of run's text after its header (between
// the first-failure marker and the tail marker) and its tail.
func splitRunText(t *testing.T, rest string) (rows, tail string) {
	t.Helper()
	if after, ok := strings.CutPrefix(rest, "[first failure: "); ok {
		_, rest, _ = strings.Cut(after, "\n")
		i := strings.Index(rest, "[tail: ")
		require.GreaterOrEqual(t, i, 0, "a first failure is above a tail")
		rows, rest = rest[:i], rest[i:]
	}
	if after, ok := strings.CutPrefix(rest, "[tail: "); ok {
		_, rest, _ = strings.Cut(after, "\n")
	}
	return rows, rest
}

// TestRunFailureExpression: --run-failure's expression finds another
// runner's failure (TAP's "not ok"), and an empty expression turns the first failure off:
// the text is the tail of --preview-bytes alone and first_failure null.
// The description names the expression, or says nothing of it when off.
func TestRunFailureExpression(t *testing.T) {
	t.Parallel()
	tap := "TAP version 13\nok 1 - add\nnot ok 2 - sub\n  ---\n  found: 4\n  wanted: 2\n  ...\n" + strings.Repeat("ok 9 - more\n", 8) + "1..10\n"
	files := map[string]string{"tap.out": tap, "tap.sh": "cat tap.out\nexit 1\n"}
	cfg := limits.Defaults()
	cfg.PreviewBytes = 64
	for _, c := range []struct {
		name string
		run  briefing.RunConfig
		text string
		desc string
	}{{
		name: "TAP",
		run:  briefing.RunConfig{Failure: regexp.MustCompile(`^not ok `)},
		// 21 bytes of row (the next, "4#cf:   ---\n", would make 33 of
		// the 32), so the tail has 43: three lines and "1..10".
		text: "[first failure: line 3 of 16]\n3#" + anchorChars("not ok 2 - sub") + ": not ok 2 - sub\n" +
			"[tail: last 42 of 178 bytes]\nok 9 - more\nok 9 - more\nok 9 - more\n1..10\n",
		desc: "the first line matching ^not ok ) and the lines after it, numbered with anchors as get_lines numbers them, within 32 bytes",
	}, {
		name: "off",
		run:  briefing.RunConfig{NoFailure: true},
		text: "[tail: last 54 of 178 bytes]\nok 9 - more\nok 9 - more\nok 9 - more\nok 9 - more\n1..10\n",
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root, _ := testroot.Open(t, files, workspace.Open)
			run := c.run
			run.Commands = commands(t, "tap=sh tap.sh")
			opts := Options{Limits: cfg, Policy: briefing.Legacy, Root: root, Run: run}
			s := New(opts)
			p := mcptest.ServeStdio(t, s.ServeStdio)
			p.Initialize()
			res := p.Call(1, "run", `{"name":"tap"}`)
			_, rest, _ := strings.Cut(mcptest.Text(res), "\n")
			assert.Equal(t, c.text, rest)

			var desc string
			for _, tool := range Tools(opts.tools()) {
				if tool.Tool.Name == "run" {
					desc = tool.Tool.Description
				}
			}
			if c.desc == "" {
				assert.NotContains(t, desc, "first failure")
			} else {
				assert.Contains(t, desc, c.desc)
			}
		})
	}
}

// TestRunFailureTextAnswers: with --answers text the answer is the same
// text, with no structured content.
func TestRunFailureTextAnswers(t *testing.T) {
	t.Parallel()
	c := failureOutputs[0]
	root, _ := testroot.Open(t, map[string]string{"go.out": c.output, "go.sh": "cat go.out\nexit 1\n"}, workspace.Open)
	cfg := limits.Defaults()
	cfg.PreviewBytes = 256
	s := New(Options{Limits: cfg, Policy: briefing.Legacy, Answers: AnswersText, Root: root, Run: briefing.RunConfig{Commands: commands(t, "test=sh go.sh")}})
	p := mcptest.ServeStdio(t, s.ServeStdio)
	p.Initialize()
	res := p.Call(1, "run", `{"name":"test"}`)
	_, rest, _ := strings.Cut(mcptest.Text(res), "\n")
	assert.Equal(t, c.text, rest)
	_, ok := res["structuredContent"]
	assert.False(t, ok)
}

// anchorChars returns the two anchor characters of a line's text.
func anchorChars(content string) string {
	c := selectors.AnchorChars([]byte(content))
	return string(c[:])
}

// TestRunAnswerEncoding holds run's structured content, encoded by its
// own AppendJSON on the transport's path, to json.Marshal's bytes, with
// and without a first failure, on awkward texts.
func TestRunAnswerEncoding(t *testing.T) {
	t.Parallel()
	no := false
	for _, text := range jsontest.Awkward {
		label := text
		code := new(int64(1))
		d := results.Descriptor{ID: new("r1"), SHA256: "ab", Bytes: 3, Lines: 2, Source: results.Source{Kind: "output", Label: &label, ExitCode: &code, TimedOut: &no},
			Preview: &text, PreviewComplete: &no, Reused: &no, Retained: true}
		for _, a := range []runAnswer{{&d, nil}, {&d, &briefing.FirstFailure{Line: 12, Anchor: "12#ab", Text: text}}} {
			msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), success(text, a))
			want, err := json.Marshal(msg)
			require.NoError(t, err)
			got, err := transport.AppendMessage(nil, msg)
			require.NoError(t, err)
			require.Equal(t, string(jsontest.AsMarshal(want)), string(jsontest.AsMarshal(got)))
		}
	}
}
