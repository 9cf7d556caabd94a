package selectors

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
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
				assert.Equal(t, errcode.Details{Lines: new(int64(3))}, err.Details)
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
	tests := []struct {
		name        string
		first, last int64
		want        string
	}{
		{"past the end", 90, 120, "error invalid_range: lines 90-120 outside 1-84"},
		{"first is zero", 0, 10, "error invalid_range: lines 0-10 outside 1-84"},
		{"first after last", 20, 10, "error invalid_range: lines 20-10: first is after last; need 1 <= first <= last <= 84"},
		{"last zero, as a cleared form field sends it", 83, 0, "error invalid_range: lines 83-0: first is after last; need 1 <= first <= last <= 84"},
		{"first past the end and after last", 90, 10, "error invalid_range: lines 90-10 outside 1-84"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := l.Range(tt.first, tt.last)
			require.NotNil(t, err)
			assert.Equal(t, tt.want, err.Text())
			assert.Equal(t, errcode.Details{Lines: new(int64(84))}, err.Details)
		})
	}
	empty, _ := ScanText(nil)
	_, err := empty.Range(1, 1)
	require.NotNil(t, err)
	assert.Equal(t, errcode.InvalidRange, err.Code)
	assert.Equal(t, errcode.Details{Lines: new(int64(0))}, err.Details)
}

func TestLineContent(t *testing.T) {
	t.Parallel()
	data := []byte("a\r\nb\n\r\nc\r")
	l, err := ScanText(data)
	require.Nil(t, err)
	var got []string
	for n := 1; n <= l.Count(); n++ {
		c := l.Content(n)
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
		{"past a block boundary", append([]byte(strings.Repeat("é", lineBlock)), 0xff), 2 * lineBlock},
		{"after a run of multi-byte characters", []byte("abcdefgh€€€\xe2\x82x"), 17},
		{"in the last bytes of a word", []byte("abcdefg\xff"), 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ScanText(tt.data)
			require.NotNil(t, err)
			assert.Equal(t, errcode.NotUTF8, err.Code)
			assert.Equal(t, errcode.Details{Offset: new(tt.want)}, err.Details)
		})
	}
}

// TestScanTextBlocks checks that multi-byte characters and newlines that
// straddle words and index blocks are neither refused nor lost.
func TestScanTextBlocks(t *testing.T) {
	t.Parallel()
	for shift := 0; shift < 12; shift++ {
		data := []byte(strings.Repeat("x", lineBlock-2+shift) + "€\n" + strings.Repeat("ab\n", 3))
		l, err := ScanText(data)
		require.Nil(t, err)
		assert.Equal(t, 4, l.Count())
		s := l.Line(2)
		assert.Equal(t, "ab\n", string(data[s.Start:s.End]))
		assert.Equal(t, lineBlock-2+shift+4, l.Start(2))
	}
}

// TestLinesAgainstReference compares the sparse index with a plain list
// of line starts on texts whose lines are shorter than a word, about a
// block, and many blocks long.
func TestLinesAgainstReference(t *testing.T) {
	t.Parallel()
	texts := map[string]string{
		"newlines only":     strings.Repeat("\n", 3*lineBlock+5),
		"short lines":       strings.Repeat("a\n", 2000),
		"CRLF":              strings.Repeat("ab\r\n", 700) + "end",
		"block-sized lines": strings.Repeat(strings.Repeat("y", lineBlock-1)+"\n", 9),
		"long line":         "first\n" + strings.Repeat("é", 5*lineBlock) + "\nlast",
		"long final line":   "a\nb\n" + strings.Repeat("z", 4*lineBlock),
		"mixed":             strings.Repeat("€ x\n\n"+strings.Repeat("q", 700)+"\n中文\r\n", 40),
		"ends in block":     strings.Repeat("w", lineBlock-1) + "\n",
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkLines(t, []byte(text))
		})
	}
}

// checkLines checks every method of ScanText's index against a plain list
// of line starts.
func checkLines(t *testing.T, data []byte) {
	t.Helper()
	l, err := ScanText(data)
	require.Nil(t, err)
	var starts []int
	for i := range data {
		if i == 0 || data[i-1] == '\n' {
			starts = append(starts, i)
		}
	}
	require.Equal(t, len(starts), l.Count())
	for n, s := range starts {
		end := len(data)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		require.Equal(t, Span{s, end}, l.Line(n+1), "line %d", n+1)
		require.Equal(t, s, l.Start(n+1))
	}
	require.Equal(t, len(data), l.Start(len(starts)+1))
	line := 0
	for off := range data {
		if line < len(starts) && starts[line] == off {
			line++
		}
		require.Equal(t, line, l.LineAt(off), "offset %d", off)
	}
	n := 0
	for got, span := range l.All() {
		n++
		require.Equal(t, n, got)
		require.Equal(t, l.Line(n), span)
	}
	require.Equal(t, len(starts), n)
}

func FuzzLineRange(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), int64(1), int64(2))
	f.Add([]byte(""), int64(1), int64(1))
	f.Add([]byte("\n\n"), int64(2), int64(2))
	f.Add([]byte(strings.Repeat("ab\né\n", 200)), int64(3), int64(300))
	f.Fuzz(func(t *testing.T, data []byte, first, last int64) {
		l, err := ScanText(data)
		if !utf8.Valid(data) {
			require.NotNil(t, err, "invalid UTF-8 accepted")
			require.Equal(t, errcode.Details{Offset: new(int64(firstInvalidRef(data)))}, err.Details)
			return
		}
		require.Nil(t, err)
		checkLines(t, data)
		got, rerr := l.Range(first, last)
		if rerr != nil {
			require.Equal(t, errcode.InvalidRange, rerr.Code)
			return
		}
		require.Equal(t, l.Line(int(first)).Start, got.Start)
		require.Equal(t, l.Line(int(last)).End, got.End)
	})
}

// firstInvalidRef is the offset of the first invalid UTF-8 sequence.
func firstInvalidRef(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// TestScanTextHalves checks the two-half scan against the one-pass scan,
// split at every offset of texts whose lines, characters and errors fall
// on either side of the split and of block boundaries.
func TestScanTextHalves(t *testing.T) {
	t.Parallel()
	texts := []string{
		"a\nb\n", "\n\n\n", "no newline at all" + strings.Repeat("é", 300),
		strings.Repeat("é\n€x\n", 200), strings.Repeat("ab\r\n", 300) + "end",
		strings.Repeat("z", 2*lineBlock+7) + "\n" + strings.Repeat("中文\n", 150),
		"x\n" + strings.Repeat("y", 3*lineBlock) + "\n",
		strings.Repeat("x", 1500) + "\xe2\x82", strings.Repeat("€", 400) + "\xff" + strings.Repeat("y\n", 50),
		"\xff" + strings.Repeat("a\n", 700), strings.Repeat("a\n", 700) + "\xc3",
	}
	for _, text := range texts {
		data := []byte(text)
		want, werr := scanText(data, -1)
		for at := 0; at <= len(data); at += 1 + len(data)/300 {
			got, gerr := scanText(data, at)
			if werr != nil {
				require.NotNil(t, gerr, "split %d", at)
				require.Equal(t, werr.Details, gerr.Details, "split %d", at)
				continue
			}
			require.Nil(t, gerr, "split %d", at)
			require.Equal(t, want.count, got.count, "split %d", at)
			require.Equal(t, want.marks, got.marks, "split %d of %q", at, text[:min(len(text), 40)])
		}
	}
}

func FuzzScanTextHalves(f *testing.F) {
	f.Add([]byte("a\nb€\n"), uint16(2))
	f.Add([]byte("x\xe2\x82\n\n"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		want, werr := scanText(data, -1)
		got, gerr := scanText(data, int(at)%(len(data)+1))
		if werr != nil {
			require.NotNil(t, gerr)
			require.Equal(t, werr.Details, gerr.Details)
			return
		}
		require.Nil(t, gerr)
		require.Equal(t, want.count, got.count)
		require.Equal(t, want.marks, got.marks)
	})
}

// TestTwoByteOnly checks the word test of two-byte characters against
// decoding, over words made of ASCII, valid two-byte characters and any
// of the bytes that lead or continue other sequences, at every position.
func TestTwoByteOnly(t *testing.T) {
	t.Parallel()
	others := []byte{0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE2, 0xED, 0xF0, 0xF4, 0xF8, 0xFF}
	rng := rand.New(rand.NewPCG(1, 2))
	valid := 0
	for range 300000 {
		var b []byte
		for len(b) < 8 {
			switch r := rng.IntN(10); {
			case r < 5:
				b = append(b, byte(rng.IntN(0x80)))
			case r < 8:
				b = append(b, byte(0xC2+rng.IntN(0xE0-0xC2)), byte(0x80+rng.IntN(0x40)))
			default:
				b = append(b, others[rng.IntN(len(others))])
			}
		}
		word := b[:8]
		want := true
	decode:
		for i := 0; i < len(word); {
			switch c := word[i]; {
			case c < 0x80:
				i++
			case c >= 0xC2 && c <= 0xDF && i+1 < len(word) && word[i+1]&0xC0 == 0x80:
				i += 2
			default:
				want = false
				break decode
			}
		}
		if want {
			valid++
		}
		require.Equal(t, want, twoByteOnly(binary.LittleEndian.Uint64(word)), "% x", word)
	}
	require.Greater(t, valid, 10000, "too few valid words to test")
}

// TestTextScanFeeds: a text scanned in prefixes of any lengths, as a file
// is read, gives exactly ScanText's index, or its error at the same
// offset.
func TestTextScanFeeds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	fed := 0 // valid texts long enough to be scanned in parts
	defer func() { assert.Greater(t, fed, 300) }()
	pieces := []string{"a", "line\n", "\r\n", "é", "€", "😀", "\n", strings.Repeat("x", 700), "\n\n"}
	for round := range 500 {
		var b strings.Builder
		size := rng.IntN(20000)
		for b.Len() < size {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		data := []byte(b.String())
		if len(data) > 0 && rng.IntN(5) == 0 {
			// A fifth of the texts hold one invalid sequence somewhere.
			at := rng.IntN(len(data))
			data = append(data[:at:at], append([]byte([]string{"\xff", "\xe2\x82", "\xc3"}[rng.IntN(3)]), data[at:]...)...)
		}
		want, wantErr := ScanText(data)
		var ts TextScan
		for n := 0; n < len(data); {
			n = min(len(data), n+1+rng.IntN(3000))
			ts.Feed(data[:n])
		}
		got, gotErr := ts.Lines(data)
		if len(data) >= 4<<10 && wantErr == nil {
			fed++
		}
		if wantErr != nil {
			require.NotNil(t, gotErr, "round %d", round)
			assert.Equal(t, wantErr.Details, gotErr.Details, "round %d", round)
			continue
		}
		require.Nil(t, gotErr, "round %d: %v", round, gotErr)
		assert.Equal(t, want.count, got.count, "round %d", round)
		assert.Equal(t, want.marks, got.marks, "round %d", round)
	}
}
