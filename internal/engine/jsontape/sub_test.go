package jsontape

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// TestBuildMaxDepth: Options.MaxDepth replaces the nesting limit, in one
// scan and in a split one, and the error names the limit in force.
func TestBuildMaxDepth(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		doc   string
		limit int
		err   string // "" for none
	}{
		{"default limit", nested(MaxDepth), 0, ""},
		{"past the default limit", nested(MaxDepth + 1), 0, "nesting deeper than 1000 arrays and objects at offset 1000"},
		{"a higher limit", nested(MaxDepth + 1), 10_000, ""},
		{"at the higher limit", nested(10_000), 10_000, ""},
		{"past the higher limit", nested(10_001), 10_000, "nesting deeper than 10000 arrays and objects at offset 10000"},
		{"a lower limit", `{"a":[[1]]}`, 2, "nesting deeper than 2 arrays and objects at offset 6"},
		// Split builds: past splitMin, the depth far from the middle.
		{"split, deep at the start", nested(5000) + strings.Repeat(" ", splitMin), 10_000, ""},
		{"split, deep past the limit", "[" + strings.Repeat(`"x",`, splitMin/4) + nested(2000) + "]", 0, "nesting deeper than 1000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ix, err := Build([]byte(tt.doc), Options{MaxDepth: tt.limit})
			if tt.err == "" {
				require.Nil(t, err)
				assert.Equal(t, Array, ix.Kind(ix.Root()))
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, errcode.InvalidJSON, err.Code)
			assert.Contains(t, err.Msg, tt.err)
		})
	}
}

// TestSubCheck: a value of a document built with a higher nesting limit is
// held to MaxDepth by Check, with the error and offset Build gives for
// the value's bytes alone; a document within MaxDepth needs no scan.
func TestSubCheck(t *testing.T) {
	t.Parallel()
	deep := nested(MaxDepth + 1)
	for _, tt := range []struct {
		name, doc, member string
		want              string // the error's message, "" for none
	}{
		{"shallow", `{"a":[1,[2]],"b":"x"}`, "a", ""},
		{"the value deep", `{"a":` + deep + `}`, "a", "nesting deeper than 1000 arrays and objects at offset 1000"},
		{"another value deep", `{"a":[1],"b":` + deep + `}`, "a", ""},
		{"the value at the limit", `{"a":` + nested(MaxDepth) + `}`, "a", ""},
		{"raw invalid UTF-8 before the depth", `{"a":["` + "\xff" + `",` + deep + `]}`, "a", "nesting deeper than 1000 arrays and objects at offset 1004"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ix, err := Build([]byte(tt.doc), Options{AllowInvalidUTF8: true, MaxDepth: 10_000})
			require.Nil(t, err)
			v, n := ix.Member(ix.Root(), tt.member)
			require.Equal(t, 1, n)
			s := ix.SubOf(v)
			require.True(t, s.Present())
			alone, aloneErr := Build(s.Bytes(), Options{AllowInvalidUTF8: true})
			got := s.Check()
			if tt.want == "" {
				assert.Nil(t, got)
				assert.Nil(t, aloneErr)
				assert.Equal(t, alone.Kind(alone.Root()), s.Kind())
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tt.want, got.Msg)
			assert.Equal(t, aloneErr, got, "the error Build gives for the value alone")
		})
	}
	assert.False(t, Sub{}.Present())
}

// TestSubBytes: a Sub's bytes are the value's lexeme in the document, not
// a copy, and appending to them never writes into the document.
func TestSubBytes(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"a": [1, 2] , "b":"x"}`)
	ix, err := Build(doc, Options{})
	require.Nil(t, err)
	v, _ := ix.Member(ix.Root(), "a")
	b := ix.SubOf(v).Bytes()
	assert.Equal(t, "[1, 2]", string(b))
	assert.Equal(t, len(b), cap(b))
	_ = append(b, '!')
	assert.Equal(t, `{"a": [1, 2] , "b":"x"}`, string(doc))
}
