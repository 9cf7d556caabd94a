// Package refdoc reads docs/reference.md for the tests that keep it in step
// with the code (the tools and error codes in package server, the flags in
// cmd/loom-results): its sections by heading, the rows of its tables, and
// its code blocks. It knows only the little Markdown that page uses.
package refdoc

import (
	"os"
	"strings"
)

// Path is the page, relative to the repository's root.
const Path = "docs/reference.md"

// Doc is the page, split into sections.
type Doc struct {
	Sections []Section
}

// Section is a heading and the lines under it, up to the next heading of
// the same or a higher level; a subsection's lines belong to it as well.
type Section struct {
	Level int    // 1 for "#", 2 for "##", ...
	Title string // the heading's text, as written
	Lines []string
}

// Read reads and parses the file at path.
func Read(path string) (*Doc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(b)), nil
}

// Parse splits text into its sections. Lines inside fenced code blocks are
// never headings.
func Parse(text string) *Doc {
	lines := strings.Split(text, "\n")
	var d Doc
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		level, title, ok := heading(line)
		if !ok {
			continue
		}
		d.Sections = append(d.Sections, Section{Level: level, Title: title, Lines: lines[i+1 : end(lines, i+1, level)]})
	}
	return &d
}

// end returns the index of the first heading at or above level from i on,
// or len(lines).
func end(lines []string, i, level int) int {
	fenced := false
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "```") {
			fenced = !fenced
			continue
		}
		if l, _, ok := heading(lines[i]); ok && !fenced && l <= level {
			return i
		}
	}
	return len(lines)
}

func heading(line string) (level int, title string, ok bool) {
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(line) || line[level] != ' ' {
		return 0, "", false
	}
	return level, strings.TrimSpace(line[level+1:]), true
}

// Section returns the first section titled title, or nil.
func (d *Doc) Section(title string) *Section {
	for i := range d.Sections {
		if d.Sections[i].Title == title {
			return &d.Sections[i]
		}
	}
	return nil
}

// Subsections returns the sections of the given level inside s, which
// must be one of d's sections.
func (d *Doc) Subsections(s *Section, level int) []Section {
	var out []Section
	inside := false
	for i := range d.Sections {
		t := &d.Sections[i]
		switch {
		case t == s:
			inside = true
		case inside && t.Level <= s.Level:
			return out
		case inside && t.Level == level:
			out = append(out, *t)
		}
	}
	return out
}

// Table is a Markdown table: its header cells and its rows of cells.
type Table struct {
	Header []string
	Rows   [][]string
}

// Tables returns the tables among s's lines whose first header cell is
// first, outside code blocks.
func (s *Section) Tables(first string) []Table {
	var out []Table
	var cur *Table
	fenced := false
	for _, line := range s.Lines {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := Cells(line)
		switch {
		case cur == nil:
			if len(cells) > 0 && cells[0] == first {
				out = append(out, Table{Header: cells})
				cur = &out[len(out)-1]
			} else {
				// A table of another kind: skip it to its end.
				cur = &Table{}
			}
		case isRule(cells):
		default:
			if cur.Header != nil {
				cur.Rows = append(cur.Rows, cells)
			}
		}
	}
	return out
}

// Cells splits a table row at its unescaped "|" and trims each cell;
// "\|" stands for "|" inside a cell.
func Cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" || c == "" {
			return false
		}
	}
	return true
}

// CodeSpans returns the contents of the `code spans` in text, in order.
func CodeSpans(text string) []string {
	var out []string
	for {
		i := strings.IndexByte(text, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(text[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, text[i+1:i+1+j])
		text = text[i+1+j+1:]
	}
}

// CodeLines returns the lines of s's fenced code blocks.
func (s *Section) CodeLines() []string {
	var out []string
	fenced := false
	for _, line := range s.Lines {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, line)
		}
	}
	return out
}
