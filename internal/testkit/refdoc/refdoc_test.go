package refdoc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const page = "# Title\n\nintro\n\n## Tools\n\n### `a`\n\n| argument | type |\n|---|---|\n| `x` | `a\\|b` |\n| `y` | string |\n\n" +
	"| field | type |\n|---|---|\n| `f` | integer |\n\n```\n## not a heading\n| argument | no |\n```\n\n### `b`\n\nNo arguments.\n\n## Errors\n\ntext `one` and `two`\n"

func TestParse(t *testing.T) {
	t.Parallel()
	d := Parse(page)
	var titles []string
	for _, s := range d.Sections {
		titles = append(titles, s.Title)
	}
	assert.Equal(t, []string{"Title", "Tools", "`a`", "`b`", "Errors"}, titles)

	tools := d.Section("Tools")
	require.NotNil(t, tools)
	var subs []string
	for _, s := range d.Subsections(tools, 3) {
		subs = append(subs, s.Title)
	}
	assert.Equal(t, []string{"`a`", "`b`"}, subs)

	a := d.Section("`a`")
	require.NotNil(t, a)
	got := a.Tables("argument")
	require.Len(t, got, 1, "the table in the code block is not a table")
	assert.Equal(t, []string{"argument", "type"}, got[0].Header)
	assert.Equal(t, [][]string{{"`x`", "`a|b`"}, {"`y`", "string"}}, got[0].Rows)
	assert.Equal(t, []string{"## not a heading", "| argument | no |"}, a.CodeLines())

	assert.Nil(t, d.Section("not a heading"))
	assert.Equal(t, []string{"one", "two"}, CodeSpans(d.Section("Errors").Lines[1]))
	assert.Empty(t, d.Section("`b`").Tables("argument"))
}
