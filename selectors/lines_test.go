package selectors

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"loom-results/errcode"
)

func TestLineCount(t *testing.T) {
	t.Parallel()
	// SPEC 4.2's own examples, and more.
	tests := []struct {
		text string
		want int
	}{
		{"", 0}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"a\r\nb\r\n", 2},
		{"\n", 1}, {"\n\n", 2}, {"a\rb", 1}, {"a\r", 1}, {"\r\n\r\n\r", 3},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.text, "\n", `\n`), func(t *testing.T) {
			t.Parallel()
			l, err := ScanText([]byte(tt.text))
			require.Nil(t, err)
			assert.Equal(t, tt.want, l.Count())
		})
	}
}

func TestLineRange(t *testing.T) {
	t.Parallel()
	data := []byte("one\r\ntwo\nthree")
	l, err := ScanText(data)
	require.Nil(t, err)
	tests := []struct {
		name        string
		first, last int64
		want        string
		code        errcode.Code
	}{
		{"first line keeps its CRLF", 1, 1, "one\r\n", ""},
		{"middle", 2, 2, "two\n", ""},
		{"last without newline", 3, 3, "three", ""},
		{"all", 1, 3, "one\r\ntwo\nthree", ""},
		{"zero", 0, 1, "", errcode.InvalidRange},
		{"past the end", 2, 4, "", errcode.InvalidRange},
		{"first after last", 3, 2, "", errcode.InvalidRange},
		{"first past the end", 4, 4, "", errcode.InvalidRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := l.Range(tt.first, tt.last)
			if tt.code != "" {
				require.NotNil(t, err)
				assert.Equal(t, tt.code, err.Code)
				assert.Equal(t, map[string]any{"lines": int64(3)}, err.Details)
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.want, string(data[got.Start:got.End]))
		})
	}
}

func TestLineRangeMessages(t *testing.T) {
	t.Parallel()
	l, _ := ScanText([]byte(strings.Repeat("x\n", 84)))
	_, err := l.Range(90, 120)
	assert.Equal(t, "error invalid_range: lines 90-120 outside 1-84", err.Error())
	empty, _ := ScanText(nil)
	_, err = empty.Range(1, 1)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidRange, err.Code)
	assert.Equal(t, map[string]any{"lines": int64(0)}, err.Details)
}

func TestLineContent(t *testing.T) {
	t.Parallel()
	data := []byte("a\r\nb\n\r\nc\r")
	l, err := ScanText(data)
	require.Nil(t, err)
	var got []string
	for n := 1; n <= l.Count(); n++ {
		c := l.Content(data, n)
		got = append(got, string(data[c.Start:c.End]))
	}
	assert.Equal(t, []string{"a", "b", "", "c\r"}, got)
	assert.Equal(t, 1, l.LineAt(0))
	assert.Equal(t, 1, l.LineAt(2))
	assert.Equal(t, 2, l.LineAt(3))
	assert.Equal(t, 4, l.LineAt(8))
}

func TestScanTextNotUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want int64
	}{
		{"lone continuation", []byte("ab\x80c"), 2},
		{"truncated sequence at end", []byte("abc\xe2\x82"), 3},
		{"overlong", []byte("\xc0\xafx"), 0},
		{"UTF-8 encoded surrogate", []byte("x\xed\xa0\x80"), 1},
		{"past a block boundary", append([]byte(strings.Repeat("é", scanChunk)), 0xff), 2 * scanChunk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ScanText(tt.data)
			require.NotNil(t, err)
			assert.Equal(t, errcode.NotUTF8, err.Code)
			assert.Equal(t, tt.want, err.Details["offset"])
		})
	}
}

// TestScanTextBlocks checks that multi-byte characters and newlines that
// straddle the scan's block boundaries are neither refused nor lost.
func TestScanTextBlocks(t *testing.T) {
	t.Parallel()
	for shift := 0; shift < 4; shift++ {
		data := []byte(strings.Repeat("x", scanChunk-2+shift) + "€\n" + strings.Repeat("ab\n", 3))
		l, err := ScanText(data)
		require.Nil(t, err)
		assert.Equal(t, 4, l.Count())
		s := l.Line(2)
		assert.Equal(t, "ab\n", string(data[s.Start:s.End]))
	}
}

func FuzzLineRange(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), int64(1), int64(2))
	f.Add([]byte(""), int64(1), int64(1))
	f.Add([]byte("\n\n"), int64(2), int64(2))
	f.Fuzz(func(t *testing.T, data []byte, first, last int64) {
		l, err := ScanText(data)
		if err != nil {
			return
		}
		// The lines tile the data exactly.
		end := 0
		for n := 1; n <= l.Count(); n++ {
			s := l.Line(n)
			if s.Start != end || s.End <= s.Start {
				t.Fatalf("line %d is %v after %d", n, s, end)
			}
			end = s.End
		}
		if end != len(data) {
			t.Fatalf("lines end at %d of %d", end, len(data))
		}
		got, rerr := l.Range(first, last)
		if rerr != nil {
			if rerr.Code != errcode.InvalidRange {
				t.Fatalf("unexpected code %s", rerr.Code)
			}
			return
		}
		if got.Start < 0 || got.Start > got.End || got.End > len(data) {
			t.Fatalf("span %v outside %d bytes", got, len(data))
		}
	})
}
