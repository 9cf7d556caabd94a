package results

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescriptorAppendJSON holds AppendJSON to json.Marshal's bytes, which
// Descriptor and Source leave to reflection (they have no MarshalJSON), for
// every optional member present and absent and strings that json.Marshal
// escapes; and checks the one difference, a lone surrogate in its 3-byte
// form, written back as its escape.
func TestDescriptorAppendJSON(t *testing.T) {
	t.Parallel()
	yes, no, exit := true, false, int64(-3)
	pexit := &exit
	awkward := "<a & b>\u2028\"\\\n\x01é\xff"
	tests := []struct {
		name string
		d    Descriptor
	}{
		{"bare", Descriptor{SHA256: "x"}},
		{"every member", Descriptor{
			ID: new("r1"), SHA256: awkward, Bytes: 9, Lines: 2, Complete: true, JSON: new("object"),
			Source:  Source{Kind: KindEdit, At: new(awkward), Path: new("p<"), Label: new(awkward), ExitCode: &pexit, TimedOut: &no, DroppedBytes: 7},
			Preview: new(awkward), PreviewComplete: &yes, Reused: &no, Retained: true, Reason: ReasonStoreFull,
		}},
		{"empty strings and zeros", Descriptor{ID: new(""), JSON: new(""), Preview: new(""), PreviewComplete: &no, Reused: &yes, Source: Source{Kind: ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := json.Marshal(&tt.d)
			require.NoError(t, err)
			assert.Equal(t, "x"+string(want), string(tt.d.AppendJSON([]byte("x"))))
			src, err := json.Marshal(&tt.d.Source)
			require.NoError(t, err)
			assert.Equal(t, string(src), string(tt.d.Source.AppendJSON(nil)))
		})
	}

	assert.Equal(t, "null", string((*Descriptor)(nil).AppendJSON(nil)))
	at := Descriptor{SHA256: "x", Source: Source{Kind: KindEdit, At: new("/k\xed\xa0\x80")}}
	assert.Contains(t, string(at.AppendJSON(nil)), `"source":{"kind":"edit","at":"/k\ud800"}`)
}

func TestTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data  string
		n     int64
		want  string
		whole bool
	}{
		{"a\nb\nc\n", 6, "a\nb\nc\n", true},
		{"a\nb\nc\n", 100, "a\nb\nc\n", true},
		{"a\nb\nc\n", 5, "b\nc\n", false},
		{"a\nb\nc\n", 4, "b\nc\n", false},
		{"a\nb\nc\n", 3, "c\n", false},
		{"a\nb\nc\n", 1, "\n", false},
		{"x\ny", 1, "y", false},
		{"line\nlong last line", 8, "ast line", false},
		{"ééé", 3, "é", false},
		{"a\n€", 4, "€", false},
		{"abc", 0, "", false},
		{"", 0, "", true},
	}
	for _, tt := range tests {
		got, whole := Tail([]byte(tt.data), tt.n)
		assert.Equal(t, tt.want, got, "%q, %d", tt.data, tt.n)
		assert.Equal(t, tt.whole, whole, "%q, %d", tt.data, tt.n)
	}
}
