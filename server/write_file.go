package server

import (
	"fmt"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/server/transport"
)

// writeFileModelDescription is write_file's description for a model that
// steps itself: model mode's schemas have no property descriptions, so it
// says what they would (SPEC section 2).
const writeFileModelDescription = "Write a file under the root. Give one of: splice {\"result\", \"edits\"}, line edits of a " +
	"result you read (usually the best); compose, the new text as parts: strings, and references {\"result\"} with one of " +
	"\"lines\": [first, last], \"bytes\": [start, end], \"pointer\"; or text, the whole new text. An edit is " +
	`{"lines": [first, last], "text"}, which replaces those whole stored lines, newlines included ("" deletes), or ` +
	`{"before": p, "text"} or {"after": p, "text"}, which insert there. Name each line by its anchor ("41#xy", as numbered ` +
	`get_lines and find show it; anchors are not part of the text); before lines + 1, a number, appends. Lines are the result's as stored; ` +
	`edits come in file order and do not overlap; a text ends with "\n" unless it reaches the end of the file. ` +
	"path and base default to the spliced result's file. The file must still hold base's bytes: otherwise conflict, " +
	"which names the file's current text as a result, to redo the edit on; without base only a new file is written. " +
	"Answers with the diff and the new result ID for the next edit. An edit that does not resolve (unresolved_edit) " +
	"refuses the step: call begin_step, then send the corrected call."

func writeFileTool(cfg ToolConfig) transport.Tool {
	return define[briefing.WriteFileRequest](cfg, definition{
		name: "write_file",
		client: "Write a file under the root from an edit of a result you inspected, without generating unchanged text again. " +
			"Give exactly one of: splice, line edits of a stored result ({\"result\", \"edits\"}: usually the best); compose, " +
			"the new text as parts (literal strings and stored selections); or text, the whole new text. " +
			`An edit is {"lines": [first, last], "text"} (replace those whole lines), {"before": n, "text"} (insert before line n; ` +
			`n = lines + 1 appends) or {"after": n, "text"} (insert after line n). Each position is a line number or, better, the line's ` +
			`anchor ("41#xy") as numbered get_lines and find show it: an anchor whose line does not hold the text you saw fails ` +
			`(anchor_mismatch) instead of landing; anchors are not part of the text. ` +
			"Line numbers refer to the result as stored; edits come in file order and must not overlap; " +
			`a non-empty text must end with "\n" unless it is the last edit and reaches the end of the result. ` +
			"path defaults to the spliced result's file, and base, the result the edit was made from, to the spliced result when " +
			"it is that file's. The file must still hold exactly base's bytes (otherwise conflict, which retains the file's current text as a result: redo the " +
			"edit on it); without base only a new file is written. The write is atomic. Answers with the unified diff and the new " +
			fmt.Sprintf("result ID of the written text, so the next edit splices that result with its new line numbers. "+
				"At most %d expanded bytes a step. ", cfg.MaxExpandBytes) + "A failing edit (unresolved_edit) refuses the step.",
		model:       writeFileModelDescription,
		annotations: writes("Write a file", false), // it replaces a file's contents
		// splice first: usually the best for a model.
		order: []string{"path", "splice", "compose", "text", "base"},
		input: map[string]keywords{
			"path":                   {description: "File to write, relative to the root (default: the spliced result's path)."},
			"splice":                 {description: "Line edits of a stored result: its text with the edits applied."},
			"splice/result":          {description: "Result ID to edit, e.g. r3."},
			"splice/sha256":          {description: "Optional prefix (12-64 hex digits) of its SHA-256."},
			"splice/edits":           {description: "Edits in file order, not overlapping; [] keeps the text."},
			"splice/edits[]":         {description: editDescription},
			"splice/edits[]/lines":   {description: "The stored lines [first, last] to replace; [n, n] for one line."},
			"splice/edits[]/lines[]": {description: positionDescription},
			"splice/edits[]/before":  {description: "Insert before this stored line: " + positionWords + " lines + 1, a number, appends."},
			"splice/edits[]/after":   {description: "Insert after this stored line: " + positionWords},
			"splice/edits[]/text": {description: `The new text: a string ("" deletes), or {"$compose": [part, ...]}. A non-empty text ends with "\n" ` +
				"unless it is the last edit and reaches the end of the result."},
			"compose":           {description: "The new text as parts, concatenated."},
			"compose[]":         {stringOr: true, description: partDescription},
			"compose[]/result":  {description: "Result ID, e.g. r3."},
			"compose[]/sha256":  {description: "Optional prefix (12-64 hex digits) of the result's SHA-256."},
			"compose[]/bytes":   {description: "Half-open byte range [start, end)."},
			"compose[]/lines":   {description: "Inclusive lines [first, last], or [first] to the end."},
			"compose[]/lines[]": {description: positionDescription},
			"compose[]/pointer": {description: "RFC 6901 JSON pointer into a JSON result."},
			"compose[]/as": {enum: []string{briefing.AsLexeme, briefing.AsString},
				description: "With pointer: the value as written (lexeme, default) or a string's decoded text."},
			"text": {description: "The whole new text."},
			"base": {description: "Result ID of the text the edit was made from (default: the spliced result, when it is the file's); the file must still hold exactly its bytes."},
		},
		output: writeFileOutput,
	}, textContent[*briefing.Written])
}

// partDescription describes a part of a compose, a string or a reference
// object, which the schema constrains only as an object (stringOr).
const partDescription = `A part: a string (literal text), or a reference {"result", "sha256"?} with at most one of ` +
	`"bytes": [start, end], "lines": [first, last] (or [first]: to the end), "pointer" (with "as": "lexeme" or "string"); ` +
	`no selector means the whole result.`

// editDescription describes one edit of a splice.
const editDescription = `One edit: {"lines": [first, last], "text"} replaces those whole lines (newlines ` +
	`included) by text; {"before": n, "text"} inserts text before line n (n = lines + 1 appends); {"after": n, "text"} ` +
	`inserts text after line n.`

// positionWords describe a line position of an edit or a reference,
// which names no type: a number or an anchor (SPEC section 9);
// positionDescription is them as a sentence of its own.
const positionWords = `a line number, or the line's anchor ("41#xy", a string) as numbered get_lines and find ` +
	`show it, which the line must match (else anchor_mismatch).`

var positionDescription = "A" + positionWords[1:]
