// Package editbench measures the byte economy of loom-results on real edit
// histories: what a model reads and generates to make a commit's edits
// through the server, against reading and writing whole files, against
// str_replace edits, and against the added text alone.
//
// Run replays the last N commits of HEAD's first-parent history (a merge
// is diffed against its first parent; a root commit, or a shallow clone's
// boundary, has no parent and is skipped). Every text file a commit
// modifies is replayed, renamed ones from their old path; files added,
// deleted, copied, binary (a NUL byte or invalid UTF-8), over 16 MiB,
// symlinks and submodules are counted as skipped. For each commit the old
// versions are written under a temporary root and the server
// (Options.Server with `--root DIR`) is driven over stdio by a small JSON-RPC
// client (session.go), one server per commit while its store has room.
//
// For each file the agent:
//
//  1. calls begin_step (the governing client does, for a new action; the
//     model never sees it, so it is not counted), then inspect;
//  2. locates each hunk of `git diff -U0` (git gives positions only; the
//     text comes from the blobs, and the hunks are checked to rebuild the
//     new file) with find. An insertion at the top or the end needs none
//     (the descriptor gives the line count), nor a hunk next to a line
//     already located. The anchor is the nearest distinctive line (at least
//     8 bytes without indentation, with a letter or digit): a replacement's
//     first line, else the line before or after, up to 3 lines away. The
//     pattern is the line without indentation, cut to 48 bytes; when that is
//     ambiguous, the whole line, then the longest lines around, at most 3
//     finds, and only then git's position (counted as oracle hunks);
//  3. reads with get_lines the replaced lines it has not seen (the preview,
//     an uncut find match or an earlier read count as seen), in lookups of
//     at most --max-lookup-bytes, a longer line by get_range; a spent step
//     (lookup_limit, step_bytes_exhausted, step_refused) makes the client
//     call begin_step and retry, and the client starts a step itself when
//     the budget shows no lookups left;
//  4. writes the file with one expand_edit of a $splice, one edit per
//     hunk. Added lines that exist verbatim in the old file (runs of two or
//     more consecutive lines, or one line of at least 40 bytes) become
//     {"result", "lines"} parts of a $compose when that is shorter than
//     retyping them and the model knows where they are (it read or located
//     one of them, or one find locates them when that saves 160 bytes);
//  5. checks that the expansion is the commit's file byte for byte and that
//     its sha256 is the blob's.
//
// The write agent (AgentWrite) is a stock client's model: it never
// inspects (a find over the file's path names its result), locates the
// hunks with one find of several patterns, then one find a turn for what is
// left, reads what it needs in one turn, and writes with write_file's
// splice. On a server with --step-gap (SPEC v5, found in its --help) it
// runs the server with a small gap (Options.StepGap), pauses longer than
// that between its turns and calls no begin_step: each turn begins a step.
// It reads get_lines numbered and names every line its edits name by the
// anchor an answer showed it (find's matches, numbered get_lines; an
// insertion names the line before it with after); on a server without the
// flag (SPEC v4) it names lines by number and calls begin_step at each
// file and after a spent step. Options.Misaim makes a fraction of its
// edits name one line one line off, with the characters of the line meant
// (a model that miscounts); a server with anchors refuses such an edit
// (anchor_mismatch) and the model resends it aimed at the line the error
// names, while a server without them writes it and the file comes out
// wrong: the report counts misaims made, detected, recovered and landed
// silently. Turns are counted as the model's rounds of calls, each on the
// answers of the round before.
//
// The model reads the text content of every answer and generates the
// arguments of every call, as compact JSON that escapes only what RFC 8259
// requires. The baselines: whole reads the file and writes
// {"path", "content"}; str_replace reads the file and makes one
// {"path", "old_str", "new_str"} edit per hunk, its old text made unique by
// the fewest whole lines of context; the floor reads the replaced lines and
// generates the added text.
package editbench
