package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

func text(t *testing.T, s string) *Text {
	t.Helper()
	got, err := Analyze([]byte(s))
	require.Nil(t, err)
	return got
}

func file(path string) Source { return Source{Kind: KindFile, Path: &path} }

func TestAnalyze(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("line\n", 100_000) // over parallelHash: hashed on another goroutine
	tests := []struct {
		name  string
		data  string
		lines int
		json  string
	}{
		{"empty", "", 0, ""},
		{"text", "a\nb", 2, ""},
		{"json object", ` {"a": [1, 2]} `, 1, "object"},
		{"json number", "1.000000000000000000001\n", 1, "number"},
		{"json string", `"x"`, 1, "string"},
		{"almost json", `{"a":1,}`, 1, ""},
		{"big", big, 100_000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := text(t, tt.data)
			sum := sha256.Sum256([]byte(tt.data))
			assert.Equal(t, hex.EncodeToString(sum[:]), got.Hex())
			assert.Equal(t, tt.lines, got.Lines.Count())
			assert.Equal(t, tt.json, string(got.JSON))
		})
	}
}

// TestAnalyzeJSONIndex checks that Analyze leaves a JSON text indexed, so
// that the first pointer lookup scans nothing, and that a text that is not
// JSON answers with the scan's error, at the same offset.
func TestAnalyzeJSONIndex(t *testing.T) {
	t.Parallel()
	big := `{"items":[` + strings.Repeat(`{"id":1,"name":"x"},`, 100_000) + `{"id":2}]}` // split in two halves
	tests := []struct {
		name    string
		data    string
		indexed bool
		offset  int64 // of the invalid_json error, when not indexed
	}{
		{"object", ` {"a": [1, 2]} `, true, 0},
		{"big", big, true, 0},
		{"text", "package main\n", false, 0},
		{"trailing comma", `{"a":1,}`, false, 7},
		{"ndjson", "{\"a\":1}\n{\"a\":2}\n", false, 8},
		{"invalid UTF-8", "[\"\xff\"]", false, 2},
		{"empty", "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tt.data)
			got, err := Analyze(data)
			if tt.name == "invalid UTF-8" {
				require.NotNil(t, err)
				assert.Equal(t, errcode.NotUTF8, err.Code)
				return
			}
			require.Nil(t, err)
			r := &Result{ID: "r1", Text: got}
			ix, jerr := r.JSON()
			if tt.indexed {
				require.Nil(t, jerr)
				require.NotNil(t, got.Index, "indexed by Analyze")
				assert.Same(t, got.Index, ix)
				assert.Equal(t, got.JSON, ix.Type())
				return
			}
			assert.Nil(t, got.Index)
			assert.Nil(t, ix)
			require.NotNil(t, jerr)
			assert.Equal(t, errcode.InvalidJSON, jerr.Code)
			assert.Equal(t, errcode.Details{Offset: new(tt.offset)}, jerr.Details, jerr.Msg)
			_, again := r.JSON()
			assert.Same(t, jerr, again, "the error is found once")
		})
	}
}

func TestAnalyzeNotUTF8(t *testing.T) {
	t.Parallel()
	_, err := Analyze([]byte("ok\nbad\xff"))
	require.NotNil(t, err)
	assert.Equal(t, errcode.NotUTF8, err.Code)
	assert.Equal(t, errcode.Details{Offset: new(int64(6))}, err.Details)
}

func TestStoreIDsAndReuse(t *testing.T) {
	t.Parallel()
	s := NewStore(limits.Defaults(), nil)
	a := s.Retain(text(t, "a"), true, file("a.go"))
	require.NotNil(t, a.Result)
	assert.Equal(t, "r1", a.Result.ID)
	assert.False(t, a.Reused)

	// Same bytes, completeness and source: the same ID, no capacity used.
	again := s.Retain(text(t, "a"), true, file("a.go"))
	assert.Same(t, a.Result, again.Result)
	assert.True(t, again.Reused)
	assert.Equal(t, int64(1), s.Bytes())

	// Any difference is a new result.
	assert.Equal(t, "r2", s.Retain(text(t, "a"), true, file("b.go")).Result.ID)
	assert.Equal(t, "r3", s.Retain(text(t, "a"), false, file("a.go")).Result.ID)
	assert.Equal(t, "r4", s.Retain(text(t, "b"), true, file("a.go")).Result.ID)
	label := "x"
	assert.Equal(t, "r5", s.Retain(text(t, "a"), true, Source{Kind: KindOutput, Label: &label}).Result.ID)
	assert.Equal(t, "r6", s.Retain(text(t, "a"), true, Source{Kind: KindOutput, Label: &label, DroppedBytes: 3}).Result.ID)
	assert.Equal(t, 6, s.Len())
}

// TestStoreReuseLoneSurrogates checks that sources are compared byte for
// byte: two at pointers that differ only in a lone surrogate (kept in its
// 3-byte form) are two sources, and the listing writes each back as its
// escape, never as U+FFFD.
func TestStoreReuseLoneSurrogates(t *testing.T) {
	t.Parallel()
	s := NewStore(limits.Defaults(), nil)
	edit := func(at string) Source { return Source{Kind: KindEdit, At: &at} }
	a := s.Retain(text(t, "x"), true, edit("/k\xed\xa0\x80"))
	b := s.Retain(text(t, "x"), true, edit("/k\xed\xb0\x80"))
	c := s.Retain(text(t, "x"), true, edit("/k\ufffd\ufffd\ufffd"))
	require.NotNil(t, a.Result)
	require.NotNil(t, b.Result)
	require.NotNil(t, c.Result)
	assert.Equal(t, []string{"r1", "r2", "r3"}, []string{a.Result.ID, b.Result.ID, c.Result.ID})
	assert.False(t, b.Reused)
	assert.False(t, c.Reused)
	again := s.Retain(text(t, "x"), true, edit("/k\xed\xa0\x80"))
	assert.Same(t, a.Result, again.Result)
	assert.True(t, again.Reused)

	listedJSON := func(r *Result) string {
		d := r.Listed()
		d.SHA256 = d.SHA256[:12]
		return string(d.AppendJSON(nil))
	}
	assert.Equal(t, `{"id":"r1","sha256":"2d711642b726","bytes":1,"lines":1,"complete":true,`+
		`"source":{"kind":"edit","at":"/k\ud800"},"json":null,"retained":true}`, listedJSON(a.Result))
	assert.Contains(t, listedJSON(b.Result), `"at":"/k\udc00"`)

	// Any other listing is what json.Marshal writes.
	label, code, timedOut := "go <test> & \"x\"\n\u2028", int64(-1), false
	pcode := &code
	src := Source{Kind: KindOutput, Label: &label, ExitCode: &pcode, TimedOut: &timedOut, DroppedBytes: 7}
	r := s.Retain(text(t, "[1]"), false, src).Result
	require.NotNil(t, r)
	short := r.Listed()
	short.SHA256 = short.SHA256[:12]
	want, err := json.Marshal(short)
	require.NoError(t, err)
	assert.Equal(t, string(want), listedJSON(r))
}

func TestStoreGet(t *testing.T) {
	t.Parallel()
	s := NewStore(limits.Defaults(), nil)
	_, err := s.Get("r1")
	require.NotNil(t, err)
	assert.Equal(t, errcode.UnknownResult, err.Code)
	assert.Equal(t, `no result "r1" in this session; it holds none yet: inspect a file (or find over paths) to retain one`, err.Msg)

	s.Retain(text(t, "a"), true, file("a"))
	s.Retain(text(t, "b"), true, file("b"))
	got, err := s.Get("r2")
	require.Nil(t, err)
	assert.Equal(t, "b", string(got.Text.Data))
	for _, id := range []string{"r0", "r3", "r01", "r+1", "r-1", "R1", "1", "r", "", "r1 ", "r99999999999999999999"} {
		_, err := s.Get(id)
		require.NotNil(t, err, id)
		assert.Equal(t, errcode.UnknownResult, err.Code, id)
	}
}

func TestStoreCaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		adjust func(*limits.Config)
		sizes  []int
		kept   []bool
	}{
		{"result cap", func(c *limits.Config) { c.MaxResultBytes = 3 }, []int{3, 4, 1}, []bool{true, false, true}},
		{"store cap", func(c *limits.Config) { c.MaxStoreBytes = 5 }, []int{3, 3, 2, 1}, []bool{true, false, true, false}},
		{"count cap", func(c *limits.Config) { c.MaxResults = 2 }, []int{1, 2, 3}, []bool{true, true, false}},
		{"process cap", func(c *limits.Config) { c.MaxTotalBytes = 4 }, []int{3, 2, 1}, []bool{true, false, true}},
		{"zero results", func(c *limits.Config) { c.MaxResults = 0 }, []int{1}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			tt.adjust(&cfg)
			s := NewStore(cfg, nil)
			for i, n := range tt.sizes {
				got := s.Retain(text(t, strings.Repeat(string(rune('a'+i)), n)), true, file("f"))
				assert.Equal(t, tt.kept[i], got.Result != nil, "result %d", i)
			}
		})
	}
}

func TestStoreFullKeepsReferences(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 1
	s := NewStore(cfg, nil)
	first := s.Retain(text(t, "a"), true, file("a"))
	assert.Nil(t, s.Retain(text(t, "b"), true, file("b")).Result)
	// Nothing is evicted, and reuse needs no capacity.
	got, err := s.Get("r1")
	require.Nil(t, err)
	assert.Same(t, first.Result, got)
	assert.True(t, s.Retain(text(t, "a"), true, file("a")).Reused)
}

func TestQuotaSharedAndReleased(t *testing.T) {
	t.Parallel()
	q := NewQuota(4)
	a := NewStore(limits.Defaults(), q)
	b := NewStore(limits.Defaults(), q)
	require.NotNil(t, a.Retain(text(t, "aaa"), true, file("a")).Result)
	assert.Nil(t, b.Retain(text(t, "bb"), true, file("b")).Result, "the process cap counts both briefings")
	a.Close()
	assert.Equal(t, int64(0), q.Used())
	assert.NotNil(t, b.Retain(text(t, "bb"), true, file("b")).Result, "a closed briefing's bytes are freed")
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	s := NewStore(limits.Defaults(), nil)
	tx := text(t, "héllo\nworld\n")
	got := s.Retain(tx, true, file("a.txt"))
	d := Describe(tx, true, file("a.txt"), got, Full, 2)
	require.NotNil(t, d.ID)
	assert.Equal(t, "r1", *d.ID)
	assert.Equal(t, "h", *d.Preview, "the preview ends on a character boundary")
	assert.False(t, *d.PreviewComplete)
	assert.False(t, *d.Reused)
	assert.Equal(t, int64(13), d.Bytes)
	assert.Equal(t, int64(2), d.Lines)
	assert.Nil(t, d.JSON)
	assert.True(t, d.Retained)

	d = Describe(tx, true, file("a.txt"), got, Full, 100)
	assert.Equal(t, "héllo\nworld\n", *d.Preview)
	assert.True(t, *d.PreviewComplete)

	d = Describe(tx, true, file("a.txt"), got, Compact, 100)
	assert.Nil(t, d.Preview)
	assert.Nil(t, d.PreviewComplete)
	assert.NotNil(t, d.Reused)

	d = got.Result.Listed()
	assert.Nil(t, d.Preview)
	assert.Nil(t, d.Reused)

	d = Describe(tx, true, file("a.txt"), Retained{}, Full, 3)
	assert.Nil(t, d.ID)
	assert.False(t, d.Retained)
	assert.Equal(t, ReasonStoreFull, d.Reason)
	assert.Equal(t, "hé", *d.Preview)
	assert.Equal(t, tx.Hex(), d.SHA256)
}

// TestDigest checks the digest computed while a buffer is filled against
// sha256.Sum256, for buffers below and above the size that starts its
// goroutine, fed in several prefixes or not at all, and a stopped one.
func TestDigest(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3*parallelHash+77)
	for i := range data {
		data[i] = byte(i * 31)
	}
	for _, size := range []int{0, 10, parallelHash - 1, parallelHash, len(data)} {
		for _, step := range []int{0, 1000, parallelHash / 3, parallelHash} {
			var d Digest
			if step > 0 {
				for n := step; n < size+step; n += step {
					d.Watch(data[:min(n, size)])
				}
			}
			assert.Equal(t, sha256.Sum256(data[:size]), d.Sum(data[:size]), "size %d step %d", size, step)
		}
	}
	var d Digest
	d.Watch(data)
	d.Stop()
	d.Stop()
}
