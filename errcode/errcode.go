// Package errcode defines the stable error codes of SPEC section 8 and the one
// error type that carries them through the domain packages.
//
// A caller can act on every error of this type: the server turns it into a
// tool result with isError set, never into a protocol fault.
package errcode

import "fmt"

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
)

// Error is an error the caller can act on. Details uses the names of SPEC
// section 8 (offset, before, after, lines, size, limit, bytes_left, at,
// cause); values are int64, string or *Error (for cause).
type Error struct {
	Code    Code
	Msg     string
	Details map[string]any
}

// New returns an error with the given code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// With returns e after setting detail name to value; it is meant for chaining
// right after New.
func (e *Error) With(name string, value any) *Error {
	if e.Details == nil {
		e.Details = make(map[string]any, 2)
	}
	e.Details[name] = value
	return e
}

// Error returns the one-line text of SPEC section 8: "error <code>: <message>".
func (e *Error) Error() string { return "error " + string(e.Code) + ": " + e.Msg }

// Is reports whether target is an *Error with the same code, so that
// errors.Is compares by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Offset returns an error with the code, message and an "offset" detail.
func Offset(code Code, offset int64, format string, args ...any) *Error {
	return New(code, format, args...).With("offset", offset)
}
