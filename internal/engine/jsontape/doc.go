// Package jsontape is the JSON engine of loom-results: one scanner for the
// grammar of RFC 8259 under the rules of SPEC section 4.3, and the tape it
// records, an index for walking a document and finding its values.
//
// # One scanner
//
// scan.go holds the grammar's only state machine. Validate runs it with no
// sink; Build runs it with a builder, the sink that records the tape; a
// large document is scanned in two halves at once (split.go), each by the
// same machine. What is recorded never changes what is accepted: every
// entry point gives the same verdict and, on failure, the same invalid_json
// error, whose offset is that of the first byte that cannot continue a
// valid document. The lexical level (lexeme.go) takes whitespace, string
// bodies and digits 8 bytes at a time.
//
// # The tape
//
// The tape records only what a walk cannot cheaply find again: values with
// at least minOwn bytes of their own (bytes in no recorded value inside
// them), as their span and the number of entries inside them, and a
// checkpoint every checkpointEvery elements of a large array. Everything
// else, small scalars, small records, member names, is found by scanning
// its few bytes again, with the tape's entries to jump over the large
// values in between. A document of N bytes costs at most 0.375 N bytes of
// tape, and typically a tenth of that. Element and Member index a large container's
// children the first time a lookup needs them (children.go).
//
// # Errors
//
// Errors are *errcode.Error values: invalid_json from the scan (with its
// offset), not_a_string and invalid_json from DecodeString, too_large for
// data beyond uint32 offsets.
package jsontape
