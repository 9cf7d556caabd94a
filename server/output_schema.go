package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
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
	"descriptor": ofForm[results.Descriptor](objectForm{description: "A stored result, shown instead of its bytes (SPEC section 3).", requiredFirst: true}, descriptorMembers),
	// source is written here: it lists path before at, and results.Source
	// has its fields in the order its AppendJSON writes them, at before
	// path, which tests hold to json.Marshal's exact bytes; reordered, the
	// fields would break those, derived from them the schema would change.
	// TestSourceDefMatchesType holds its members to the type's.
	"source": `{"type":"object","properties":{` +
		`"kind":{"enum":["file","listing","output","edit"]},` +
		`"path":{"type":"string"},"at":{"type":"string"},"label":{"type":"string"},` +
		`"exit_code":{"type":["integer","null"],"description":"null when a signal ended a run's command."},"timed_out":{"type":"boolean"},` +
		`"cancelled":{"const":true},"dropped_bytes":{"type":"integer","minimum":1},"replaced":{"type":"integer","minimum":1}},` +
		`"required":["kind"],"additionalProperties":false}`,
	"sha256": `{"type":"string","pattern":"^[0-9a-f]{64}$"}`,
	"budget": ofForm[limits.Snapshot](objectForm{description: "The step's budget after this call (SPEC section 6).", requiredFirst: true}, map[string]string{
		"step":              `{"type":"integer","minimum":1}`,
		"lookups_used":      `{"type":"integer","minimum":0}`,
		"lookups_left":      `{"type":"integer","minimum":0}`,
		"bytes_used":        `{"type":"integer","minimum":0}`,
		"bytes_left":        `{"type":"integer","minimum":0}`,
		"expand_bytes_used": `{"type":"integer","minimum":0}`,
		"expand_bytes_left": `{"type":"integer","minimum":0}`,
		"refused":           `{"type":"boolean"}`,
	}),
	"failure": ofForm[failureBody](objectForm{description: "An error answer (isError): the error, and the budget for lookups and edits.", requiredFirst: true}, map[string]string{
		"error":  `{"$ref":"#/$defs/error"}`,
		"budget": `{"$ref":"#/$defs/budget"}`,
	}),
	"error": errorDef(),
}

// descriptorMembers are the schemas of a descriptor's members (SPEC
// section 3), which run's answer has too.
var descriptorMembers = map[string]string{
	"id":               `{"type":["string","null"],"description":"Result ID (r1, r2, ...); null when the store had no room (reason store_full)."}`,
	"sha256":           `{"$ref":"#/$defs/sha256"}`,
	"bytes":            `{"type":"integer","minimum":0}`,
	"lines":            `{"type":"integer","minimum":0}`,
	"complete":         `{"type":"boolean"}`,
	"source":           `{"$ref":"#/$defs/source"}`,
	"json":             `{"enum":["object","array","string","number","boolean","null",null],"description":"The JSON type when the whole result is one strict JSON value, else null."}`,
	"preview":          `{"type":"string","description":"The first bytes, ending on a character boundary; for run's output, the last bytes, from the start of a line (legacy context only)."}`,
	"preview_complete": `{"type":"boolean"}`,
	"reused":           `{"type":"boolean"}`,
	"retained":         `{"type":"boolean"}`,
	"reason":           `{"const":"store_full"}`,
}

// errorDef is the error object of SPEC section 8: a stable code, a message
// and the details that apply, under the names the SPEC gives them (those of
// section 8, fits for the size errors of get_lines and get_range, and path,
// size, sha256, current and diff for write_file's conflict, where each may
// be null but path). Its members are written here: errcode.Error has no
// json encoding to derive them from (its AppendJSON writes the details in
// the order of their names, this schema in the SPEC's);
// TestErrorDefMatchesEncoder holds them to what AppendJSON writes.
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

// selectionMembers are the schemas of the members of a selection lookup's
// answer (SPEC section 5, briefing.Selection) whose "selection" is
// selection.
func selectionMembers(selection string) map[string]string {
	return map[string]string{
		"result":        `{"type":["string","null"],"description":"The result selected from; null for a file read by path that the store had no room for."}`,
		"sha256":        `{"$ref":"#/$defs/sha256"}`,
		"selection":     selection,
		"text":          `{"type":"string","description":"The selection itself, also the text content."}`,
		"bytes":         `{"type":"integer","minimum":0,"description":"UTF-8 bytes of text."}`,
		"escaped_bytes": `{"type":"integer","minimum":2,"description":"Bytes of text as a JSON string literal, as the step budget counts them."}`,
		"budget":        `{"$ref":"#/$defs/budget"}`,
	}
}

// anchorSchema is the schema of a line's anchor in an answer (SPEC 4.4),
// described by description.
func anchorSchema(description string) string {
	return `{"type":"string","pattern":` + string(marshal(selectors.AnchorPattern)) + `,"description":` + string(marshal(description)) + `}`
}

// prop is one property of an output schema.
type prop struct {
	name   string
	schema string // the property's JSON schema
}

// writeObject writes the object schema of form f with the properties
// props, requiring those named in required (no "required" when none):
// {"type":"object", "description"?, "properties", "additionalProperties",
// "required"?}, or with f.requiredFirst "required" before
// "additionalProperties".
func writeObject(f objectForm, props []prop, required []string) json.RawMessage {
	b := []byte(`{"type":"object"`)
	if f.description != "" {
		b = append(b, `,"description":`...)
		b = append(b, marshal(f.description)...)
	}
	b = append(b, `,"properties":{`...)
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshal(p.name)...)
		b = append(b, ':')
		b = append(b, p.schema...)
	}
	b = append(b, '}')
	var req []byte
	if len(required) > 0 {
		req = append([]byte(`,"required":`), marshal(required)...)
	}
	if f.requiredFirst {
		b = append(b, req...)
	}
	b = append(b, `,"additionalProperties":false`...)
	if !f.requiredFirst {
		b = append(b, req...)
	}
	return append(b, '}')
}

// objectForm is what an object schema built from a type says beyond the
// type's members and their own schemas.
type objectForm struct {
	// description is the object's "description", written after "type";
	// none when empty.
	description string
	// requiredFirst writes "required" before "additionalProperties", as
	// the shared $defs and inspect's error entry have it.
	requiredFirst bool
	// without are members of the type that this tool never writes (a
	// selection's "type" but for get_json); each must be a member.
	without []string
	// then are members that the tool always writes after the type's
	// (get_json's "type", which briefing.Selection has third and optional
	// and the schema last and required), each required.
	then []prop
}

// ofType is the object schema of answer type T: its properties are the
// members that T's json encoding writes, in field order, and those it
// always writes (no omitempty) are required, so that neither can drift from
// the type, the one description of the answer. schemas gives each member's
// own schema, what the type cannot say (a description, a bound, a shared
// piece); a member without one, or one for no member, stops the server at
// start.
func ofType[T any](schemas map[string]string) string {
	return ofForm[T](objectForm{}, schemas)
}

// ofForm is ofType written in form f: with its description and keyword
// order, without the members f.without, and with f.then after the type's
// members. A name of f.without that T does not write stops the server at
// start.
func ofForm[T any](f objectForm, schemas map[string]string) string {
	rt := reflect.TypeFor[T]()
	names, required := jsonMembers(rt)
	for _, n := range f.without {
		if !slices.Contains(names, n) {
			panic(fmt.Sprintf("output schema of %s: no member %q to leave out", rt, n))
		}
		names = slices.DeleteFunc(names, func(m string) bool { return m == n })
		required = slices.DeleteFunc(required, func(m string) bool { return m == n })
	}
	if len(schemas) != len(names) {
		panic(fmt.Sprintf("output schema of %s: schemas for %d members, the type writes %v", rt, len(schemas), names))
	}
	ps := make([]prop, len(names), len(names)+len(f.then))
	for i, n := range names {
		s, ok := schemas[n]
		if !ok {
			panic(fmt.Sprintf("output schema of %s: no schema for member %q", rt, n))
		}
		ps[i] = prop{n, s}
	}
	for _, p := range f.then {
		ps = append(ps, p)
		required = append(required, p.name)
	}
	return string(writeObject(f, ps, required))
}

// anyOfType is the schema of answer type T whose value is one of several
// objects: T's fields are embedded struct pointers, one of them set, and
// the schema is an anyOf of alternatives, each field's schema (named by
// the field's name) in field order. A field that is not an embedded
// pointer, one without a schema or a schema for no field stops the server
// at start.
func anyOfType[T any](alternatives map[string]string) string {
	rt := reflect.TypeFor[T]()
	if rt.NumField() != len(alternatives) {
		panic(fmt.Sprintf("output schema of %s: %d alternatives for %d fields", rt, len(alternatives), rt.NumField()))
	}
	b := []byte(`{"anyOf":[`)
	for f := range rt.Fields() {
		s, ok := alternatives[f.Name]
		if !f.Anonymous || f.Type.Kind() != reflect.Pointer || !ok {
			panic(fmt.Sprintf("output schema of %s: field %s is not an embedded pointer with an alternative", rt, f.Name))
		}
		if b[len(b)-1] != '[' {
			b = append(b, ',')
		}
		b = append(b, s...)
	}
	return string(append(b, "]}"...))
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
	return string(writeObject(objectForm{}, ps, names))
}

// The success shapes of each tool's answer.
var (
	inspectOutput = ofType[inspectAnswer](map[string]string{
		"results": `{"type":"array","description":"One entry per path, in order: a descriptor, or that path's error.","items":` + anyOfType[inspectEntry](map[string]string{
			"Descriptor": `{"$ref":"#/$defs/descriptor"}`,
			"pathError": ofForm[pathError](objectForm{requiredFirst: true}, map[string]string{
				"path":  `{"type":"string"}`,
				"error": `{"$ref":"#/$defs/error"}`,
			}),
		}) + `}`,
	})

	getRangeOutput = ofForm[briefing.Selection](objectForm{without: []string{"type"}}, selectionMembers(ofType[briefing.ByteSelection](map[string]string{
		"start": `{"type":"integer","minimum":0}`,
		"end":   `{"type":"integer","minimum":0}`,
	})))

	// numbered appears, always true, only when the lines were numbered.
	getLinesOutput = ofForm[briefing.Selection](objectForm{without: []string{"type"}}, selectionMembers(ofType[briefing.LineSelection](map[string]string{
		"first":    `{"type":"integer","minimum":1}`,
		"last":     `{"type":"integer","minimum":1}`,
		"numbered": `{"const":true}`,
	})))

	getJSONOutput = ofForm[briefing.Selection](objectForm{without: []string{"type"}, then: []prop{
		{"type", `{"enum":["object","array","string","number","boolean","null"],"description":"The selected value's JSON type."}`},
	}}, selectionMembers(ofType[briefing.PointerSelection](map[string]string{
		"pointer": `{"type":"string"}`,
		"as":      `{"enum":["lexeme","string"]}`,
	})))

	findMatch = ofType[selectors.Match](map[string]string{
		"line":   `{"type":"integer","minimum":1}`,
		"anchor": anchorSchema("The line's anchor, which an edit names the line by."),
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

// merged returns a new map holding the members of a and of b: the schemas
// of an answer that extends another (run's, a descriptor's and more).
func merged(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
