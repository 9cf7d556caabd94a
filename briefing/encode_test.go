package briefing

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// TestAnswersAppendJSON holds the answer types' AppendJSON to json.Marshal,
// which they leave to reflection (they have no MarshalJSON), with every
// optional member present and absent and strings that json.Marshal
// escapes.
func TestAnswersAppendJSON(t *testing.T) {
	t.Parallel()
	awkward := "<a & b>\u2028\"\\\n\x01é\xff"
	snap := limits.Snapshot{Step: 2, LookupsUsed: 1, LookupsLeft: 7, BytesUsed: 30, BytesLeft: 9, ExpandBytesUsed: 4, ExpandBytesLeft: 5, Refused: true}
	quoted, escaped := limits.AppendMeasured(nil, awkward)
	sel := Selection{Result: new("r1"), SHA256: awkward, Selection: ByteSelection{Start: 1, End: 5}, Text: awkward, Bytes: 5, EscapedBytes: escaped, Budget: snap}
	withQuoted, lines, numbered, pointer, none := sel, sel, sel, sel, sel
	withQuoted.Quoted = quoted
	lines.Selection = LineSelection{First: 2, Last: 3}
	numbered.Selection = LineSelection{First: 2, Last: 3, Numbered: true}
	pointer.Selection, pointer.Type = PointerSelection{Pointer: "/a~1<b>", As: AsString}, "string"
	none.Selection = nil

	next := int64(2)
	d := results.Descriptor{ID: new("r1"), SHA256: "ab", Bytes: 3, Lines: 1, Source: results.Source{Kind: results.KindFile, Path: new(awkward)}, Retained: true}
	result := "r9"

	tests := []struct {
		name string
		v    interface{ AppendJSON([]byte) []byte }
	}{
		{"selection", &sel},
		{"selection, quoted", &withQuoted},
		{"lines", &lines},
		{"numbered lines", &numbered},
		{"pointer", &pointer},
		{"no selector", &none},
		{"zero selection", &Selection{}},
		{"page", &Page{Page: 1, Pages: 3, Total: 5, Results: []results.Descriptor{d, {SHA256: "cd"}}, Next: &next, Budget: snap, Text: "not a member"}},
		{"last page", &Page{Page: 3, Pages: 3, Total: 5, Results: []results.Descriptor{}}},
		{"zero page", &Page{}},
		{"expansion", &Expansion{At: awkward, Bytes: 3, SHA256: "ef", Parts: 2, Result: &result}},
		{"expansion not retained", &Expansion{At: "", SHA256: "ef"}},
		{"written", &Written{Path: awkward, Bytes: 3, SHA256: "ab", Base: &result, Result: d, Diff: "@@ -1,1 +1,1 @@\n-<a>\n+" + awkward + "\n", Budget: snap, Text: "not a member", lines: 1}},
		{"written, no base", &Written{Path: "a.go", Result: results.Descriptor{SHA256: "cd", Source: results.Source{Kind: results.KindFile}}}},
		{"zero written", &Written{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := json.Marshal(tt.v)
			require.NoError(t, err)
			assert.Equal(t, "x"+string(want), string(tt.v.AppendJSON([]byte("x"))))
		})
	}

	for _, v := range []interface{ AppendJSON([]byte) []byte }{(*Selection)(nil), (*Page)(nil), (*Written)(nil)} {
		assert.Equal(t, "null", string(v.AppendJSON(nil)), "%T", v)
	}
	text, q := withQuoted.QuotedText()
	assert.Equal(t, awkward, text)
	assert.Equal(t, string(quoted), string(q))
	text, q = (*Selection)(nil).QuotedText()
	assert.Empty(t, text)
	assert.Nil(t, q)
}

// TestAnswersAppendJSONSurrogates: a lone surrogate that a client sent
// (a pointer, an edit's at), kept in its 3-byte form, is written back as
// its escape, where json.Marshal would write U+FFFD.
func TestAnswersAppendJSONSurrogates(t *testing.T) {
	t.Parallel()
	lone := "/k\xed\xa0\x80"
	sel := &Selection{Selection: PointerSelection{Pointer: lone, As: AsLexeme}}
	assert.Contains(t, string(sel.AppendJSON(nil)), `"selection":{"pointer":"/k\ud800","as":"lexeme"}`)
	x := &Expansion{At: lone}
	assert.Contains(t, string(x.AppendJSON(nil)), `{"at":"/k\ud800",`)
}
