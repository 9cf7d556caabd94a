package editbench

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitLines(t *testing.T) {
	t.Parallel()
	// SPEC section 4.2's examples.
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n", "b"}},
		{"a\r\nb\r\n", []string{"a\r\n", "b\r\n"}},
		{"a\rb\n", []string{"a\rb\n"}},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range splitLines([]byte(tt.in)) {
			got = append(got, string(l))
		}
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain <&> é", `"plain <&> é"`},
		{"q\"b\\", `"q\"b\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"\u2028", "\"\u2028\""},
	}
	for _, tt := range tests {
		got := appendString(nil, tt.in)
		assert.Equal(t, tt.want, string(got), "%q", tt.in)
		assert.Equal(t, len(got), escapedLen([]byte(tt.in)), "%q", tt.in)
		var back string
		require.NoError(t, json.Unmarshal(got, &back))
		assert.Equal(t, tt.in, back)
	}
}

func TestParseHunks(t *testing.T) {
	t.Parallel()
	out := "diff --git a/x b/x\nindex 1..2\n--- a/x\n+++ b/x\n" +
		"@@ -0,0 +1,2 @@\n+a\n+b\n" +
		"@@ -5 +7 @@ func x\n-c\n+d\n" +
		"@@ -9,3 +10,0 @@\n-@@ -1 +1 @@\n-e\n-f\n" +
		"@@ -20,0 +18 @@\n+g\n\\ No newline at end of file\n"
	got, err := parseHunks([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, []hunk{
		{OldStart: 0, OldCount: 0, NewStart: 1, NewCount: 2},
		{OldStart: 5, OldCount: 1, NewStart: 7, NewCount: 1},
		{OldStart: 9, OldCount: 3, NewStart: 10, NewCount: 0},
		{OldStart: 20, OldCount: 0, NewStart: 18, NewCount: 1},
	}, got)

	_, err = parseHunks([]byte("@@ -x +1 @@\n"))
	assert.Error(t, err)
}

func TestParseRaw(t *testing.T) {
	t.Parallel()
	out := ":100644 100644 aaa bbb M\x00dir/a.go\x00" +
		":100644 100644 ccc ddd R086\x00old name.go\x00new name.go\x00" +
		":000000 100644 000 eee A\x00added.txt\x00"
	got, err := parseRaw([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, []change{
		{Status: 'M', OldMode: "100644", NewMode: "100644", OldBlob: "aaa", NewBlob: "bbb", OldPath: "dir/a.go", NewPath: "dir/a.go"},
		{Status: 'R', OldMode: "100644", NewMode: "100644", OldBlob: "ccc", NewBlob: "ddd", OldPath: "old name.go", NewPath: "new name.go"},
		{Status: 'A', OldMode: "000000", NewMode: "100644", OldBlob: "000", NewBlob: "eee", OldPath: "added.txt", NewPath: "added.txt"},
	}, got)

	_, err = parseRaw([]byte(":100644 100644 aaa bbb R100\x00only-one\x00"))
	assert.Error(t, err)
}

func TestCheckHunks(t *testing.T) {
	t.Parallel()
	j := &job{old: []byte("a\nb\nc"), new: []byte("x\na\nc\nd"), hunks: []hunk{
		{OldStart: 0, OldCount: 0, NewStart: 1, NewCount: 1},
		{OldStart: 2, OldCount: 1, NewStart: 2, NewCount: 0},
		{OldStart: 3, OldCount: 1, NewStart: 3, NewCount: 2},
	}}
	assert.NoError(t, checkHunks(j))
	j.hunks = j.hunks[:2]
	assert.Error(t, checkHunks(j))
}

// TestStrReplaceCost: each edit's old text gets the fewest context lines
// that make it unique in the file as it stands, and an insertion needs at
// least one.
func TestStrReplaceCost(t *testing.T) {
	t.Parallel()
	edit := func(old, neu string) int64 {
		return int64(len((&obj{}).str("path", "f").str("old_str", old).str("new_str", neu).bytes()))
	}
	tests := []struct {
		name     string
		old, new string
		hunks    []hunk
		want     int64
	}{
		{
			name: "unique line", old: "a\nb\nc\n", new: "a\nB\nc\n",
			hunks: []hunk{{OldStart: 2, OldCount: 1, NewStart: 2, NewCount: 1}},
			want:  edit("b\n", "B\n"),
		},
		{
			name: "repeated line takes a line before", old: "x\nb\ny\nb\n", new: "x\nb\ny\nB\n",
			hunks: []hunk{{OldStart: 4, OldCount: 1, NewStart: 4, NewCount: 1}},
			want:  edit("y\nb\n", "y\nB\n"),
		},
		{
			name: "insertion at the top takes the line after", old: "a\nb\n", new: "n\na\nb\n",
			hunks: []hunk{{OldStart: 0, OldCount: 0, NewStart: 1, NewCount: 1}},
			want:  edit("a\n", "n\na\n"),
		},
		{
			name: "insertion takes the line before", old: "a\nb\n", new: "a\nn\nb\n",
			hunks: []hunk{{OldStart: 1, OldCount: 0, NewStart: 2, NewCount: 1}},
			want:  edit("a\n", "a\nn\n"),
		},
		{
			// Applied bottom-up: the second edit makes the last "b" a "B",
			// so the first one's "b" is unique by then.
			name: "edits see the file as it stands", old: "b\nb\n", new: "c\nB\n",
			hunks: []hunk{{OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 2}},
			want:  edit("b\nb\n", "c\nB\n"),
		},
		{
			name: "two edits", old: "b\nz\nb\n", new: "c\nz\nB\n",
			hunks: []hunk{{OldStart: 1, OldCount: 1, NewStart: 1, NewCount: 1}, {OldStart: 3, OldCount: 1, NewStart: 3, NewCount: 1}},
			want:  edit("z\nb\n", "z\nB\n") + edit("b\n", "c\n"),
		},
		{
			name: "an empty file is written whole", old: "", new: "a\n",
			hunks: []hunk{{OldStart: 0, OldCount: 0, NewStart: 1, NewCount: 1}},
			want:  int64(len(`{"path":"f","content":"a\n"}`)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &job{newPath: "f", old: []byte(tt.old), new: []byte(tt.new), hunks: tt.hunks}
			require.NoError(t, checkHunks(j))
			got, _ := strReplaceCost(j, splitLines(j.old), splitLines(j.new))
			assert.Equal(t, Cost{Read: int64(len(tt.old)), Generated: tt.want}, got)
		})
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0.0, median(nil))
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
	assert.Equal(t, 0.0, p90(nil))
	assert.Equal(t, 9.0, p90([]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}))
	assert.Equal(t, 5.0, p90([]float64{5}))
	assert.Equal(t, 0.0, ratio(1, 0))
	assert.Equal(t, 0.3333, ratio(1, 3))
}

func TestDistinctive(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{"}": false, "return nil": true, "});})();": false, "x := 1": false, "count += 1": true} {
		assert.Equal(t, want, distinctive(p), "%q", p)
	}
	assert.Equal(t, "ab", cutPrefix("abé", 3), "a cut never splits a character")
	assert.Equal(t, strings.Repeat("x", 3), cutPrefix("xxx", 48))
}
