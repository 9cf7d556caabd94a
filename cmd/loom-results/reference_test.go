package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/refdoc"
)

const referencePath = "../../" + refdoc.Path

// TestReferenceFlags checks the flags table of docs/reference.md against
// the server's flag set: every flag it registers has a row, no other flag
// does, and each row's default is the flag's.
func TestReferenceFlags(t *testing.T) {
	t.Parallel()
	doc, err := refdoc.Read(referencePath)
	require.NoError(t, err)
	fs, _ := newServerFlags()
	problems := checkReferenceFlags(doc, fs)
	assert.Empty(t, problems, "%s is behind the flags:\n%s", refdoc.Path, strings.Join(problems, "\n"))
}

// TestReferenceFlagsChecksFail: the check catches a flag without a row, a
// row without a flag and a wrong default.
func TestReferenceFlagsChecksFail(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(referencePath)
	require.NoError(t, err)
	page := string(raw)
	edit := func(t *testing.T, old, new string) *refdoc.Doc {
		t.Helper()
		require.Contains(t, page, old)
		return refdoc.Parse(strings.Replace(page, old, new, 1))
	}

	t.Run("a flag without a row", func(t *testing.T) {
		t.Parallel()
		fs, _ := newServerFlags()
		fs.Bool("fake-flag", false, "not a flag of the server")
		got := checkReferenceFlags(refdoc.Parse(page), fs)
		assert.Equal(t, []string{"flag --fake-flag has no row in the flags table"}, got)
	})
	t.Run("a row without a flag", func(t *testing.T) {
		t.Parallel()
		fs, _ := newServerFlags()
		got := checkReferenceFlags(edit(t, "| `--write` |", "| `--writable` |"), fs)
		assert.Equal(t, []string{"flag --write has no row in the flags table", "the flags table documents --writable, which the server does not register"}, got)
	})
	t.Run("a wrong default", func(t *testing.T) {
		t.Parallel()
		fs, _ := newServerFlags()
		got := checkReferenceFlags(edit(t, "| `--max-lookups N` | `8` |", "| `--max-lookups N` | `16` |"), fs)
		assert.Equal(t, []string{"flag --max-lookups: the default is `16`, the flag's is 8"}, got)
	})
	t.Run("a duration", func(t *testing.T) {
		t.Parallel()
		fs, _ := newServerFlags()
		got := checkReferenceFlags(edit(t, "| `--idle-timeout D` | `30m` |", "| `--idle-timeout D` | `30s` |"), fs)
		assert.Equal(t, []string{"flag --idle-timeout: the default is `30s`, the flag's is 30m0s"}, got)
	})
}

var flagCell = regexp.MustCompile(`^--([a-z][a-z-]*)( |$)`)

// checkReferenceFlags returns what the tables of doc's "Flags" whose first
// column is "flag" get wrong about fs, one line a problem. A flag whose
// default is empty or false documents it in words ("off", "none"); any
// other default is the first code span of its default cell, compared as a
// duration for a duration flag.
func checkReferenceFlags(doc *refdoc.Doc, fs *flag.FlagSet) []string {
	section := doc.Section("Flags")
	if section == nil {
		return []string{"no section Flags"}
	}
	var problems []string
	rows := map[string][]string{}
	var order []string
	for _, table := range section.Tables("flag") {
		for _, row := range table.Rows {
			spans := refdoc.CodeSpans(row[0])
			var m []string
			if len(spans) > 0 {
				m = flagCell.FindStringSubmatch(spans[0])
			}
			if len(row) != 3 || m == nil {
				problems = append(problems, fmt.Sprintf("a row is not | `--flag ARG` | default | meaning |: %q", row))
				continue
			}
			if _, dup := rows[m[1]]; dup {
				problems = append(problems, fmt.Sprintf("flag --%s has two rows", m[1]))
			}
			rows[m[1]] = row
			order = append(order, m[1])
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		row, ok := rows[f.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("flag --%s has no row in the flags table", f.Name))
			return
		}
		if p := checkFlagDefault(f, row[1]); p != "" {
			problems = append(problems, fmt.Sprintf("flag --%s: %s", f.Name, p))
		}
	})
	for _, name := range order {
		if fs.Lookup(name) == nil {
			problems = append(problems, fmt.Sprintf("the flags table documents --%s, which the server does not register", name))
		}
	}
	return problems
}

// checkFlagDefault says what is wrong with cell as f's default, or "".
func checkFlagDefault(f *flag.Flag, cell string) string {
	spans := refdoc.CodeSpans(cell)
	if f.DefValue == "" || f.DefValue == "false" {
		if cell == "" || strings.HasPrefix(cell, "`") {
			return fmt.Sprintf("the default is empty, so the cell says in words what leaving it out means, not %q", cell)
		}
		return ""
	}
	if len(spans) == 0 || !strings.HasPrefix(cell, "`") {
		return fmt.Sprintf("the default cell %q does not start with the default, %s", cell, f.DefValue)
	}
	got := spans[0]
	if g, ok := f.Value.(flag.Getter); ok {
		if want, ok := g.Get().(time.Duration); ok {
			d, err := time.ParseDuration(got)
			if err != nil || d != want {
				return fmt.Sprintf("the default is `%s`, the flag's is %s", got, f.DefValue)
			}
			return ""
		}
	}
	if got != f.DefValue {
		return fmt.Sprintf("the default is `%s`, the flag's is %s", got, f.DefValue)
	}
	return ""
}
