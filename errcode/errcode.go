// Package errcode defines the stable error codes of SPEC section 8 and the one
// error type that carries them through the domain packages.
//
// A caller can act on every error of this type: the server turns it into a
// tool result with isError set, never into a protocol fault.
package errcode

import (
	"fmt"
	"strconv"
)

// Code is one of the stable error codes of SPEC section 8.
type Code string

// The stable codes, in the order SPEC section 8 lists them.
const (
	InvalidArgument    Code = "invalid_argument"
	UnknownResult      Code = "unknown_result"
	DigestMismatch     Code = "digest_mismatch"
	InvalidRange       Code = "invalid_range"
	NotCharBoundary    Code = "not_char_boundary"
	InvalidJSON        Code = "invalid_json"
	InvalidPointer     Code = "invalid_pointer"
	PointerNotFound    Code = "pointer_not_found"
	AmbiguousJSON      Code = "ambiguous_json"
	NotAString         Code = "not_a_string"
	LookupTooLarge     Code = "lookup_too_large"
	StepBytesExhausted Code = "step_bytes_exhausted"
	LookupLimit        Code = "lookup_limit"
	StepRefused        Code = "step_refused"
	ExpansionTooLarge  Code = "expansion_too_large"
	UnresolvedEdit     Code = "unresolved_edit"
	StoreFull          Code = "store_full"
	PathOutsideRoot    Code = "path_outside_root"
	NotFound           Code = "not_found"
	NotRegularFile     Code = "not_regular_file"
	TooLarge           Code = "too_large"
	NotUTF8            Code = "not_utf8"
	Unreadable         Code = "unreadable"
	Conflict           Code = "conflict"
	Unwritable         Code = "unwritable"
	CannotRun          Code = "cannot_run"
	// AnchorMismatch is an edit's cause only (SPEC 5.2): an anchor whose
	// characters are not those of the line it names.
	AnchorMismatch Code = "anchor_mismatch"
)

// Error is an error the caller can act on: a stable code, a message that
// says what was wrong with the values involved, and the details of SPEC
// section 8 that apply. An Error is not changed once made (With returns a
// copy), so that one may be shared: kept in a variable and returned to
// every call, or held as another's cause.
type Error struct {
	Code Code
	Msg  string
	Details
	// Tail is what the text content shows after the error's line, whole
	// lines each ending with "\n": a conflict's diff, cut as write_file's
	// diff is cut (SPEC section 9). Most errors have none.
	Tail string
}

// Details are the details of SPEC section 8, a field a name, in the order
// of their names, which is the order AppendJSON writes them in. A nil
// field is absent.
type Details struct {
	After     *int64  // "after": the character boundary after Offset
	At        *string // "at": the JSON pointer of an edit's part ("" is the whole arguments)
	Before    *int64  // "before": the character boundary before Offset
	BytesLeft *int64  // "bytes_left": the step's escaped bytes left
	Cause     *Error  // "cause": why the part at At does not resolve
	Fits      *Fit    // "fits": what would pass the caps (get_lines and get_range)
	Limit     *int64  // "limit": the limit that was passed
	Lines     *int64  // "lines": the result's line count
	Offset    *int64  // "offset": a byte position in a text
	File      *File   // "current", "diff", "path" and "sha256": the file of write_file's conflict
	Size      *int64  // "size": the size in question; with File, null when nil
}

// Fit is the "fits" detail of a size error of get_lines or get_range (SPEC
// section 8): the largest last (or end) that, with everything else
// unchanged, would pass both caps.
type Fit struct {
	To *int64 // nil (null) when no non-empty selection would
}

// File is the file as write_file's conflict check found it (SPEC section
// 9): its path, its digest, and the result that holds its current text.
// Its size is the error's Size, which an error with a File always shows,
// as null when the file is missing.
type File struct {
	Path string
	// SHA256 is nil (null) when the file is missing, larger than a result
	// may be, or, when Current is nil, of a size other than the base's.
	SHA256 *string
	// Current is the ID of the result that holds the file's current text,
	// retained as inspect would retain it; nil (null) when it could not be.
	Current *string
	// Diff is the change from the base to Current in write_file's diff
	// form; nil (null) without a base or a current.
	Diff *string
}

// New returns an error with the given code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Offset returns an error with the code, a formatted message and the detail
// offset.
func Offset(code Code, offset int64, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Details: Details{Offset: &offset}}
}

// With returns a copy of e whose details are d, in place of any e had; e
// is left as it was. It is meant for right after New.
func (e *Error) With(d Details) *Error {
	c := *e
	c.Details = d
	return &c
}

// Error returns the code and the message, "<code>: <message>". The text
// content of an error answer is Text.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Msg }

// Text returns the text of SPEC section 8, "error <code>: <message>", and
// on the next lines the error's Tail when it has one: the text content of
// an error answer, and how a message quotes its cause (a cause has no
// Tail).
func (e *Error) Text() string {
	line := "error " + string(e.Code) + ": " + e.Msg
	if e.Tail == "" {
		return line
	}
	return line + "\n" + e.Tail
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is compares by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns the cause, or nil.
func (e *Error) Unwrap() error {
	if e.Cause == nil {
		return nil
	}
	return e.Cause
}

// AppendJSON appends e as the "error" object of SPEC section 8, {"code",
// "message", ...details}: the details present, in name order, and a cause
// in the same form. str appends a string as a JSON string literal; it is
// the server's (limits.AppendJSONString), which errcode cannot import:
// limits imports errcode.
func (e *Error) AppendJSON(dst []byte, str func(dst []byte, s string) []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = str(dst, string(e.Code))
	dst = append(dst, `,"message":`...)
	dst = str(dst, e.Msg)
	d := &e.Details
	dst = appendInt(dst, `,"after":`, d.After)
	if d.At != nil {
		dst = append(dst, `,"at":`...)
		dst = str(dst, *d.At)
	}
	dst = appendInt(dst, `,"before":`, d.Before)
	dst = appendInt(dst, `,"bytes_left":`, d.BytesLeft)
	if d.Cause != nil {
		dst = append(dst, `,"cause":`...)
		dst = d.Cause.AppendJSON(dst, str)
	}
	if f := d.File; f != nil {
		dst = appendString(dst, `,"current":`, f.Current, str)
		dst = appendString(dst, `,"diff":`, f.Diff, str)
	}
	if d.Fits != nil {
		dst = append(dst, `,"fits":`...)
		if d.Fits.To == nil {
			dst = append(dst, "null"...)
		} else {
			dst = strconv.AppendInt(dst, *d.Fits.To, 10)
		}
	}
	dst = appendInt(dst, `,"limit":`, d.Limit)
	dst = appendInt(dst, `,"lines":`, d.Lines)
	dst = appendInt(dst, `,"offset":`, d.Offset)
	if f := d.File; f != nil {
		dst = append(dst, `,"path":`...)
		dst = str(dst, f.Path)
		dst = appendString(dst, `,"sha256":`, f.SHA256, str)
		if d.Size == nil {
			dst = append(dst, `,"size":null`...)
		}
	}
	dst = appendInt(dst, `,"size":`, d.Size)
	return append(dst, '}')
}

// appendString appends member (a comma, a name and a colon) and *s, or
// null when s is nil.
func appendString(dst []byte, member string, s *string, str func(dst []byte, s string) []byte) []byte {
	dst = append(dst, member...)
	if s == nil {
		return append(dst, "null"...)
	}
	return str(dst, *s)
}

// appendInt appends member (a comma, a name and a colon) and *n when n is
// set.
func appendInt(dst []byte, member string, n *int64) []byte {
	if n == nil {
		return dst
	}
	dst = append(dst, member...)
	return strconv.AppendInt(dst, *n, 10)
}
