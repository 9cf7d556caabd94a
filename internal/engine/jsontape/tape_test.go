package jsontape

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildSparse builds the tape of data under the rule of large documents
// (see smallDocument), whatever its size.
func buildSparse(t *testing.T, data []byte, opts Options) *Index {
	t.Helper()
	b := &builder{}
	sc := newScanner(data, opts.AllowInvalidUTF8, b)
	st, why := sc.run()
	require.Equal(t, done, st, "%v at %d", why, sc.i)
	return newIndex(data, sc.top, b.finish())
}

// TestTapeRecords pins what the tape of a large document records: values
// of at least minOwn bytes of their own (a container's own bytes exclude
// the recorded values inside it), in document order with the number of
// entries inside each, and a checkpoint every checkpointEvery elements
// from firstCheckpoint on. A small document has every string, number and
// container that is not empty recorded.
func TestTapeRecords(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("s", minOwn-2) + `"` // exactly minOwn bytes
	short := `"` + strings.Repeat("s", minOwn-3) + `"`
	pad := strings.Repeat(" ", minOwn)
	tests := []struct {
		name string
		doc  string
		want []entry
	}{
		{"small document", `{"a":[1,2,{"b":null}]}`, nil},
		{"short string", short, nil},
		{"long string", long, []entry{{0, minOwn, 0}}},
		{"long number", strings.Repeat("7", minOwn), []entry{{0, minOwn, 0}}},
		{"empty container", "[" + pad + "]", nil},
		{"container of own bytes", "[" + strings.Repeat("1,", minOwn/2-1) + "1]", []entry{{0, minOwn + 1, 0}}},
		{
			// Two long strings and a comma: 5 bytes of its own.
			"container of recorded values", "[" + long + "," + long + "]",
			[]entry{{1, 1 + minOwn, 0}, {2 + minOwn, 2 + 2*minOwn, 0}},
		},
		{
			// The root has 13 bytes of its own, the array 2.
			"nested", `{"a":[` + long + `],"p":"` + pad + `"}`,
			[]entry{{6, 6 + minOwn, 0}, {12 + minOwn, 14 + 2*minOwn, 0}},
		},
		{
			// The root has its padding of its own, the array its 2 bytes.
			"nested with own bytes", `{"a":[` + long + `],"p":1` + pad + `}`,
			[]entry{{0, 14 + 2*minOwn, 1}, {6, 6 + minOwn, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, buildSparse(t, []byte(tt.doc), Options{}).tape)
		})
	}

	t.Run("small document", func(t *testing.T) {
		t.Parallel()
		ix, err := Build([]byte(`{"a":[1,2,{"b":null}],"c":{},"d":[[3]]}`), Options{})
		require.Nil(t, err)
		assert.Equal(t, []entry{
			{0, 39, 7}, {5, 21, 3}, {6, 7, 0}, {8, 9, 0}, {10, 20, 0}, // null and {} are not recorded
			{33, 38, 2}, {34, 37, 1}, {35, 36, 0},
		}, ix.tape)
	})

	t.Run("checkpoints", func(t *testing.T) {
		t.Parallel()
		elems := make([]string, 2*firstCheckpoint+1)
		for i := range elems {
			elems[i] = strconv.Itoa(i % 10)
		}
		doc := "[" + strings.Join(elems, ",") + "]"
		ix := buildSparse(t, []byte(doc), Options{})
		var got [][2]uint32 // element index, start
		for _, e := range ix.tape[1:] {
			require.True(t, e.checkpoint())
			got = append(got, [2]uint32{e.end, e.start})
		}
		var want [][2]uint32
		for i := firstCheckpoint; i < len(elems); i += checkpointEvery {
			want = append(want, [2]uint32{uint32(i), uint32(1 + 2*i)})
		}
		assert.Equal(t, want, got)
		assert.Equal(t, entry{0, uint32(len(doc)), uint32(len(want))}, ix.tape[0], "the array is recorded")
	})
}

// TestTapeBound checks the tape's cost on the shapes that cost most: at
// most 0.375 bytes per byte of the document (see minOwn), and for records
// and big arrays of small values far less.
func TestTapeBound(t *testing.T) {
	t.Parallel()
	repeat := func(open, elem, close string, size int) string {
		n := (size - len(open) - len(close)) / (len(elem) + 1)
		return open + strings.Repeat(elem+",", n-1) + elem + close
	}
	chain := strings.Repeat("[", 500) + `"` + strings.Repeat("c", minOwn) + `"` + strings.Repeat("]", 500)
	const size = 1 << 20
	tests := []struct {
		name string
		doc  string
		most float64 // tape bytes per document byte
	}{
		{"one-digit numbers", repeat("[", "1", "]", size), 0.2},
		{"empty arrays", repeat("[", "[]", "]", size), 0.13},
		{"one-element arrays", repeat("[", "[1]", "]", size), 0.1},
		{"small records", repeat("[", `{"id":1,"ok":true}`, "]", size), 0.03},
		{"strings of minOwn bytes", repeat("[", `"`+strings.Repeat("x", minOwn-2)+`"`, "]", size), 0.2},
		{"chains", repeat("[", chain, "]", size), 0.2},
		{"deep objects", repeat("[", strings.Repeat(`{"a":`, 300)+"0"+strings.Repeat("}", 300), "]", size), 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ix, err := Build([]byte(tt.doc), Options{})
			require.Nil(t, err)
			per := float64(len(ix.tape)) * float64(unsafe.Sizeof(entry{})) / float64(len(tt.doc))
			assert.LessOrEqual(t, per, tt.most, "%d entries for %d bytes", len(ix.tape), len(tt.doc))
			assert.LessOrEqual(t, per, 0.375)
		})
	}
}

// TestIndexConcurrent makes cold lookups from several goroutines, so that
// they race to index the same large containers; run with -race.
func TestIndexConcurrent(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"arr":[`)
	for i := range 3000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"i":%d}`, i)
	}
	b.WriteString(`],"obj":{`)
	for i := range 3000 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"last":0}}`)
	doc := []byte(b.String())
	ix, err := Build(doc, Options{})
	require.Nil(t, err)
	arr, _ := ix.Member(ix.Root(), "arr")
	obj, _ := ix.Member(ix.Root(), "obj")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				k := (i*7 + g*131) % 3000
				e, ok := ix.Element(arr, k)
				if assert.True(t, ok) {
					v, count := ix.Member(e, "i")
					assert.Equal(t, 1, count)
					assert.Equal(t, strconv.Itoa(k), string(doc[v.start:v.end]))
				}
				v, count := ix.Member(obj, fmt.Sprintf("k%d", k))
				if assert.Equal(t, 1, count) {
					assert.Equal(t, strconv.Itoa(k), string(doc[v.start:v.end]))
				}
			}
			assert.Equal(t, 3000, ix.Len(arr))
			assert.Equal(t, 3001, ix.Len(obj))
		})
	}
	wg.Wait()
}
