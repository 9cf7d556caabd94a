package selectors

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// The fuzz target's seed corpus is in testdata/fuzz; it runs on every
// go test. Run it with, for example:
//
//	go test ./selectors -run x -fuzz FuzzJSONPointer -fuzztime 60s

// FuzzJSONPointer checks ParsePointer and Lookup on any pointer: no panic,
// round trips through String and the "#" form, and results that lie inside
// the data and are valid values of their type. On a valid document it also
// looks up the pointer of every value, as jsontext's decoder writes it
// (StackPointer), and checks that Lookup finds that value, or answers
// ambiguous_json when a name on the way is duplicated.
func FuzzJSONPointer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, pointer string) {
		p, err := ParsePointer(pointer)
		if err != nil {
			require.Equal(t, errcode.InvalidPointer, err.Code)
			return
		}
		require.True(t, utf8.ValidString(pointer))
		again, err := ParsePointer(p.String())
		require.Nil(t, err)
		require.Equal(t, p, again)
		again, err = ParsePointer("#" + percentEncode(p.String()))
		require.Nil(t, err)
		require.Equal(t, p, again)
		if !strings.HasPrefix(pointer, "#") {
			require.Equal(t, pointer, p.String(), "the plain form is canonical")
		}

		ix, ierr := jsontape.Build(data, jsontape.Options{})
		if ierr != nil {
			return
		}
		checkPointers(t, data, ix)
		v, err := Lookup(ix, p)
		if err != nil {
			require.Contains(t, []errcode.Code{errcode.InvalidPointer, errcode.PointerNotFound, errcode.AmbiguousJSON}, err.Code)
			return
		}
		require.True(t, 0 <= v.Start && v.Start < v.End && v.End <= len(data))
		typ, verr := jsontape.Validate(data[v.Start:v.End])
		require.Nil(t, verr)
		require.Equal(t, v.Type, typ)
		_, derr := jsontape.DecodeString(data, v)
		if v.Type == jsontape.String {
			if derr != nil {
				require.Equal(t, errcode.InvalidJSON, derr.Code)
			}
		} else {
			require.NotNil(t, derr)
			require.Equal(t, errcode.NotAString, derr.Code)
		}
	})
}

// loneSurrogate finds an escape that may be a lone surrogate, which
// jsontext decodes to U+FFFD and we do not.
var loneSurrogate = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// checkPointers looks up the pointer of every value of the valid document
// data (at most a few thousand) as jsontext writes it: Lookup must find
// that value, or fail with ambiguous_json exactly when an object on the
// way holds a name more than once. Documents whose names jsontext would
// decode differently (raw invalid UTF-8, lone surrogates) are skipped.
func checkPointers(t *testing.T, data []byte, ix *jsontape.Index) {
	if !utf8.Valid(data) || loneSurrogate.Match(data) {
		return
	}
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	type value struct {
		start, end int
		pointer    string
		parent     int    // the enclosing container's value, or -1
		name       string // the member name, when parent is an object
	}
	var values []value
	var open []int
	names := map[int]map[string]int{} // per object: how many members have each name
	var name string
	add := func(start, end int) int {
		v := value{start: start, end: end, pointer: string(d.StackPointer()), parent: -1}
		if len(open) > 0 {
			v.parent = open[len(open)-1]
			if data[values[v.parent].start] == '{' {
				v.name = name
			}
		}
		values = append(values, v)
		return len(values) - 1
	}
	for len(values) < 3000 {
		kind := d.PeekKind()
		container, length := d.StackIndex(d.StackDepth())
		if kind == 0 {
			break
		}
		switch {
		case kind == '{' || kind == '[':
			_, err := d.ReadToken()
			require.NoError(t, err)
			k := add(int(d.InputOffset())-1, 0)
			open = append(open, k)
			names[k] = map[string]int{}
		case kind == '}' || kind == ']':
			_, err := d.ReadToken()
			require.NoError(t, err)
			values[open[len(open)-1]].end = int(d.InputOffset())
			open = open[:len(open)-1]
		case container == '{' && length%2 == 0:
			tok, err := d.ReadToken()
			require.NoError(t, err)
			name = tok.String()
			names[open[len(open)-1]][name]++
		default:
			raw, err := d.ReadValue()
			require.NoError(t, err)
			add(int(d.InputOffset())-len(raw), int(d.InputOffset()))
		}
	}
	ambiguous := make([]bool, len(values))
	for k, v := range values {
		if v.parent >= 0 {
			ambiguous[k] = ambiguous[v.parent] || data[values[v.parent].start] == '{' && names[v.parent][v.name] > 1
		}
		if v.end == 0 {
			continue // still open when the budget ran out
		}
		p, perr := ParsePointer(v.pointer)
		require.Nil(t, perr, "jsontext's pointer %q", v.pointer)
		got, err := Lookup(ix, p)
		if ambiguous[k] {
			require.NotNil(t, err, "pointer %q crosses a duplicate name", v.pointer)
			assert.Equal(t, errcode.AmbiguousJSON, err.Code, err.Msg)
			continue
		}
		require.Nil(t, err, "pointer %q", v.pointer)
		assert.Equal(t, [2]int{v.start, v.end}, [2]int{got.Start, got.End}, "pointer %q", v.pointer)
	}
}

// percentEncode writes every byte of s that is not unreserved (RFC 3986)
// as %XX.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
	}
	return b.String()
}
