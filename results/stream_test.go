package results

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// checkStream compares a StreamScan of data fed in chunks of step bytes
// with Analyze of the whole: digest, size, lines and the not_utf8 offset.
func checkStream(t *testing.T, data []byte, step int) {
	t.Helper()
	s := NewStreamScan(16)
	for i := 0; i < len(data); i += step {
		s.Write(data[i:min(i+step, len(data))])
	}
	got, gerr := s.Finish()
	want, werr := Analyze(data)
	if werr != nil {
		require.NotNil(t, gerr, "step %d: %q accepted", step, data)
		assert.Equal(t, errcode.NotUTF8, gerr.Code)
		assert.Equal(t, werr.Details, gerr.Details, "step %d: %q", step, data)
		return
	}
	require.Nil(t, gerr, "step %d: %q", step, data)
	assert.Equal(t, sha256.Sum256(data), got.Sum)
	assert.Equal(t, int64(len(data)), got.Size)
	assert.Equal(t, int64(want.Lines.Count()), got.Lines, "step %d: %q", step, data)
	assert.Equal(t, want.CRLF, got.CRLF, "crlf, step %d: %q", step, data)
	assert.Equal(t, !want.FinalNewline(), got.NoFinalNewline, "no final newline, step %d: %q", step, data)
	assert.Equal(t, string(data[:min(len(data), 16+4)]), string(got.Head))
}

func TestStreamScan(t *testing.T) {
	t.Parallel()
	texts := []string{
		"", "a", "\n", "a\nb", "a\r\nb\r\n", "a\r\nb", "a\r\nb\n", "a\rb\r\n", "a\r", "\r\n\r\n", "é", "€ and 𝄞\n", strings.Repeat("日本語\n", 9),
		"ab\x80c", "abc\xe2\x82", "\xc0\xafx", "x\xed\xa0\x80", "€\xe2\x82€", "\xf0\x9d\x84", "𝄞\xff",
	}
	for _, text := range texts {
		for step := 1; step <= 9; step++ {
			checkStream(t, []byte(text), step)
		}
	}
}

func TestStreamScanMaybeJSON(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"":              true, // nothing but whitespace yet
		" \n\t":         true,
		"  {\"a\": 1}":  true,
		"[1]":           true,
		"\"s\"":         true,
		"-1":            true,
		"12":            true,
		"true":          true,
		"false":         true,
		"null":          true,
		"package main":  false,
		"# Title":       false,
		"\n\n// code\n": false,
	} {
		s := NewStreamScan(8)
		s.Write([]byte(text))
		assert.Equal(t, want, s.MaybeJSON(), "%q", text)
	}
}

func FuzzStreamScan(f *testing.F) {
	f.Add([]byte("a\nb€\n"), uint8(1))
	f.Add([]byte("x\xe2\x82"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		checkStream(t, data, int(step)%16+1)
	})
}
