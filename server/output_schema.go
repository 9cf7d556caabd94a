package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/selectors"
)

// outputSchema returns a tool's outputSchema: its structured content is
// either success, the tool's own answer, or the error shape of SPEC section
// 8 ({"error", "budget"?}), which every tool can answer. The two are
// alternatives (anyOf) because clients such as the MCP Inspector check
// error answers against the schema too, and a success-only schema would
// mark every error invalid.
//
// success is a JSON Schema that may refer to the shared pieces of
// outputDefs as "#/$defs/NAME". The pieces it uses, directly or through
// another, are copied into the tool's $defs, so that each tool's schema
// stands alone (a client resolves references within one schema). Adding a
// tool's output schema is one success constant and one call.
func outputSchema(success string) json.RawMessage {
	root := `{"type":"object","anyOf":[` + success + `,{"$ref":"#/$defs/failure"}]}`
	var names []string
	seen := map[string]bool{}
	var visit func(schema string)
	visit = func(schema string) {
		for _, m := range defRef.FindAllStringSubmatch(schema, -1) {
			name := m[1]
			if seen[name] {
				continue
			}
			def, ok := outputDefs[name]
			if !ok {
				panic("outputSchema: no shared definition " + name)
			}
			seen[name] = true
			names = append(names, name)
			visit(def)
		}
	}
	visit(root)
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(root[:len(root)-1])
	b.WriteString(`,"$defs":{`)
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(name))
		b.WriteByte(':')
		b.WriteString(outputDefs[name])
	}
	b.WriteString("}}")
	out := json.RawMessage(b.String())
	if !json.Valid(out) {
		panic("outputSchema: not JSON: " + b.String())
	}
	return out
}

var defRef = regexp.MustCompile(`"#/\$defs/([a-z0-9_]+)"`)

// outputDefs are the pieces that several tools' answers share, each written
// once: the descriptor and its source (SPEC section 3), the step budget
// (SPEC section 6), the error and the error answer (SPEC section 8).
var outputDefs = map[string]string{
	"descriptor": descriptorDef("A stored result, shown instead of its bytes (SPEC section 3)."),
	"source": `{"type":"object","properties":{` +
		`"kind":{"enum":["file","listing","output","edit"]},` +
		`"path":{"type":"string"},"at":{"type":"string"},"label":{"type":"string"},` +
		`"exit_code":{"type":["integer","null"],"description":"null when a signal ended a run's command."},"timed_out":{"type":"boolean"},` +
		`"cancelled":{"const":true},"dropped_bytes":{"type":"integer","minimum":1},"replaced":{"type":"integer","minimum":1}},` +
		`"required":["kind"],"additionalProperties":false}`,
	"sha256": `{"type":"string","pattern":"^[0-9a-f]{64}$"}`,
	"budget": `{"type":"object","description":"The step's budget after this call (SPEC section 6).","properties":{` +
		`"step":{"type":"integer","minimum":1},` +
		`"lookups_used":{"type":"integer","minimum":0},"lookups_left":{"type":"integer","minimum":0},` +
		`"bytes_used":{"type":"integer","minimum":0},"bytes_left":{"type":"integer","minimum":0},` +
		`"expand_bytes_used":{"type":"integer","minimum":0},"expand_bytes_left":{"type":"integer","minimum":0},` +
		`"refused":{"type":"boolean"}},` +
		`"required":["step","lookups_used","lookups_left","bytes_used","bytes_left","expand_bytes_used","expand_bytes_left","refused"],` +
		`"additionalProperties":false}`,
	"failure": `{"type":"object","description":"An error answer (isError): the error, and the budget for lookups and edits.","properties":{` +
		`"error":{"$ref":"#/$defs/error"},"budget":{"$ref":"#/$defs/budget"}},"required":["error"],"additionalProperties":false}`,
	"error": errorDef(),
}

// descriptorDef is the descriptor's schema (SPEC section 3) described by
// description, with the members extra, required, after its own: run's
// answer is a descriptor with first_failure.
func descriptorDef(description string, extra ...prop) string {
	required := `"id","sha256","bytes","lines","complete","source","json","retained"`
	var more []byte
	for _, p := range extra {
		required += "," + string(marshal(p.name))
		more = append(append(append(append(more, ','), marshal(p.name)...), ':'), p.schema...)
	}
	return `{"type":"object","description":` + string(marshal(description)) + `,"properties":{` +
		`"id":{"type":["string","null"],"description":"Result ID (r1, r2, ...); null when the store had no room (reason store_full)."},` +
		`"sha256":{"$ref":"#/$defs/sha256"},` +
		`"bytes":{"type":"integer","minimum":0},` +
		`"lines":{"type":"integer","minimum":0},` +
		`"complete":{"type":"boolean"},` +
		`"source":{"$ref":"#/$defs/source"},` +
		`"json":{"enum":["object","array","string","number","boolean","null",null],"description":"The JSON type when the whole result is one strict JSON value, else null."},` +
		`"preview":{"type":"string","description":"The first bytes, ending on a character boundary; for run's output, the last bytes, from the start of a line (legacy context only)."},` +
		`"preview_complete":{"type":"boolean"},` +
		`"reused":{"type":"boolean"},` +
		`"retained":{"type":"boolean"},` +
		`"reason":{"const":"store_full"}` + string(more) + `},` +
		`"required":[` + required + `],"additionalProperties":false}`
}

// errorDef is the error object of SPEC section 8: a stable code, a message
// and the details that apply, under the names the SPEC gives them (those of
// section 8, fits for the size errors of get_lines and get_range, and path,
// size, sha256, current and diff for write_file's conflict, where each may
// be null but path).
func errorDef() string {
	return `{"type":"object","properties":{` +
		`"code":{"enum":` + string(marshal(errcode.Codes)) + `},` +
		`"message":{"type":"string"},` +
		`"offset":{"type":"integer"},"before":{"type":"integer"},"after":{"type":"integer"},` +
		`"lines":{"type":"integer"},"size":{"type":["integer","null"]},"limit":{"type":"integer"},` +
		`"bytes_left":{"type":"integer"},"fits":{"type":["integer","null"]},"at":{"type":"string"},"cause":{"$ref":"#/$defs/error"},` +
		`"path":{"type":"string"},"sha256":{"type":["string","null"]},"current":{"type":["string","null"]},"diff":{"type":["string","null"]}},` +
		`"required":["code","message"],"additionalProperties":false}`
}

// selectionOutput is the answer of a selection lookup (SPEC section 5) whose
// "selection" is selection; extra adds members (get_json's type).
func selectionOutput(selection string, extra ...prop) string {
	ps := []prop{
		{"result", `{"type":["string","null"],"description":"The result selected from; null for a file read by path that the store had no room for."}`},
		{"sha256", `{"$ref":"#/$defs/sha256"}`},
		{"selection", selection},
		{"text", `{"type":"string","description":"The selection itself, also the text content."}`},
		{"bytes", `{"type":"integer","minimum":0,"description":"UTF-8 bytes of text."}`},
		{"escaped_bytes", `{"type":"integer","minimum":2,"description":"Bytes of text as a JSON string literal, as the step budget counts them."}`},
		{"budget", `{"$ref":"#/$defs/budget"}`},
	}
	return objectSchema(append(ps, extra...))
}

// prop is one property of an output schema.
type prop struct {
	name   string
	schema string // the property's JSON schema
}

// schema returns an object schema that allows only the given properties,
// requiring those named in required.
func schema(props []prop, required ...string) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshal(p.name)...)
		b = append(b, ':')
		b = append(b, p.schema...)
	}
	b = append(b, `},"additionalProperties":false`...)
	if len(required) > 0 {
		b = append(b, `,"required":`...)
		b = append(b, marshal(required)...)
	}
	b = append(b, '}')
	return b
}

// ofType is the object schema of answer type T: its properties are the
// members that T's json encoding writes, in field order, and those it
// always writes (no omitempty) are required, so that neither can drift from
// the type, the one description of the answer. schemas gives each member's
// own schema, what the type cannot say (a description, a bound, a shared
// piece); a member without one, or one for no member, stops the server at
// start.
func ofType[T any](schemas map[string]string) string {
	names, required := jsonMembers(reflect.TypeFor[T]())
	if len(schemas) != len(names) {
		panic(fmt.Sprintf("output schema of %s: schemas for %d members, the type writes %v", reflect.TypeFor[T](), len(schemas), names))
	}
	ps := make([]prop, len(names))
	for i, n := range names {
		s, ok := schemas[n]
		if !ok {
			panic(fmt.Sprintf("output schema of %s: no schema for member %q", reflect.TypeFor[T](), n))
		}
		ps[i] = prop{n, s}
	}
	return string(schema(ps, required...))
}

// jsonMembers are the names that a value of type rt is written with by
// encoding/json, in field order (the fields of an embedded struct without
// a json tag are its own), and those it always writes (no omitempty).
func jsonMembers(rt reflect.Type) (names, required []string) {
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	for f := range rt.Fields() {
		tag, hasTag := f.Tag.Lookup("json")
		if f.Anonymous && !hasTag {
			n, r := jsonMembers(f.Type)
			names, required = append(names, n...), append(required, r...)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	return names, required
}

// objectSchema is an object with exactly the properties ps, all required.
func objectSchema(ps []prop) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return string(schema(ps, names...))
}

// The success shapes of each tool's answer.
var (
	inspectOutput = objectSchema([]prop{{"results", `{"type":"array","description":"One entry per path, in order: a descriptor, or that path's error.","items":{"anyOf":[` +
		`{"$ref":"#/$defs/descriptor"},` +
		`{"type":"object","properties":{"path":{"type":"string"},"error":{"$ref":"#/$defs/error"}},"required":["path","error"],"additionalProperties":false}]}}`}})

	getRangeOutput = selectionOutput(objectSchema([]prop{
		{"start", `{"type":"integer","minimum":0}`},
		{"end", `{"type":"integer","minimum":0}`},
	}))

	// numbered appears, always true, only when the lines were numbered.
	getLinesOutput = selectionOutput(string(schema([]prop{
		{"first", `{"type":"integer","minimum":1}`},
		{"last", `{"type":"integer","minimum":1}`},
		{"numbered", `{"const":true}`},
	}, "first", "last")))

	getJSONOutput = selectionOutput(objectSchema([]prop{
		{"pointer", `{"type":"string"}`},
		{"as", `{"enum":["lexeme","string"]}`},
	}), prop{"type", `{"enum":["object","array","string","number","boolean","null"],"description":"The selected value's JSON type."}`})

	findMatch = ofType[selectors.Match](map[string]string{
		"line":   `{"type":"integer","minimum":1}`,
		"anchor": `{"type":"string","pattern":"^[1-9][0-9]*#[a-z2-7]{2}$","description":"The line's anchor, which an edit names the line by."}`,
		"text":   `{"type":"string","description":"The line without its ending, cut to its first bytes when cut is true."}`,
		"cut":    `{"type":"boolean"}`,
	})

	// find answers by result or, over paths, by file (SPEC 5.3).
	findOutput = `{"anyOf":[` + findResultOutput + `,` + findPathsOutput + `]}`

	findPathsOutput = ofType[briefing.FoundFiles](map[string]string{
		"files": `{"type":"array","description":"The files with matches, in order.","items":` + ofType[briefing.FoundFile](map[string]string{
			"result":  `{"type":["string","null"],"description":"Null when the store had no room for the file."}`,
			"path":    `{"type":"string"}`,
			"sha256":  `{"$ref":"#/$defs/sha256"}`,
			"matches": `{"type":"array","items":` + findMatch + `}`,
			"total":   `{"type":"integer","minimum":1}`,
		}) + `}`,
		"total":          `{"type":"integer","minimum":0,"description":"Every matching line of every file, shown or not."}`,
		"truncated":      `{"type":"boolean"}`,
		"files_searched": `{"type":"integer","minimum":0}`,
		"files_skipped":  `{"type":"integer","minimum":0,"description":"Files a directory brought that inspect would refuse."}`,
		"bytes":          `{"type":"integer","minimum":0}`,
		"escaped_bytes":  `{"type":"integer","minimum":2}`,
		"budget":         `{"$ref":"#/$defs/budget"}`,
	})

	findResultOutput = ofType[briefing.Found](map[string]string{
		"result":        `{"type":"string"}`,
		"sha256":        `{"$ref":"#/$defs/sha256"}`,
		"matches":       `{"type":"array","items":` + findMatch + `}`,
		"total":         `{"type":"integer","minimum":0,"description":"Every matching line, shown or not."}`,
		"truncated":     `{"type":"boolean"}`,
		"bytes":         `{"type":"integer","minimum":0}`,
		"escaped_bytes": `{"type":"integer","minimum":2}`,
		"budget":        `{"$ref":"#/$defs/budget"}`,
	})

	writeFileOutput = ofType[briefing.Written](map[string]string{
		"path":   `{"type":"string","description":"The file written, relative to the root."}`,
		"bytes":  `{"type":"integer","minimum":0}`,
		"sha256": `{"$ref":"#/$defs/sha256"}`,
		"base":   `{"type":["string","null"],"description":"The base result's ID, or null for a new file."}`,
		"result": `{"$ref":"#/$defs/descriptor"}`,
		"diff":   `{"type":"string","description":"The change as a unified diff (GNU diff -U1 without file names)."}`,
		"budget": `{"$ref":"#/$defs/budget"}`,
	})

	listResultsOutput = ofType[briefing.Page](map[string]string{
		"page":    `{"type":"integer","minimum":0}`,
		"pages":   `{"type":"integer","minimum":1}`,
		"total":   `{"type":"integer","minimum":0}`,
		"results": `{"type":"array","items":{"$ref":"#/$defs/descriptor"}}`,
		"next":    `{"type":["integer","null"]}`,
		"budget":  `{"$ref":"#/$defs/budget"}`,
	})

	expandEditOutput = ofType[expandAnswer](map[string]string{
		"arguments": `{"type":"object","description":"The arguments with every node replaced by its text."}`,
		"expansions": `{"type":"array","items":` + ofType[briefing.Expansion](map[string]string{
			"at":     `{"type":"string","description":"JSON pointer of the replaced node in arguments."}`,
			"bytes":  `{"type":"integer","minimum":0}`,
			"sha256": `{"$ref":"#/$defs/sha256"}`,
			"parts":  `{"type":"integer","minimum":0}`,
			"result": `{"type":["string","null"],"description":"The ID the expanded text was retained under; null when the store is full."}`,
		}) + `}`,
		"budget": `{"$ref":"#/$defs/budget"}`,
	})

	retainOutputOutput = `{"$ref":"#/$defs/descriptor"}`
)

// beginStepOutput is begin_step's answer: the new step and the nine limits
// of SPEC section 5, by name.
func beginStepOutput(cfg limits.Config) string {
	var ls []prop
	for _, l := range cfg.Step() {
		ls = append(ls, prop{l.Name, `{"type":"integer","minimum":0}`})
	}
	return ofType[stepAnswer](map[string]string{
		"step":   `{"type":"integer","minimum":2}`,
		"limits": objectSchema(ls),
	})
}
