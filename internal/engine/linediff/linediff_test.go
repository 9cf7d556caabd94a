package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The want texts are GNU diff -U1's, checked by hand against `diff -U1 old
// new` without its two file-name lines, with the count of every
// one-line side written out (GNU writes "@@ -3 +3,2 @@").
func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"new file", "", "a\nb\n", "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"emptied", "a\nb\n", "", "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"replace one", "a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insert at start", "a\nb\nc\n", "x\na\nb\nc\n", "@@ -1,1 +1,2 @@\n+x\n a\n"},
		{"append", "a\nb\n", "a\nb\nc\n", "@@ -2,1 +2,2 @@\n b\n+c\n"},
		{"delete last", "a\nb\nc\n", "a\nb\n", "@@ -2,2 +2,1 @@\n b\n-c\n"},
		{"two lines apart share a hunk", "1\n2\n3\n4\n5\n6\n", "1\nX\n3\n4\nY\n6\n",
			"@@ -1,6 +1,6 @@\n 1\n-2\n+X\n 3\n 4\n-5\n+Y\n 6\n"},
		{"three lines apart are two hunks", "1\n2\n3\n4\n5\n6\n7\n", "1\nX\n3\n4\n5\nY\n7\n",
			"@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -5,3 +5,3 @@\n 5\n-6\n+Y\n 7\n"},
		{"no newline added", "a\nb", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"no newline removed", "a\nb\n", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"append to a text without newline", "a", "a\nb", "@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n"},
		{"insert between, empty old side", "a\nb\nc\nd\n", "a\nb\nx\nc\nd\n", "@@ -2,2 +2,3 @@\n b\n+x\n c\n"},
		{"crlf kept", "a\r\nb\r\n", "a\r\nc\r\n", "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
		{"lone cr is no line end", "a\rb\n", "a\rc\n", "@@ -1,1 +1,1 @@\n-a\rb\n+a\rc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(Diff([]byte(tt.old), []byte(tt.new), 1)))
		})
	}
}

// TestDiffShortest checks random pairs of small texts: the diff applies
// (old patched by it is new), it is shortest (its - and + lines number
// N+M-2·LCS, by dynamic programming), and its hunks keep to one line of
// context.
func TestDiffShortest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		old := randomText(rng, rng.IntN(12))
		new := mutate(rng, old)
		d := Diff([]byte(old), []byte(new), 1)
		got, dels, ins, err := apply(old, string(d))
		require.NoError(t, err, "case %d: old %q new %q diff:\n%s", i, old, new, d)
		require.Equal(t, new, got, "case %d: old %q new %q diff:\n%s", i, old, new, d)
		a, b := cut(old), cut(new)
		l := lcs(a, b)
		require.Equal(t, len(a)-l, dels, "case %d: deletions of %q -> %q:\n%s", i, old, new, d)
		require.Equal(t, len(b)-l, ins, "case %d: insertions of %q -> %q:\n%s", i, old, new, d)
	}
}

// TestDiffLarge: a one-line edit of a 20,000-line file, and a file
// replaced by one with no line in common, give their few hunks (the
// O((N+M)·D) bound keeps both fast; an N×M table would not).
func TestDiffLarge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "line %d of the file\n", i+1)
	}
	old := b.String()
	new := strings.Replace(old, "line 12345 of the file\n", "line 12345 changed\n", 1)
	assert.Equal(t, "@@ -12344,3 +12344,3 @@\n line 12344 of the file\n-line 12345 of the file\n+line 12345 changed\n line 12346 of the file\n",
		string(Diff([]byte(old), []byte(new), 1)))

	other := strings.ReplaceAll(old, "of the", "in another")
	d := Diff([]byte(old), []byte(other), 1)
	assert.True(t, bytes.HasPrefix(d, []byte("@@ -1,20000 +1,20000 @@\n-line 1 of the file\n")), "%.80s", d)
	assert.Equal(t, 40001, bytes.Count(d, []byte{'\n'}))
}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(string(rune('a' + rng.IntN(4))))
		if rng.IntN(8) == 0 {
			b.WriteString("\r")
		}
		b.WriteByte('\n')
	}
	s := b.String()
	if len(s) > 0 && rng.IntN(4) == 0 {
		s = s[:len(s)-1] // no final newline
	}
	return s
}

func mutate(rng *rand.Rand, old string) string {
	if rng.IntN(5) == 0 {
		return randomText(rng, rng.IntN(12))
	}
	ls := cut(old)
	for range rng.IntN(4) {
		switch i := rng.IntN(len(ls) + 1); rng.IntN(3) {
		case 0:
			ls = append(ls[:i], append([]string{string(rune('a'+rng.IntN(5))) + "\n"}, ls[i:]...)...)
		case 1:
			if i < len(ls) {
				ls = append(ls[:i], ls[i+1:]...)
			}
		default:
			if i < len(ls) {
				ls[i] = string(rune('a'+rng.IntN(5))) + "\n"
			}
		}
	}
	s := strings.Join(ls, "")
	if len(s) > 0 && rng.IntN(6) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// cut splits a text into lines as SPEC 4.2 does.
func cut(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func lcs(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// apply patches old with a unified diff, checking every hunk header and
// context line, and counts the deleted and inserted lines.
func apply(old, diff string) (string, int, int, error) {
	a := cut(old)
	var out []string
	pos, dels, ins := 0, 0, 0
	ls := cut(diff)
	for k := 0; k < len(ls); {
		var as, ac, bs, bc int
		if _, err := fmt.Sscanf(ls[k], "@@ -%d,%d +%d,%d @@\n", &as, &ac, &bs, &bc); err != nil {
			return "", 0, 0, fmt.Errorf("line %d: %q is not a hunk header", k, ls[k])
		}
		k++
		start := as - 1
		if ac == 0 {
			start = as
		}
		if start < pos {
			return "", 0, 0, fmt.Errorf("hunk at %d overlaps", as)
		}
		if want := len(out) + start - pos; bs != want+1 && !(bc == 0 && bs == want) {
			return "", 0, 0, fmt.Errorf("hunk +%d,%d: new side starts at line %d", bs, bc, want+1)
		}
		out = append(out, a[pos:start]...)
		pos = start
		gotA, gotB := 0, 0
		for k < len(ls) && !strings.HasPrefix(ls[k], "@@") {
			mark, text := ls[k][0], ls[k][1:]
			k++
			if k < len(ls) && ls[k] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				k++
			}
			switch mark {
			case ' ':
				if pos >= len(a) || a[pos] != text {
					return "", 0, 0, fmt.Errorf("context %q does not match line %d", text, pos+1)
				}
				out = append(out, text)
				pos, gotA, gotB = pos+1, gotA+1, gotB+1
			case '-':
				if pos >= len(a) || a[pos] != text {
					return "", 0, 0, fmt.Errorf("deleted %q does not match line %d", text, pos+1)
				}
				pos, gotA, dels = pos+1, gotA+1, dels+1
			case '+':
				out = append(out, text)
				gotB, ins = gotB+1, ins+1
			default:
				return "", 0, 0, fmt.Errorf("bad line %q", mark)
			}
		}
		if gotA != ac || gotB != bc {
			return "", 0, 0, fmt.Errorf("hunk -%d,%d +%d,%d holds %d and %d lines", as, ac, bs, bc, gotA, gotB)
		}
	}
	out = append(out, a[pos:]...)
	return strings.Join(out, ""), dels, ins, nil
}

func BenchmarkDiffOneLineEdit20000(b *testing.B) {
	var sb strings.Builder
	for i := range 20000 {
		sb.WriteString("\tline " + strconv.Itoa(i) + " of a source file, with some text\n")
	}
	old := []byte(sb.String())
	new := bytes.Replace(old, []byte("line 9999 of"), []byte("line 9999 changed, of"), 1)
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		Diff(old, new, 1)
	}
}

// BenchmarkDiff5000Lines3Edits is the diff that write_file answers for
// three edits of a 5,000-line file (BenchmarkWriteFile5000Lines3Edits in
// package briefing times the whole call).
func BenchmarkDiff5000Lines3Edits(b *testing.B) {
	var sb, nb strings.Builder
	for i := range 5000 {
		line := fmt.Sprintf("\tresult%04d, err := s.handle(ctx, request%04d) // line %d\n", i, i, i+1)
		sb.WriteString(line)
		switch i + 1 {
		case 100:
			line = "\tchanged100 := true\n"
		case 2500:
			line = "\t// inserted before 2500\n" + line
		case 4900, 4901, 4902:
			line = ""
		}
		nb.WriteString(line)
	}
	old, new := []byte(sb.String()), []byte(nb.String())
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		Diff(old, new, 1)
	}
}
