package selectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/ohler55/ojg/oj"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

// The fuzz targets' seed corpus is in testdata/fuzz; it runs on every
// go test. Run a target with, for example:
//
//	go test ./selectors -run x -fuzz FuzzValidateJSON -fuzztime 60s

// FuzzValidateJSON checks the scanner: ValidateJSON, IndexJSON (strict and
// lenient) agree; every node of the index lies inside the data and is
// itself a valid document of its type; every value is found again by a
// pointer built from its path; and the verdict matches encoding/json and
// jsontext wherever their rules are ours.
func FuzzValidateJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, verr := ValidateJSON(data)
		ix, ierr := IndexJSON(data)
		require.Equal(t, verr, ierr, "IndexJSON and ValidateJSON must agree")
		checkAgainstOthers(t, data, verr)

		lenient, lerr := IndexJSONWith(data, IndexJSONOptions{AllowInvalidUTF8: true})
		switch {
		case verr == nil:
			require.Nil(t, lerr)
		case lerr == nil:
			assert.Contains(t, verr.Msg, "invalid UTF-8", "only raw invalid UTF-8 may fail strictly and pass leniently")
		case !strings.Contains(verr.Msg, "UTF-8") && !strings.Contains(verr.Msg, "end of input"):
			assert.Equal(t, verr, lerr, "the lenient index is strict about everything but UTF-8")
		}
		if verr != nil {
			require.Equal(t, errcode.InvalidJSON, verr.Code)
			off := verr.Details["offset"].(int64)
			require.True(t, off >= 0 && off <= int64(len(data)), "offset %d outside 0-%d", off, len(data))
			if lerr == nil {
				checkIndex(t, data, lenient)
			}
			return
		}
		require.Equal(t, typ, ix.Kind(ix.Root()))
		checkIndex(t, data, ix)
	})
}

// checkAgainstOthers compares the verdict with encoding/json and jsontext.
// encoding/json accepts raw invalid UTF-8 and nests up to 10,000 levels,
// and jsontext (with AllowInvalidUTF8, which is how it accepts lone
// surrogate escapes) does too, so the verdicts are compared only for valid
// UTF-8 that fails for a reason other than depth.
func checkAgainstOthers(t *testing.T, data []byte, verr *errcode.Error) {
	if verr == nil {
		assert.True(t, json.Valid(data), "encoding/json rejects what we accept")
		assert.True(t, jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)))
		return
	}
	if !utf8.Valid(data) || strings.Contains(verr.Msg, "nesting deeper") {
		return
	}
	assert.False(t, json.Valid(data), "encoding/json accepts what we reject: %s", verr.Msg)
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	assert.False(t, jsontext.Value(data).IsValid(opts...), "jsontext accepts what we reject: %s", verr.Msg)

	// jsontext reports an unexpected character at the same offset as we do
	// (it differs on purpose for escapes and the end of input).
	d := jsontext.NewDecoder(bytes.NewReader(data), opts...)
	_, err := d.ReadValue()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && jsontextInvalidChar.MatchString(se.Error()) {
		assert.Equal(t, se.ByteOffset, verr.Details["offset"], "jsontext: %v; ours: %s", err, verr.Msg)
	}
}

var jsontextInvalidChar = regexp.MustCompile(`invalid character '.*' (at start of value|after|in number|in literal|at start of string)`)

// checkIndex walks every value of ix.
func checkIndex(t *testing.T, data []byte, ix *JSONIndex) {
	// Checking a pointer costs its length, so deep documents bound the
	// checks by their total length, to keep each input fast.
	const maxChecks, maxTokens = 2000, 20000
	checks, tokens := 0, 0
	var walk func(n NodeID, p Pointer, ambiguous, utf8OK bool)
	walk = func(n NodeID, p Pointer, ambiguous, utf8OK bool) {
		if checks++; checks > maxChecks {
			return
		}
		if tokens += p.Len(); tokens > maxTokens {
			return
		}
		start, end := ix.Span(n)
		require.True(t, 0 <= start && start < end && end <= len(data), "span %d-%d outside 0-%d", start, end, len(data))
		lexeme := data[start:end]
		if !ix.InvalidUTF8(n) && ix.Kind(n) != JSONObject && ix.Kind(n) != JSONArray {
			typ, err := ValidateJSON(lexeme)
			require.Nil(t, err, "node %d: %q", n, lexeme)
			require.Equal(t, ix.Kind(n), typ)
		}

		got, err := ix.Lookup(p)
		if ambiguous {
			require.NotNil(t, err, "pointer %q crosses a duplicate name", p)
			assert.Equal(t, errcode.AmbiguousJSON, err.Code, err.Msg)
		} else {
			require.Nil(t, err, "pointer %q", p)
			assert.Equal(t, ix.Value(n), got)
		}
		if utf8OK {
			again, perr := ParsePointer(p.String())
			require.Nil(t, perr)
			require.Equal(t, p, again)
		}

		switch ix.Kind(n) {
		case JSONString:
			checkString(t, data, ix, n)
		case JSONArray:
			count := 0
			for i, v := range ix.Elements(n) {
				require.Equal(t, count, i)
				count++
				vs, ve := ix.Span(v)
				require.True(t, start < vs && ve < end, "element %d-%d outside its array %d-%d", vs, ve, start, end)
				walk(v, p.Append(strconv.Itoa(i)), ambiguous, utf8OK)
			}
			require.Equal(t, count, ix.Len(n))
		case JSONObject:
			names := map[string]int{}
			for m := range ix.Members(n) {
				names[m.Name]++
			}
			count := 0
			for m, v := range ix.Members(n) {
				count++
				vs, ve := ix.Span(v)
				require.True(t, start < m.NameStart && m.NameEnd < vs && ve < end)
				require.Equal(t, byte('"'), data[m.NameStart])
				walk(v, p.Append(m.Name), ambiguous || names[m.Name] > 1, utf8OK && utf8.ValidString(m.Name))
			}
			require.Equal(t, count, ix.Len(n))
		}
	}
	walk(ix.Root(), Pointer{}, false, true)
}

// checkString cross-checks the decoding of string n with encoding/json and
// ojg.
func checkString(t *testing.T, data []byte, ix *JSONIndex, n NodeID) {
	v := ix.Value(n)
	lexeme := data[v.Start:v.End]
	got, err := DecodeJSONString(data, v)
	text, invalidAt := ix.StringText(n)
	if err != nil {
		require.Equal(t, errcode.InvalidJSON, err.Code)
		off := int(err.Details["offset"].(int64))
		require.True(t, v.Start < off && off < v.End)
		require.GreaterOrEqual(t, invalidAt, 0, "StringText must report what DecodeJSONString refuses")
		if !ix.InvalidUTF8(n) {
			require.Equal(t, []byte(`\u`), data[off:off+2], "a lone surrogate escape: %s", err.Msg)
		}
		return
	}
	require.Equal(t, got, text)
	require.Equal(t, -1, invalidAt)
	var want string
	require.NoError(t, json.Unmarshal(lexeme, &want))
	assert.Equal(t, want, got, "encoding/json decodes %q differently", lexeme)
	if !bytes.Contains(lexeme, []byte(`\u`)) {
		o, oerr := oj.Parse(lexeme)
		require.NoError(t, oerr)
		assert.Equal(t, o, got, "ojg decodes %q differently", lexeme)
	}
}

// FuzzJSONPointer checks ParsePointer and Lookup on any pointer: no panic,
// round trips through String and the "#" form, and results that lie inside
// the data and are valid values of their type.
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

		ix, ierr := IndexJSON(data)
		if ierr != nil {
			return
		}
		v, err := ix.Lookup(p)
		if err != nil {
			require.Contains(t, []errcode.Code{errcode.InvalidPointer, errcode.PointerNotFound, errcode.AmbiguousJSON}, err.Code)
			return
		}
		require.True(t, 0 <= v.Start && v.Start < v.End && v.End <= len(data))
		typ, verr := ValidateJSON(data[v.Start:v.End])
		require.Nil(t, verr)
		require.Equal(t, v.Type, typ)
		if v.Type == JSONString {
			_, derr := DecodeJSONString(data, v)
			if derr != nil {
				require.Equal(t, errcode.InvalidJSON, derr.Code)
			}
		} else {
			_, derr := DecodeJSONString(data, v)
			require.NotNil(t, derr)
			require.Equal(t, errcode.NotAString, derr.Code)
		}
	})
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
