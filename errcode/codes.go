package errcode

// Codes lists every stable code, in the order SPEC section 8 lists them,
// for what must name them all (the tools' output schemas). A test keeps it
// in step with the constants.
var Codes = []Code{
	InvalidArgument, UnknownResult, DigestMismatch, InvalidRange, NotCharBoundary,
	InvalidJSON, InvalidPointer, PointerNotFound, AmbiguousJSON, NotAString,
	LookupTooLarge, StepBytesExhausted, LookupLimit, StepRefused, ExpansionTooLarge,
	UnresolvedEdit, StoreFull, PathOutsideRoot, NotFound, NotRegularFile, TooLarge,
	NotUTF8, Unreadable, Conflict, Unwritable, CannotRun, AnchorMismatch,
}
