package editbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-results/loom-results/selectors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compactLen is the length of v as compact JSON without HTML escaping:
// an encoder independent of the package's own, for the expected counts.
func compactLen(t *testing.T, v any) int64 {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return int64(b.Len() - 1) // the encoder's newline
}

func lines(s string, first, last int) string {
	return strings.Join(strings.SplitAfter(s, "\n")[first-1:last], "")
}

// TestRun replays the fixture's history: every modified text file is
// preserved, the rest is skipped for its reason, and the counts are those
// an agent that locates each change with one find would pay.
func TestRun(t *testing.T) {
	t.Parallel()
	rep, err := Run(t.Context(), Options{Repo: repo, Server: []string{binary}, MaxFileBytes: 64 << 10})
	require.NoError(t, err)

	var subjects []string
	for _, c := range rep.Commits {
		subjects = append(subjects, c.Subject)
	}
	assert.Equal(t, []string{
		"root: every file", "edit in the middle", "insertion", "deletion", "moved block", "crlf edit",
		"no final newline", "rename with an edit", "binary, added, deleted, large",
		"insertion at the top and an edit", "merge side",
	}, subjects, "the first-parent history, oldest first, without the side branch's commit")

	type fileWant struct {
		path, oldPath                   string
		hunks, finds, lookups, composed int
	}
	want := []fileWant{
		{path: "mid.go", hunks: 1, finds: 1, lookups: 2},  // find line 40, get_lines 41
		{path: "ins.txt", hunks: 1, finds: 1, lookups: 1}, // an insertion reads nothing
		{path: "del.txt", hunks: 1, finds: 1, lookups: 2}, // find line 48, get_lines 49-50
		// alpha's lines lie in the preview; its insertion at the end needs no find.
		{path: "move.go", hunks: 2, finds: 1, lookups: 1, composed: 8},
		{path: "crlf.txt", hunks: 1, finds: 1, lookups: 1},
		{path: "nonl.txt", hunks: 1, finds: 1, lookups: 1},
		{path: "new_name.go", oldPath: "old_name.go", hunks: 1, finds: 1, lookups: 1},
		{path: "crlf.txt", hunks: 2, finds: 1, lookups: 1}, // the top needs no find
		{path: "del.txt", hunks: 1, finds: 1, lookups: 1},  // the merge's first-parent diff
	}
	require.Len(t, rep.Files, len(want))
	for i, w := range want {
		f := rep.Files[i]
		assert.True(t, f.Preserved, "%s: %s", f.Path, f.Error)
		assert.Empty(t, f.Error)
		assert.Equal(t, w.path, f.Path)
		assert.Equal(t, w.oldPath, f.OldPath, f.Path)
		assert.Equal(t, w.hunks, f.Hunks, f.Path)
		assert.Equal(t, w.finds, f.Finds, f.Path)
		assert.Equal(t, 0, f.AmbiguousFinds, f.Path)
		assert.Equal(t, 0, f.OracleHunks, f.Path)
		assert.Equal(t, w.lookups, f.Lookups, f.Path)
		assert.Equal(t, w.composed, f.ComposedLines, f.Path)
		assert.Equal(t, 1, f.Steps, f.Path)
		assert.Zero(t, f.Retries, f.Path)
		assert.Less(t, f.Loom.Generated, f.Whole.Generated, f.Path)
		assert.Less(t, f.Loom.Read, f.Whole.Read, f.Path)
	}

	t.Run("edit in the middle", func(t *testing.T) {
		f := rep.Files[0]
		newText := "func step40(x int) int { return x * 40 }\nfunc step41(x int) int { return x * 41 }\n"
		newFile := replaceLines(midGo, 40, 41, newText)
		assert.Equal(t, len(midGo), f.Bytes)
		assert.Equal(t, map[string]int64{
			partInspect: compactLen(t, map[string]any{"paths": []string{"mid.go"}}),
			partFind:    compactLen(t, map[string]any{"result": "r1", "pattern": "func step40(x int) int { return x + 40 }"}),
			partRead:    compactLen(t, map[string]any{"result": "r1", "first": 41, "last": 41}),
			partExpand: compactLen(t, map[string]any{"arguments": map[string]any{"path": "mid.go", "content": map[string]any{
				"$splice": map[string]any{"result": "r1", "edits": []any{map[string]any{"lines": []string{anchorOf(midGo, 40), anchorOf(midGo, 41)}, "text": newText}}}}}}),
		}, generated(f.LoomParts))
		// A lookup's text is the selection itself (SPEC 5).
		assert.Equal(t, int64(len(lines(midGo, 41, 41))), f.LoomParts[partRead].Read)
		assert.Equal(t, Cost{Read: int64(len(midGo)), Generated: compactLen(t, map[string]string{"path": "mid.go", "content": newFile})}, f.Whole)
		assert.Equal(t, Cost{Read: int64(len(midGo)), Generated: compactLen(t, map[string]string{"path": "mid.go", "old_str": lines(midGo, 40, 41), "new_str": newText})}, f.StrReplace)
		assert.Equal(t, Cost{Read: int64(len(lines(midGo, 40, 41))), Generated: int64(len(newText))}, f.Floor)
	})

	t.Run("moved block", func(t *testing.T) {
		f := rep.Files[3]
		assert.Equal(t, int64(len(moveAlpha)), f.ComposedBytes)
		// Only the blank line before alpha is typed; alpha is a reference.
		assert.Equal(t, int64(len(`"\n"`)+len(`""`)), f.LiteralBytes)
		assert.Equal(t, Cost{Read: int64(len(lines(moveAlpha+moveBeta, 1, 9))), Generated: int64(len(moveAlpha) + 1)}, f.Floor)
	})

	t.Run("summary", func(t *testing.T) {
		s := rep.Summary()
		assert.Equal(t, 11, s.Commits)
		assert.Equal(t, 9, s.Files)
		assert.Equal(t, 9, s.Preserved)
		assert.Equal(t, 1.0, s.PreservationRate)
		assert.Equal(t, 11, s.Hunks)
		assert.Equal(t, 0, s.OracleHunks)
		assert.Equal(t, 9, s.Finds)
		assert.Equal(t, 8, s.ComposedLines)
		assert.Equal(t, map[string]int{"root_commit": 1, "added": 1, "deleted": 1, "binary": 1, "too_large": 1}, s.Skipped)
		assert.Empty(t, s.Failures)
		assert.Zero(t, s.FilesOver4K)
		var total Cost
		for _, f := range rep.Files {
			total.Read += f.Loom.Read
			total.Generated += f.Loom.Generated
		}
		assert.Equal(t, total, s.Totals[Loom])
		assert.Equal(t, total.Generated, s.Strategies[Loom].Generated.Total)
		for _, tg := range s.Targets {
			if tg.Name == "read_vs_whole_median_over_4k" {
				assert.Nil(t, tg.Met, "no file is over 4 KiB")
			} else {
				assert.NotNil(t, tg.Met, tg.Name)
			}
		}
	})
}

func generated(parts map[string]Cost) map[string]int64 {
	m := map[string]int64{}
	for k, v := range parts {
		m[k] = v.Generated
	}
	return m
}

// TestRunFailure: a server whose expansion cap is too small for any file
// preserves nothing, and says so per file.
func TestRunFailure(t *testing.T) {
	t.Parallel()
	rep, err := Run(t.Context(), Options{Repo: repo, Commits: 2, Server: []string{binary}, ServerFlags: []string{"--max-expand-bytes", "100"}})
	require.NoError(t, err)
	s := rep.Summary()
	assert.Equal(t, 2, s.Files)
	assert.Equal(t, 0, s.Preserved)
	require.Len(t, s.Failures, 2)
	assert.Contains(t, s.Failures[0].Error, "expansion_too_large")
	for _, f := range rep.Files {
		assert.Equal(t, 1, f.Retries, "one begin_step and retry before giving up")
	}
}

func TestRunNotARepository(t *testing.T) {
	t.Parallel()
	_, err := Run(t.Context(), Options{Repo: filepath.Join(t.TempDir(), "missing"), Server: []string{binary}})
	assert.Error(t, err)
}

// TestRunWriteAgent replays the fixture's history as a stock client does
// (--steps model --write): the file on disk is the commit's after each
// write_file; the server has --step-gap (SPEC v5), so the model calls no
// begin_step and its turns, apart by more than the gap, each begin a step;
// the model never inspects (a find over the file's path names its result),
// a find of several patterns locates the hunks of one file at once, and
// the edits name their lines by the anchors the answers showed.
func TestRunWriteAgent(t *testing.T) {
	t.Parallel()
	rep, err := Run(t.Context(), Options{Repo: repo, Server: []string{binary}, MaxFileBytes: 64 << 10, Agent: AgentWrite})
	require.NoError(t, err)
	s := rep.Summary()
	assert.Equal(t, AgentWrite, s.Agent)
	assert.Equal(t, 9, s.Files)
	assert.Equal(t, 9, s.Preserved, "%v", s.Failures)
	for _, f := range rep.Files {
		assert.True(t, f.Preserved, "%s: %s", f.Path, f.Error)
		assert.NotContains(t, f.LoomParts, partStep, "%s: no begin_step", f.Path)
		assert.Zero(t, f.StepCalls, f.Path)
		assert.Zero(t, f.MisaimsMade, f.Path)
		assert.NotContains(t, f.LoomParts, partExpand, f.Path)
		assert.NotContains(t, f.LoomParts, partInspect, f.Path)
		assert.Contains(t, f.LoomParts, partWrite, f.Path)
	}

	t.Run("edit in the middle", func(t *testing.T) {
		f := rep.Files[0]
		newText := "func step40(x int) int { return x * 40 }\nfunc step41(x int) int { return x * 41 }\n"
		assert.Equal(t, compactLen(t, map[string]any{"splice": map[string]any{"result": "r1",
			"edits": []any{map[string]any{"lines": []string{anchorOf(midGo, 40), anchorOf(midGo, 41)}, "text": newText}}}}), f.LoomParts[partWrite].Generated,
			"the path and base default to the inspected file's")
		assert.Equal(t, compactLen(t, map[string]any{"paths": []string{"mid.go"}, "pattern": "func step40(x int) int { return x + 40 }"}),
			f.LoomParts[partFind].Generated, "one hunk: a find of one pattern, over the path")
		assert.Equal(t, 3, f.Calls, "find, get_lines, write_file")
		assert.Equal(t, 3, f.Turns, "each call on the answer before")
		assert.Equal(t, Cost{Read: int64(len(anchorOf(midGo, 41) + ": " + lines(midGo, 41, 41))),
			Generated: compactLen(t, map[string]any{"result": "r1", "first": 41, "last": 41, "numbered": true})}, f.LoomParts[partRead],
			"line 41, numbered: the model reads its anchor (line 40's came with find's match)")
	})
	t.Run("insertion at the top and an edit", func(t *testing.T) {
		f := rep.Files[7]
		assert.Equal(t, "crlf.txt", f.Path)
		assert.Equal(t, 1, f.Finds, "the top needs no find")
	})
	t.Run("rename with an edit", func(t *testing.T) {
		f := rep.Files[6]
		assert.Equal(t, "new_name.go", f.Path)
		assert.True(t, f.Preserved, f.Error)
	})
}

func TestRunUnknownAgent(t *testing.T) {
	t.Parallel()
	_, err := Run(t.Context(), Options{Repo: repo, Server: []string{binary}, Agent: "copilot"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `agent "copilot" is not splice or write`)
}

// TestWriteAgentPatterns: two hunks far apart in one file are located by
// one find of two patterns, whose matches the agent tells apart by their
// text.
func TestWriteAgentPatterns(t *testing.T) {
	t.Parallel()
	var old, neu strings.Builder
	for i := 1; i <= 100; i++ {
		line := fmt.Sprintf("\tvalue%03d := compute(%d, input)\n", i, i)
		old.WriteString(line)
		if i == 20 || i == 70 {
			line = fmt.Sprintf("\tvalue%03d := compute(%d, other)\n", i, i)
		}
		neu.WriteString(line)
	}
	f := replayLines20And70(t, old.String(), neu.String())
	assert.Equal(t, 1, f.Finds)
	assert.Equal(t, 0, f.OracleHunks)
	assert.Equal(t, compactLen(t, map[string]any{"paths": []string{"f.go"}, "patterns": []string{
		"value020 := compute(20, input)", "value070 := compute(70, input)"}}), f.LoomParts[partFind].Generated)
	assert.Equal(t, int64(len("r1 f.go:\n20#eo: \tvalue020 := compute(20, input)\n70#te: \tvalue070 := compute(70, input)\n")), f.LoomParts[partFind].Read,
		"the model reads the file's header line and its two matches")
}

// replayLines20And70 replays the write agent on f.go changed from old to
// neu at lines 20 and 70 (a hunk of one line each), and returns its file's
// result, preserved.
func replayLines20And70(t *testing.T, old, neu string) FileResult {
	t.Helper()
	j := &job{commit: "c", oldPath: "f.go", newPath: "f.go", old: []byte(old), new: []byte(neu),
		hunks: []hunk{{OldStart: 20, OldCount: 1, NewStart: 20, NewCount: 1}, {OldStart: 70, OldCount: 1, NewStart: 70, NewCount: 1}}}
	require.NoError(t, checkHunks(j))
	files, err := replay(t.Context(), Options{Server: []string{binary}, Agent: AgentWrite}, []*job{j})
	require.NoError(t, err)
	require.Len(t, files, 1)
	require.True(t, files[0].Preserved, files[0].Error)
	return files[0]
}

// TestWriteAgentAnswers: with --answers full the model reads each success's
// structured content as JSON (as Claude Code shows it), with text the text
// alone; the same calls either way.
func TestWriteAgentAnswers(t *testing.T) {
	t.Parallel()
	var old, neu strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&old, "line %02d of the file\n", i)
		if i == 30 {
			fmt.Fprintf(&neu, "line %02d changed\n", i)
			continue
		}
		fmt.Fprintf(&neu, "line %02d of the file\n", i)
	}
	run := func(answers string) FileResult {
		j := &job{commit: "c", oldPath: "f.txt", newPath: "f.txt", old: []byte(old.String()), new: []byte(neu.String()),
			hunks: []hunk{{OldStart: 30, OldCount: 1, NewStart: 30, NewCount: 1}}}
		files, err := replay(t.Context(), Options{Server: []string{binary}, Agent: AgentWrite, Answers: answers}, []*job{j})
		require.NoError(t, err)
		require.Len(t, files, 1)
		require.True(t, files[0].Preserved, files[0].Error)
		return files[0]
	}
	text, full := run("text"), run("full")
	assert.Equal(t, text.Calls, full.Calls)
	assert.Equal(t, text.Loom.Generated, full.Loom.Generated)
	assert.Equal(t, int64(len("r1 f.txt:\n30#u5: line 30 of the file\n")), text.LoomParts[partFind].Read)
	assert.Greater(t, full.LoomParts[partFind].Read, 3*text.LoomParts[partFind].Read, "find's JSON: the digest, the budget, the match's members")
	assert.Greater(t, full.LoomParts[partWrite].Read, text.LoomParts[partWrite].Read)
}

// anchorOf is line n's anchor in text (SPEC 4.4): the agent names the
// lines it edits by their anchors.
func anchorOf(text string, n int) string {
	return selectors.Anchor(n, selectors.AnchorChars(selectors.TrimEnding([]byte(lines(text, n, n)))))
}

// TestWriteAgentMisaim: with --misaim 1 every edit that can be aimed one
// line off is; the server refuses each (anchor_mismatch, SPEC 5.2), the
// model resends with the anchor the error names, and every file is the
// commit's: none lands silently. The draws follow the seed.
func TestWriteAgentMisaim(t *testing.T) {
	t.Parallel()
	rep, err := Run(t.Context(), Options{Repo: repo, Server: []string{binary}, MaxFileBytes: 64 << 10, Agent: AgentWrite, Misaim: 1, Seed: 1})
	require.NoError(t, err)
	s := rep.Summary()
	assert.Equal(t, s.Files, s.Preserved, "%v", s.Failures)
	got := [5]int{s.MisaimsMade, s.MisaimsDetected, s.MisaimsRecovered, s.MisaimsSilent, s.SpoiledFiles}
	assert.Equal(t, [5]int{10, 10, 10, 0, 0}, got, "made, detected, recovered, landed silently, files left wrong")
	for _, f := range rep.Files {
		if f.MisaimsMade > 0 {
			assert.Greater(t, f.LoomParts[partWrite].Read, int64(0))
			assert.Contains(t, f.LoomParts, partWrite)
		}
	}
	again, err := Run(t.Context(), Options{Repo: repo, Server: []string{binary}, MaxFileBytes: 64 << 10, Agent: AgentWrite, Misaim: 1, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, s.MisaimsMade, again.Summary().MisaimsMade, "the same seed, the same misaims")
}

// TestMisaimDraws: a misaimed edit names one of its lines one line off and
// stays clear of its neighbours; a position that names no line (before
// lines + 1) is never moved.
func TestMisaimDraws(t *testing.T) {
	t.Parallel()
	a := &agent{r: &FileResult{}, oldLines: splitLines([]byte(numbered("line %02d %d\n", 10))), mis: newMisaimer(1, 7), write: true}
	edits := []spliceEdit{
		{kind: "lines", pos: [2]int{2, 3}},
		{kind: "after", pos: [2]int{5}},
		{kind: "lines", pos: [2]int{7, 7}},
		{kind: "before", pos: [2]int{11}},
	}
	for i := range edits {
		edits[i].aim = edits[i].pos
	}
	a.misaim(edits)
	assert.Equal(t, 3, a.r.MisaimsMade)
	for i, e := range edits {
		moved := 0
		for k := range 2 {
			if d := e.aim[k] - e.pos[k]; d != 0 {
				assert.Contains(t, []int{-1, 1}, d, "edit %d", i)
				moved++
			}
		}
		if e.kind == "before" {
			assert.Equal(t, 0, moved, "before lines + 1 names no line")
			continue
		}
		assert.Equal(t, 1, moved, "edit %d: %+v", i, e)
		if i > 0 {
			_, prev := span(edits[i-1].kind, edits[i-1].aim)
			lo, _ := span(e.kind, e.aim)
			assert.Greater(t, lo, prev+1, "edit %d clear of the one before", i)
		}
	}
	assert.Nil(t, newMisaimer(0, 1))
}

// TestReaim: the model reads the line to aim at off anchor_mismatch's
// message: of the lines named with the characters it sent, the one whose
// text is the line it meant.
func TestReaim(t *testing.T) {
	t.Parallel()
	old := "a\nx\nb\nx\nc\n"
	a := &agent{r: &FileResult{}, oldLines: splitLines([]byte(old)), write: true, s: &session{anchored: true}, anchorOf: map[int][2]byte{}}
	x := selectors.AnchorChars([]byte("x"))
	a.anchorOf[2], a.anchorOf[4] = x, x
	e := spliceEdit{kind: "lines", pos: [2]int{4, 4}, aim: [2]int{3, 4}}
	msg := `error unresolved_edit: edit part at "/splice/edits/0" does not resolve: anchor_mismatch: line 3 is ` +
		selectors.Anchor(3, selectors.AnchorChars([]byte("b"))) + ` "b", not ` + selectors.Anchor(3, x) + `; ` +
		selectors.Anchor(2, x) + ` is "x" and ` + selectors.Anchor(4, x) + ` is "x"`
	require.NoError(t, a.reaim(&e, msg))
	assert.Contains(t, []int{2, 4}, e.aim[0], "both hold x: either is the text meant")
	i, ok := failedEdit(msg)
	assert.True(t, ok)
	assert.Equal(t, 0, i)
	e = spliceEdit{kind: "lines", pos: [2]int{4, 4}, aim: [2]int{3, 4}}
	assert.Error(t, a.reaim(&e, "error unresolved_edit: something else"))
}

// TestWriteAgentPatternRounds: two hunks whose changed lines hold the same
// common text are located in two finds, not one each: the first shows the
// text ambiguous, the second sends each hunk's next line, both at once.
func TestWriteAgentPatternRounds(t *testing.T) {
	t.Parallel()
	var old, neu strings.Builder
	for i := 1; i <= 100; i++ {
		line := fmt.Sprintf("\tvalue%03d := compute(%d, input)\n", i, i)
		changed := line
		if i == 20 || i == 70 {
			line, changed = "\treturn err\n", "\treturn fmt.Errorf(\"step: %w\", err)\n"
		}
		old.WriteString(line)
		neu.WriteString(changed)
	}
	f := replayLines20And70(t, old.String(), neu.String())
	assert.Equal(t, 2, f.Finds)
	assert.Equal(t, 1, f.AmbiguousFinds)
	assert.Equal(t, 0, f.OracleHunks)
	assert.Equal(t, compactLen(t, map[string]any{"paths": []string{"f.go"}, "pattern": "return err"})+
		compactLen(t, map[string]any{"result": "r1", "patterns": []string{
			"value019 := compute(19, input)", "value069 := compute(69, input)"}}), f.LoomParts[partFind].Generated)
}
