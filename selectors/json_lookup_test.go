package selectors

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
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
	ix, ierr := IndexJSON([]byte(lookupDoc))
	require.Nil(t, ierr)
	tests := []struct {
		pointer  string
		want     string // the lexeme
		wantType JSONType
	}{
		{"", strings.TrimSpace(lookupDoc), JSONObject},
		{"#", strings.TrimSpace(lookupDoc), JSONObject},
		{"/a", `[10, 20, {"b": "x"}]`, JSONArray},
		{"/a/0", `10`, JSONNumber},
		{"/a/1", `20`, JSONNumber},
		{"/a/2", `{"b": "x"}`, JSONObject},
		{"/a/2/b", `"x"`, JSONString},
		{"/m~0n", `1`, JSONNumber},
		{"/a~1b", `2`, JSONNumber},
		{"/", `3`, JSONNumber},
		{"/ ", `4`, JSONNumber},
		{"/é", `5`, JSONNumber},
		{"#/%C3%A9", `5`, JSONNumber},
		{"#/%25", `6`, JSONNumber},
		{"/%", `6`, JSONNumber},
		{"#/m%7E0n", `1`, JSONNumber},
		{"#/a~1b", `2`, JSONNumber},
		{"/num", `1.000000000000000000001`, JSONNumber},
		{"/neg", `-0.0e-10`, JSONNumber},
		{"/big", `123456789012345678901234567890`, JSONNumber},
		{"/obj", "{ \"k\" : [ 1 , 2 ] ,\n           \"l\":{} }", JSONObject},
		{"/obj/k", `[ 1 , 2 ]`, JSONArray},
		{"/obj/k/1", `2`, JSONNumber},
		{"/obj/l", `{}`, JSONObject},
		{"/s", `"\ud800"`, JSONString},
		{"/escA", `"A-escaped name"`, JSONString},
		{"/d", `{"x": {"y": 1, "y": 2}, "z": 3}`, JSONObject},
		{"/d/x", `{"y": 1, "y": 2}`, JSONObject}, // duplicates off the path do not matter
		{"/d/z", `3`, JSONNumber},
		{"/e", `[]`, JSONArray},
		{"/o", `{}`, JSONObject},
		{"/t", `true`, JSONBoolean},
		{"/f", `false`, JSONBoolean},
		{"/n", `null`, JSONNull},
	}
	for _, tt := range tests {
		t.Run(tt.pointer, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePointer(tt.pointer)
			require.Nil(t, err)
			got, err := ix.Lookup(p)
			require.Nil(t, err)
			assert.Equal(t, tt.want, lookupDoc[got.Start:got.End])
			assert.Equal(t, tt.wantType, got.Type)
		})
	}
}

func TestLookupErrors(t *testing.T) {
	t.Parallel()
	ix, ierr := IndexJSON([]byte(lookupDoc))
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
			got, err := ix.Lookup(p)
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
	ix, ierr := IndexJSON([]byte(" 42 "))
	require.Nil(t, ierr)
	got, err := ix.Lookup(Pointer{})
	require.Nil(t, err)
	assert.Equal(t, JSONValue{Start: 1, End: 3, Type: JSONNumber}, got)

	_, err = ix.Lookup(Pointer{}.Append("x"))
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
	ix, ierr := IndexJSON([]byte(doc))
	require.Nil(t, ierr)
	for round := range 2 { // cold, then with the children indexed
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%d%s", round, tt.pointer), func(t *testing.T) {
				p, err := ParsePointer(tt.pointer)
				require.Nil(t, err)
				got, err := ix.Lookup(p)
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
	assert.Len(t, ix.kids, 3, "the root and the two big containers are indexed, and only they")

	p, _ := ParsePointer("/arr/1000")
	_, err := ix.Lookup(p)
	assert.Equal(t, `token "1000" at /arr: array index out of range; it has 1000 elements (0-999)`, err.Msg)
	p, _ = ParsePointer("/obj/k1")
	_, err = ix.Lookup(p)
	assert.Contains(t, err.Msg, `object has 2 members named "k1" (at offsets `)
	p, _ = ParsePointer("/obj/nope")
	_, err = ix.Lookup(p)
	assert.Equal(t, `token "nope" at /obj: object has no member "nope"; it has 1003 members: "k0", "k1", "k2", "k3", "k4", ... (998 more)`, err.Msg)
}

// TestLookupConcurrent runs cold lookups from several goroutines; run with
// -race.
func TestLookupConcurrent(t *testing.T) {
	t.Parallel()
	doc := bigContainers(300)
	ix, ierr := IndexJSON([]byte(doc))
	require.Nil(t, ierr)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				k := (i*7 + g) % 300
				p := Pointer{}.Append("arr", fmt.Sprint(k), "i")
				got, err := ix.Lookup(p)
				if assert.Nil(t, err) {
					assert.Equal(t, fmt.Sprint(k), doc[got.Start:got.End])
				}
				p = Pointer{}.Append("obj", fmt.Sprintf("k%d", k+2), "0")
				got, err = ix.Lookup(p)
				if k+2 < 300 && assert.Nil(t, err) {
					assert.Equal(t, fmt.Sprint(k+2), doc[got.Start:got.End])
				}
			}
		})
	}
	wg.Wait()
}

// TestJSONAfterSaturated checks the binary search that finds the end of a
// subtree whose descendant count does not fit in a node.
func TestJSONAfterSaturated(t *testing.T) {
	t.Parallel()
	ix, ierr := IndexJSON([]byte(bigContainers(50)))
	require.Nil(t, ierr)
	want := make([]NodeID, len(ix.nodes))
	for n := range ix.nodes {
		want[n] = ix.after(NodeID(n))
	}
	for n := range ix.nodes {
		if ix.nodes[n].meta>>jsonDescShift > 0 {
			ix.nodes[n].meta |= jsonDescSaturated << jsonDescShift
		}
	}
	for n := range ix.nodes {
		assert.Equal(t, want[n], ix.after(NodeID(n)), "node %d", n)
	}
}

// TestJSONElements checks the element list of arrays of every shape against
// the Elements walk: few and many elements, small ones (read straight
// through the tape) and large ones (followed by their descendant counts),
// nested arrays, and a mix that changes after the first elements.
func TestJSONElements(t *testing.T) {
	t.Parallel()
	many := func(n int, elem func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = elem(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	docs := map[string]string{
		"empty":        "[]",
		"few":          "[1, [2], {\"a\": 3}]",
		"many scalars": many(1000, func(i int) string { return strconv.Itoa(i) }),
		"many records": many(500, func(i int) string { return fmt.Sprintf(`{"id":%d,"tags":["a","b"],"ok":true}`, i) }),
		"nested":       many(300, func(i int) string { return many(i%5, func(j int) string { return "[[]]" }) }),
		"large elements": many(100, func(i int) string {
			return many(40, func(j int) string { return strconv.Itoa(j) })
		}),
		"small then large": many(200, func(i int) string {
			if i < 70 {
				return "0"
			}
			return many(50, func(int) string { return `"x"` })
		}),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ix, err := IndexJSON([]byte(doc))
			require.Nil(t, err)
			var want []NodeID
			for _, v := range ix.Elements(ix.Root()) {
				want = append(want, v)
			}
			assert.Equal(t, want, ix.elements(ix.Root()))
			assert.Equal(t, len(want), ix.Len(ix.Root()))
		})
	}
}
