package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/testkit/refdoc"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

const referencePath = "../" + refdoc.Path

// referenceTools are the tools the reference documents: every tool,
// write_file and run included (run with one command, test), with the
// default limits its defaults come from.
func referenceTools() []transport.Tool {
	test, err := workspace.ParseCommand("test=go test ./...")
	if err != nil {
		panic(err)
	}
	return Tools(ToolConfig{Config: limits.Defaults(), Write: true, Commands: []workspace.Command{test}})
}

// TestReferenceTools checks docs/reference.md's "Tools" against tools/list:
// a section per tool, and in it an arguments table with exactly the input
// schema's properties, each with the schema's type, "required" for a
// required one, the schema's default, and its range and values.
func TestReferenceTools(t *testing.T) {
	t.Parallel()
	doc, err := refdoc.Read(referencePath)
	require.NoError(t, err)
	problems := checkReferenceTools(doc, referenceTools())
	assert.Empty(t, problems, "%s is behind the tools:\n%s", refdoc.Path, strings.Join(problems, "\n"))
}

// TestReferenceCodes checks docs/reference.md's "Errors" against
// errcode.Codes: every code in its tables, no other, each with an example
// message.
func TestReferenceCodes(t *testing.T) {
	t.Parallel()
	doc, err := refdoc.Read(referencePath)
	require.NoError(t, err)
	problems := checkReferenceCodes(doc, errcode.Codes)
	assert.Empty(t, problems, "%s is behind errcode.Codes:\n%s", refdoc.Path, strings.Join(problems, "\n"))
}

// TestReferenceErrorExamples: every error line that docs/reference.md
// shows in a code block is one the server answers: it is in the recorded
// sessions of conformance/testdata (as the server writes it in JSON) or
// the first line of a row of TestErrorMessages.
func TestReferenceErrorExamples(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(referencePath)
	require.NoError(t, err)
	scripts, err := filepath.Glob("../conformance/testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	var recorded strings.Builder
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		recorded.Write(b)
	}
	rows := map[string]bool{}
	for _, r := range errorRows {
		line, _, _ := strings.Cut(r.want, "\n")
		rows[line] = true
	}
	examples := 0
	fenced := false
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced || !strings.HasPrefix(line, "error ") {
			continue
		}
		examples++
		quoted := string(marshal(line)) // as the server writes it, \u003e and all
		quoted = quoted[1 : len(quoted)-1]
		assert.True(t, rows[line] || strings.Contains(recorded.String(), quoted), "no session answers %s", line)
	}
	assert.Greater(t, examples, 40, "the examples were read")
}

// TestReferenceChecksFail: the checks above catch a page that fell behind,
// so that they cannot pass by reading nothing.
func TestReferenceChecksFail(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(referencePath)
	require.NoError(t, err)
	page := string(raw)
	edit := func(t *testing.T, old, new string) *refdoc.Doc {
		t.Helper()
		require.Contains(t, page, old)
		return refdoc.Parse(strings.Replace(page, old, new, 1))
	}

	t.Run("a tool without a section", func(t *testing.T) {
		t.Parallel()
		got := checkReferenceTools(edit(t, "### `get_range`", "### get range bytes"), referenceTools())
		assert.Contains(t, got, "tool get_range has no section (### `get_range` under ## Tools)")
		assert.Contains(t, got, `section "get range bytes" under ## Tools names no tool`)
	})
	t.Run("a tool the server does not list", func(t *testing.T) {
		t.Parallel()
		tools := slices.DeleteFunc(referenceTools(), func(s transport.Tool) bool { return s.Tool.Name == "begin_step" })
		got := checkReferenceTools(refdoc.Parse(page), tools)
		assert.Equal(t, []string{`section "begin_step" under ## Tools names no tool`}, got)
	})
	t.Run("an argument missing", func(t *testing.T) {
		t.Parallel()
		got := checkReferenceTools(edit(t, "| `numbered` | boolean |", "| `numbers` | boolean |"), referenceTools())
		assert.Equal(t, []string{
			"get_lines: argument numbered is not in its table",
			"get_lines: the table documents numbers, which the input schema does not have",
		}, got)
	})
	t.Run("a wrong default", func(t *testing.T) {
		t.Parallel()
		got := checkReferenceTools(edit(t, "| `max_matches` | integer | `20` |", "| `max_matches` | integer | `10` |"), referenceTools())
		assert.Equal(t, []string{"find: max_matches: the default is `10`, the schema's is 20"}, got)
	})
	t.Run("a wrong range", func(t *testing.T) {
		t.Parallel()
		got := checkReferenceTools(edit(t, "the most matches to show, 1 to 100", "the most matches to show, 1 to 99"), referenceTools())
		assert.Equal(t, []string{"find: max_matches: the row does not state the schema's maximum 100"}, got)
	})
	t.Run("a code missing", func(t *testing.T) {
		t.Parallel()
		got := checkReferenceCodes(refdoc.Parse(page), append(slices.Clone(errcode.Codes), "fake_code"))
		assert.Equal(t, []string{"code fake_code is not in the codes table", "code fake_code has no example line `error fake_code: ...`"}, got)
	})
	t.Run("a code too many", func(t *testing.T) {
		t.Parallel()
		got := checkReferenceCodes(refdoc.Parse(page), slices.DeleteFunc(slices.Clone(errcode.Codes), func(c errcode.Code) bool { return c == errcode.Conflict }))
		assert.Contains(t, got, "the codes table documents conflict, which errcode.Codes does not have")
	})
}

// propSchema is what the reference check reads of a property's schema.
type propSchema struct {
	Type      string          `json:"type"`
	Default   json.RawMessage `json:"default"`
	Enum      []any           `json:"enum"`
	Minimum   *int64          `json:"minimum"`
	Maximum   *int64          `json:"maximum"`
	MinItems  *int64          `json:"minItems"`
	MaxItems  *int64          `json:"maxItems"`
	MinLength *int64          `json:"minLength"`
	MaxLength *int64          `json:"maxLength"`
}

// checkReferenceTools returns what doc's "Tools" gets wrong about tools,
// one line a problem, in the tools' order.
func checkReferenceTools(doc *refdoc.Doc, tools []transport.Tool) []string {
	section := doc.Section("Tools")
	if section == nil || section.Level != 2 {
		return []string{"no section ## Tools"}
	}
	bySection := map[string]refdoc.Section{}
	var problems []string
	for _, s := range doc.Subsections(section, 3) {
		bySection[strings.Trim(s.Title, "`")] = s
	}
	listed := map[string]bool{}
	for _, tool := range tools {
		name := tool.Tool.Name
		listed[name] = true
		s, ok := bySection[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("tool %s has no section (### `%s` under ## Tools)", name, name))
			continue
		}
		problems = append(problems, checkArguments(name, &s, tool.Tool.RawInputSchema)...)
	}
	for _, s := range doc.Subsections(section, 3) {
		if name := strings.Trim(s.Title, "`"); !listed[name] {
			problems = append(problems, fmt.Sprintf("section %q under ## Tools names no tool", name))
		}
	}
	return problems
}

// checkArguments checks one tool's section against its input schema. Its
// arguments table has the columns argument, type, default and meaning.
func checkArguments(tool string, s *refdoc.Section, raw json.RawMessage) []string {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return []string{tool + ": input schema: " + err.Error()}
	}
	var rows [][]string
	for _, table := range s.Tables("argument") {
		rows = append(rows, table.Rows...)
	}
	if len(schema.Properties) == 0 {
		if len(rows) > 0 || !slices.Contains(s.Lines, "No arguments.") {
			return []string{tool + `: takes no arguments, which its section says as "No arguments." without a table`}
		}
		return nil
	}
	var problems []string
	documented := map[string][]string{}
	for _, row := range rows {
		spans := refdoc.CodeSpans(row[0])
		if len(row) != 4 || len(spans) != 1 {
			problems = append(problems, fmt.Sprintf("%s: a row is not | `argument` | type | default | meaning |: %q", tool, row))
			continue
		}
		if _, dup := documented[spans[0]]; dup {
			problems = append(problems, fmt.Sprintf("%s: argument %s has two rows", tool, spans[0]))
		}
		documented[spans[0]] = row
	}
	names := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		row, ok := documented[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: argument %s is not in its table", tool, name))
			continue
		}
		var p propSchema
		if err := json.Unmarshal(schema.Properties[name], &p); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s: schema: %v", tool, name, err))
			continue
		}
		problems = append(problems, checkArgumentRow(tool+": "+name, row, p, slices.Contains(schema.Required, name))...)
	}
	var extra []string
	for name := range documented {
		if _, ok := schema.Properties[name]; !ok {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		problems = append(problems, fmt.Sprintf("%s: the table documents %s, which the input schema does not have", tool, name))
	}
	return problems
}

// checkArgumentRow checks one row: the type's first word is the schema's
// type; the default is "required" for a required argument, the schema's
// default as the cell's first code span (JSON) when it has one, and
// otherwise words that do not start with a code span; and every bound and
// value of the schema appears in the row.
func checkArgumentRow(what string, row []string, p propSchema, required bool) []string {
	var problems []string
	typ, dflt := strings.Fields(strings.ReplaceAll(row[1], "`", "")+" "), row[2]
	if len(typ) == 0 || typ[0] != p.Type {
		problems = append(problems, fmt.Sprintf("%s: the type is %q, the schema's is %s", what, row[1], p.Type))
	}
	spans := refdoc.CodeSpans(dflt)
	switch {
	case required:
		if dflt != "required" {
			problems = append(problems, fmt.Sprintf("%s: required, but the default cell says %q", what, dflt))
		}
	case p.Default != nil:
		var want, got any
		json.Unmarshal(p.Default, &want) // the schema's own JSON
		if len(spans) == 0 || !strings.HasPrefix(dflt, "`") || json.Unmarshal([]byte(spans[0]), &got) != nil || !reflect.DeepEqual(got, want) {
			problems = append(problems, fmt.Sprintf("%s: the default is %s, the schema's is %s", what, dflt, p.Default))
		}
	case dflt == "" || dflt == "required" || strings.HasPrefix(dflt, "`"):
		problems = append(problems, fmt.Sprintf("%s: the schema has no default, so the cell says in words what omitting it means, not %q", what, dflt))
	}
	line := strings.Join(row, " | ")
	for _, b := range []struct {
		name string
		v    *int64
	}{
		{"minimum", p.Minimum}, {"maximum", p.Maximum}, {"minItems", p.MinItems},
		{"maxItems", p.MaxItems}, {"minLength", p.MinLength}, {"maxLength", p.MaxLength},
	} {
		if b.v != nil && !regexp.MustCompile(fmt.Sprintf(`(^|[^0-9,])%d($|[^0-9,])`, *b.v)).MatchString(line) {
			problems = append(problems, fmt.Sprintf("%s: the row does not state the schema's %s %d", what, b.name, *b.v))
		}
	}
	rowSpans := refdoc.CodeSpans(line)
	for _, v := range p.Enum {
		quoted, _ := json.Marshal(v)
		if !slices.Contains(rowSpans, fmt.Sprint(v)) && !slices.Contains(rowSpans, string(quoted)) {
			problems = append(problems, fmt.Sprintf("%s: the row does not name the value %s", what, quoted))
		}
	}
	return problems
}

// checkReferenceCodes returns what doc's "Errors" gets wrong about codes:
// its tables whose first column is "code" list exactly codes, and its code
// blocks hold an example "error <code>: <message>" of each.
func checkReferenceCodes(doc *refdoc.Doc, codes []errcode.Code) []string {
	section := doc.Section("Errors")
	if section == nil || section.Level != 2 {
		return []string{"no section ## Errors"}
	}
	documented := map[string]bool{}
	var order []string
	var problems []string
	for _, table := range section.Tables("code") {
		for _, row := range table.Rows {
			spans := refdoc.CodeSpans(row[0])
			if len(spans) != 1 {
				problems = append(problems, fmt.Sprintf("a row of the codes table does not start with one `code`: %q", row))
				continue
			}
			if documented[spans[0]] {
				problems = append(problems, fmt.Sprintf("code %s has two rows", spans[0]))
			}
			documented[spans[0]] = true
			order = append(order, spans[0])
		}
	}
	examples := section.CodeLines()
	for _, code := range codes {
		c := string(code)
		if !documented[c] {
			problems = append(problems, fmt.Sprintf("code %s is not in the codes table", c))
		}
		if !slices.ContainsFunc(examples, func(line string) bool { return strings.HasPrefix(line, "error "+c+": ") }) {
			problems = append(problems, fmt.Sprintf("code %s has no example line `error %s: ...`", c, c))
		}
	}
	for _, c := range order {
		if !slices.Contains(codes, errcode.Code(c)) {
			problems = append(problems, fmt.Sprintf("the codes table documents %s, which errcode.Codes does not have", c))
		}
	}
	return problems
}
