// Package jsontest holds what the encoder tests of server and transport
// share: texts that exercise every escape of a JSON string, and the one
// normalization that makes the servers' encoding comparable with
// json.Marshal's.
package jsontest

import "strings"

// Awkward are texts that exercise every escape of a JSON string.
var Awkward = func() []string {
	var ctl strings.Builder
	for c := range 0x20 {
		ctl.WriteByte(byte(c))
	}
	ctl.WriteString("\x7f")
	return []string{
		"",
		ctl.String(),
		`<script>alert("x & y")</script>`,
		"line\u2028sep\u2029para",
		"é€😀 日本語 \U0010FFFF \uFFFD",
		`quote " backslash \ slash /`,
		"tab\there\r\nnew\nline\f\b",
		"bad \xff byte", "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 too big", "cut \xe2\x80", "\xc0\xaf overlong",
		"\u2028", "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa",
		strings.Repeat("ascii text of a source file, 40 bytes.\n", 500),
		strings.Repeat("<&>\"\\\u2028é\x01", 300),
	}
}()

// AsMarshal turns the servers' one difference from json.Marshal back
// (limits.AppendJSONString, which writes every string of an answer):
// a surrogate escape (\ud800-\udfff), which it writes for the
// 3-byte form of a lone surrogate, becomes the three \ufffd that
// json.Marshal writes for those bytes. Neither writes such an escape
// otherwise, so the two outputs are equal exactly when this makes them so.
func AsMarshal(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) && b[i+2] == 'd' && strings.IndexByte("89abcdef", b[i+3]) >= 0 {
			out = append(out, `\ufffd\ufffd\ufffd`...)
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}
