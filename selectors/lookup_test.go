package selectors

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

const lookupDoc = ` {
  "a": [10, 20, {"b": "x"}],
  "m~n": 1, "a/b": 2, "": 3, " ": 4, "é": 5, "%": 6,
  "num": 1.000000000000000000001,
  "neg": -0.0e-10,
  "big": 123456789012345678901234567890,
  "obj": { "k" : [ 1 , 2 ] ,
           "l":{} },
  "s": "\ud800",
  "esc\u0041": "A-escaped name",
  "dup": 1, "dup": 2,
  "d": {"x": {"y": 1, "y": 2}, "z": 3},
  "two": {"a": {"b": 1}, "\u0061": {"c": 2}},
  "e": [],
  "o": {},
  "t": true, "f": false, "n": null
}
`

func TestLookup(t *testing.T) {
	t.Parallel()
	ix, ierr := jsontape.Build([]byte(lookupDoc), jsontape.Options{})
	require.Nil(t, ierr)
	tests := []struct {
		pointer  string
		want     string // the lexeme
		wantType jsontape.Type
	}{
		{"", strings.TrimSpace(lookupDoc), jsontape.Object},
		{"#", strings.TrimSpace(lookupDoc), jsontape.Object},
		{"/a", `[10, 20, {"b": "x"}]`, jsontape.Array},
		{"/a/0", `10`, jsontape.Number},
		{"/a/1", `20`, jsontape.Number},
		{"/a/2", `{"b": "x"}`, jsontape.Object},
		{"/a/2/b", `"x"`, jsontape.String},
		{"/m~0n", `1`, jsontape.Number},
		{"/a~1b", `2`, jsontape.Number},
		{"/", `3`, jsontape.Number},
		{"/ ", `4`, jsontape.Number},
		{"/é", `5`, jsontape.Number},
		{"#/%C3%A9", `5`, jsontape.Number},
		{"#/%25", `6`, jsontape.Number},
		{"/%", `6`, jsontape.Number},
		{"#/m%7E0n", `1`, jsontape.Number},
		{"#/a~1b", `2`, jsontape.Number},
		{"/num", `1.000000000000000000001`, jsontape.Number},
		{"/neg", `-0.0e-10`, jsontape.Number},
		{"/big", `123456789012345678901234567890`, jsontape.Number},
		{"/obj", "{ \"k\" : [ 1 , 2 ] ,\n           \"l\":{} }", jsontape.Object},
		{"/obj/k", `[ 1 , 2 ]`, jsontape.Array},
		{"/obj/k/1", `2`, jsontape.Number},
		{"/obj/l", `{}`, jsontape.Object},
		{"/s", `"\ud800"`, jsontape.String},
		{"/escA", `"A-escaped name"`, jsontape.String},
		{"/d", `{"x": {"y": 1, "y": 2}, "z": 3}`, jsontape.Object},
		{"/d/x", `{"y": 1, "y": 2}`, jsontape.Object}, // duplicates off the path do not matter
		{"/d/z", `3`, jsontape.Number},
		{"/e", `[]`, jsontape.Array},
		{"/o", `{}`, jsontape.Object},
		{"/t", `true`, jsontape.Boolean},
		{"/f", `false`, jsontape.Boolean},
		{"/n", `null`, jsontape.Null},
	}
	for _, tt := range tests {
		t.Run(tt.pointer, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePointer(tt.pointer)
			require.Nil(t, err)
			got, err := Lookup(ix, p)
			require.Nil(t, err)
			assert.Equal(t, tt.want, lookupDoc[got.Start:got.End])
			assert.Equal(t, tt.wantType, got.Type)
		})
	}
}

func TestLookupErrors(t *testing.T) {
	t.Parallel()
	ix, ierr := jsontape.Build([]byte(lookupDoc), jsontape.Options{})
	require.Nil(t, ierr)
	tests := []struct {
		pointer string
		want    errcode.Code
		wantMsg string
	}{
		{"/a/3", errcode.PointerNotFound, `token "3" at /a: array index out of range; it has 3 elements (0-2)`},
		{"/a/-", errcode.PointerNotFound, `token "-" at /a: "-" is the position after the last element of the array, which never exists; it has 3 elements (0-2)`},
		{"/a/99999999999999999999999", errcode.PointerNotFound, ""},
		{"/a/01", errcode.InvalidPointer, `token "01" at /a: an array index is 0 or a decimal without leading zeros (or "-")`},
		{"/a/00", errcode.InvalidPointer, ""},
		{"/a/x", errcode.InvalidPointer, ""},
		{"/a/-1", errcode.InvalidPointer, ""},
		{"/a/+1", errcode.InvalidPointer, ""},
		{"/a/1.0", errcode.InvalidPointer, ""},
		{"/a/ 1", errcode.InvalidPointer, ""},
		{"/a/", errcode.InvalidPointer, ""}, // the empty token
		{"/a/x/0", errcode.InvalidPointer, ""},
		{"/a/9/x", errcode.PointerNotFound, ""},
		{"/e/0", errcode.PointerNotFound, `token "0" at /e: array index out of range; it is empty`},
		{"/e/-", errcode.PointerNotFound, ""},
		{"/missing", errcode.PointerNotFound, ""},
		{"/o/x", errcode.PointerNotFound, `token "x" at /o: object has no member "x"; it is empty`},
		{"/obj/x", errcode.PointerNotFound, `token "x" at /obj: object has no member "x"; it has 2 members: "k", "l"`},
		{"/a/2/c", errcode.PointerNotFound, `token "c" at /a/2: object has no member "c"; it has 1 members: "b"`},
		{"/esc\\u0041", errcode.PointerNotFound, ""}, // names are compared decoded
		{"/t/x", errcode.PointerNotFound, `token "x" at /t: value is a boolean, not an object or array`},
		{"/n/0", errcode.PointerNotFound, ""},
		{"/a/0/x", errcode.PointerNotFound, ""},
		{"/s/0", errcode.PointerNotFound, ""},
		{"/dup", errcode.AmbiguousJSON, `token "dup" at "": object has 2 members named "dup" (at offsets 282, 292); a pointer through duplicate names is ambiguous`},
		{"/dup/x", errcode.AmbiguousJSON, ""},
		{"/d/x/y", errcode.AmbiguousJSON, `token "y" at /d/x: object has 2 members named "y" (at offsets 316, 324); a pointer through duplicate names is ambiguous`},
		{"/two/a", errcode.AmbiguousJSON, ""},   // "\u0061" is "a"
		{"/two/a/b", errcode.AmbiguousJSON, ""}, // even though only one reading has b
	}
	for _, tt := range tests {
		t.Run(tt.pointer, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePointer(tt.pointer)
			require.Nil(t, err)
			got, err := Lookup(ix, p)
			require.NotNil(t, err, "found %q", lookupDoc[got.Start:got.End])
			assert.Equal(t, tt.want, err.Code, err.Msg)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, err.Msg)
			}
		})
	}
}

func TestLookupScalarRoot(t *testing.T) {
	t.Parallel()
	ix, ierr := jsontape.Build([]byte(" 42 "), jsontape.Options{})
	require.Nil(t, ierr)
	got, err := Lookup(ix, Pointer{})
	require.Nil(t, err)
	assert.Equal(t, jsontape.Value{Start: 1, End: 3, Type: jsontape.Number}, got)

	_, err = Lookup(ix, Pointer{}.Append("x"))
	require.NotNil(t, err)
	assert.Equal(t, errcode.PointerNotFound, err.Code)
	assert.Equal(t, `token "x" at "": value is a number, not an object or array`, err.Msg)
}

// bigContainers returns a document with an array and an object large enough
// for lookups to index their children.
func bigContainers(n int) string {
	var b strings.Builder
	b.WriteString(`{"arr": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"i": %d}`, i)
	}
	b.WriteString(`], "obj": {`)
	for i := range n {
		fmt.Fprintf(&b, `"k%d": [%d], `, i, i)
	}
	b.WriteString(`"\u006b\u0031": "escaped duplicate of k1", "k~/": "odd", "last": {"x": 1}}}`)
	return b.String()
}

func TestLookupBigContainers(t *testing.T) {
	t.Parallel()
	doc := bigContainers(1000)
	tests := []struct {
		pointer string
		want    string
		wantErr errcode.Code
	}{
		{"/arr/0", `{"i": 0}`, ""},
		{"/arr/500/i", `500`, ""},
		{"/arr/999", `{"i": 999}`, ""},
		{"/arr/1000", "", errcode.PointerNotFound},
		{"/arr/-", "", errcode.PointerNotFound},
		{"/arr/007", "", errcode.InvalidPointer},
		{"/arr/99999999999999999999999", "", errcode.PointerNotFound},
		{"/obj/k0", `[0]`, ""},
		{"/obj/k500/0", `500`, ""},
		{"/obj/k999", `[999]`, ""},
		{"/obj/k~0~1", `"odd"`, ""},
		{"/obj/last/x", `1`, ""},
		{"/obj/k1", "", errcode.AmbiguousJSON},
		{"/obj/k1000", "", errcode.PointerNotFound},
	}
	ix, ierr := jsontape.Build([]byte(doc), jsontape.Options{})
	require.Nil(t, ierr)
	for round := range 2 { // cold, then with the children indexed
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%d%s", round, tt.pointer), func(t *testing.T) {
				p, err := ParsePointer(tt.pointer)
				require.Nil(t, err)
				got, err := Lookup(ix, p)
				if tt.wantErr != "" {
					require.NotNil(t, err)
					assert.Equal(t, tt.wantErr, err.Code, err.Msg)
					return
				}
				require.Nil(t, err)
				assert.Equal(t, tt.want, doc[got.Start:got.End])
			})
		}
	}

	p, _ := ParsePointer("/arr/1000")
	_, err := Lookup(ix, p)
	assert.Equal(t, `token "1000" at /arr: array index out of range; it has 1000 elements (0-999)`, err.Msg)
	p, _ = ParsePointer("/obj/k1")
	_, err = Lookup(ix, p)
	assert.Contains(t, err.Msg, `object has 2 members named "k1" (at offsets `)
	p, _ = ParsePointer("/obj/nope")
	_, err = Lookup(ix, p)
	assert.Equal(t, `token "nope" at /obj: object has no member "nope"; it has 1003 members: "k0", "k1", "k2", "k3", "k4", ... (998 more)`, err.Msg)
}

// TestLookupConcurrent runs cold lookups from several goroutines; run with
// -race.
func TestLookupConcurrent(t *testing.T) {
	t.Parallel()
	doc := bigContainers(300)
	ix, ierr := jsontape.Build([]byte(doc), jsontape.Options{})
	require.Nil(t, ierr)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				k := (i*7 + g) % 300
				p := Pointer{}.Append("arr", fmt.Sprint(k), "i")
				got, err := Lookup(ix, p)
				if assert.Nil(t, err) {
					assert.Equal(t, fmt.Sprint(k), doc[got.Start:got.End])
				}
				p = Pointer{}.Append("obj", fmt.Sprintf("k%d", k+2), "0")
				got, err = Lookup(ix, p)
				if k+2 < 300 && assert.Nil(t, err) {
					assert.Equal(t, fmt.Sprint(k+2), doc[got.Start:got.End])
				}
			}
		})
	}
	wg.Wait()
}
