package errcode

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonString is a str for AppendJSON: json.Marshal's string, which is the
// server's for the texts of these tests.
func jsonString(dst []byte, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return append(dst, b...)
}

func TestErrorAndText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err        *Error
		want, text string
	}{
		{New(InvalidRange, "lines %d-%d outside 1-%d", 90, 120, 84).With(Details{Lines: new(int64(84))}),
			"invalid_range: lines 90-120 outside 1-84", "error invalid_range: lines 90-120 outside 1-84"},
		{Offset(NotUTF8, 7, "not valid UTF-8 at byte %d", 7),
			"not_utf8: not valid UTF-8 at byte 7", "error not_utf8: not valid UTF-8 at byte 7"},
		{New(StepRefused, "step 2 was refused"), "step_refused: step 2 was refused", "error step_refused: step 2 was refused"},
		{&Error{Code: Conflict, Msg: "changed", Tail: "@@ -1,1 +1,1 @@\n-a\n+b\n"},
			"conflict: changed", "error conflict: changed\n@@ -1,1 +1,1 @@\n-a\n+b\n"},
	} {
		t.Run(string(tt.err.Code), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.err.Error())
			assert.Equal(t, tt.text, tt.err.Text())
		})
	}
}

func TestOffset(t *testing.T) {
	t.Parallel()
	got := Offset(NotUTF8, 7, "not valid UTF-8 at byte %d", 7)
	assert.Equal(t, &Error{Code: NotUTF8, Msg: "not valid UTF-8 at byte 7", Details: Details{Offset: new(int64(7))}}, got)
}

func TestIsAndUnwrap(t *testing.T) {
	t.Parallel()
	cause := New(InvalidRange, "lines 9-9 outside 1-3").With(Details{Lines: new(int64(3))})
	err := New(UnresolvedEdit, "edit part at \"/a\" does not resolve: %s", cause.Text()).
		With(Details{At: new("/a"), Cause: cause})

	assert.True(t, errors.Is(err, &Error{Code: UnresolvedEdit}), "errors.Is compares by code")
	assert.True(t, errors.Is(err, &Error{Code: InvalidRange}), "and finds the cause")
	assert.False(t, errors.Is(err, &Error{Code: InvalidJSON}))
	assert.Same(t, cause, errors.Unwrap(err))
	assert.Nil(t, errors.Unwrap(cause), "no cause is a nil error, not a nil *Error")

	var got *Error
	require.True(t, errors.As(errors.Join(io.EOF, err), &got))
	assert.Same(t, err, got)
}

// TestWithCopies: an error kept in a variable and given details twice is
// left as it was, and the two copies do not share their details.
func TestWithCopies(t *testing.T) {
	t.Parallel()
	shared := New(TooLarge, "file %q is too large", "a")
	a := shared.With(Details{Size: new(int64(10)), Limit: new(int64(9))})
	b := shared.With(Details{Limit: new(int64(5))})

	assert.Equal(t, Details{}, shared.Details)
	assert.Equal(t, Details{Size: new(int64(10)), Limit: new(int64(9))}, a.Details)
	assert.Equal(t, Details{Limit: new(int64(5))}, b.Details)
	assert.Equal(t, shared.Msg, a.Msg)
	assert.Equal(t, TooLarge, b.Code)
	assert.NotSame(t, shared, a)

	c := a.With(Details{})
	assert.Equal(t, Details{Size: new(int64(10)), Limit: new(int64(9))}, a.Details, "replacing the details copies too")
	assert.Equal(t, Details{}, c.Details)
}

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	sum := "ab12"
	for _, tt := range []struct {
		name string
		err  *Error
		want string
	}{
		{"no details", New(StepRefused, "step %d was refused", 2),
			`{"code":"step_refused","message":"step 2 was refused"}`},
		{"lines", New(InvalidRange, "lines 90-120 outside 1-84").With(Details{Lines: new(int64(84))}),
			`{"code":"invalid_range","message":"lines 90-120 outside 1-84","lines":84}`},
		{"zero is present", New(LookupLimit, "lookups are off").With(Details{Limit: new(int64(0))}),
			`{"code":"lookup_limit","message":"lookups are off","limit":0}`},
		{"boundaries", New(NotCharBoundary, "offset 2").With(Details{Offset: new(int64(2)), Before: new(int64(1)), After: new(int64(3))}),
			`{"code":"not_char_boundary","message":"offset 2","after":3,"before":1,"offset":2}`},
		{"budget", New(StepBytesExhausted, "over").With(Details{Size: new(int64(22)), Limit: new(int64(20)), BytesLeft: new(int64(14))}),
			`{"code":"step_bytes_exhausted","message":"over","bytes_left":14,"limit":20,"size":22}`},
		{"cause", New(UnresolvedEdit, "edit part at \"\" does not resolve").With(Details{
			At: new(""), Cause: New(InvalidRange, "lines 5-5 outside 1-3").With(Details{Lines: new(int64(3))}),
		}), `{"code":"unresolved_edit","message":"edit part at \"\" does not resolve","at":"",` +
			`"cause":{"code":"invalid_range","message":"lines 5-5 outside 1-3","lines":3}}`},
		{"conflict", New(Conflict, "changed").With(Details{File: &File{Path: "a.txt", SHA256: &sum}, Size: new(int64(19))}),
			`{"code":"conflict","message":"changed","current":null,"diff":null,"path":"a.txt","sha256":"ab12","size":19}`},
		{"conflict with its current text", New(Conflict, "changed").With(Details{
			File: &File{Path: "a.txt", SHA256: &sum, Current: new("r9"), Diff: new("@@ -1,1 +1,1 @@\n-a\n+b\n")}, Size: new(int64(2)),
		}), `{"code":"conflict","message":"changed","current":"r9","diff":"@@ -1,1 +1,1 @@\n-a\n+b\n","path":"a.txt","sha256":"ab12","size":2}`},
		{"conflict, too large to read", New(Conflict, "exists").With(Details{File: &File{Path: "big"}, Size: new(int64(1 << 40))}),
			`{"code":"conflict","message":"exists","current":null,"diff":null,"path":"big","sha256":null,"size":1099511627776}`},
		{"conflict, missing file", New(Conflict, "gone").With(Details{File: &File{Path: "d/b.txt"}}),
			`{"code":"conflict","message":"gone","current":null,"diff":null,"path":"d/b.txt","sha256":null,"size":null}`},
		{"fits", New(LookupTooLarge, "over").With(Details{Size: new(int64(90)), Limit: new(int64(80)), BytesLeft: new(int64(100)), Fits: &Fit{To: new(int64(7))}}),
			`{"code":"lookup_too_large","message":"over","bytes_left":100,"fits":7,"limit":80,"size":90}`},
		{"nothing fits", New(StepBytesExhausted, "over").With(Details{Size: new(int64(90)), Limit: new(int64(80)), BytesLeft: new(int64(1)), Fits: &Fit{}}),
			`{"code":"step_bytes_exhausted","message":"over","bytes_left":1,"fits":null,"limit":80,"size":90}`},
		{"strings escaped by str", New(InvalidArgument, "bad %q <&>", "x\n").With(Details{At: new("/a<b>")}),
			`{"code":"invalid_argument","message":"bad \"x\\n\" \u003c\u0026\u003e","at":"/a\u003cb\u003e"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.err.AppendJSON([]byte("x"), jsonString)
			assert.Equal(t, "x"+tt.want, string(got))
			assert.True(t, json.Valid(got[1:]))
		})
	}
}

// TestAppendJSONEveryDetail sets every detail, found by reflection, so
// that a detail added to Details and not to AppendJSON fails here: every
// one is written, in name order, and every string goes through str.
func TestAppendJSONEveryDetail(t *testing.T) {
	t.Parallel()
	var d Details
	v := reflect.ValueOf(&d).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch p := f.Addr().Interface().(type) {
		case **int64:
			*p = new(int64(i + 1))
		case **string:
			*p = new("s")
		case **Error:
			*p = New(NotFound, "m")
		case **File:
			*p = &File{Path: "p", SHA256: new("h"), Current: new("c"), Diff: new("d")}
		case **Fit:
			*p = &Fit{To: new(int64(i + 1))}
		default:
			t.Fatalf("detail %s of type %s: set it here and write it in AppendJSON", v.Type().Field(i).Name, f.Type())
		}
	}
	var strs []string
	str := func(dst []byte, s string) []byte {
		strs = append(strs, s)
		return jsonString(dst, s)
	}
	out := New(InvalidArgument, "all").With(d).AppendJSON(nil, str)

	dec := json.NewDecoder(bytes.NewReader(out))
	var names []string
	_, err := dec.Token()
	require.NoError(t, err)
	for dec.More() {
		name, err := dec.Token()
		require.NoError(t, err)
		names = append(names, name.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	want := []string{"after", "at", "before", "bytes_left", "cause", "current", "diff", "fits", "limit", "lines", "offset", "path", "sha256", "size"}
	assert.Equal(t, append([]string{"code", "message"}, want...), names)
	assert.True(t, slices.IsSorted(names[2:]), "details in name order")
	assert.Equal(t, []string{"invalid_argument", "all", "s", "not_found", "m", "c", "d", "p", "h"}, strs)
}
