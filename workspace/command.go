package workspace

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Command is one command that a person named with --run NAME=COMMAND
// (SPEC sections 2 and 10): the name the model runs it by, the command as
// given, and its words, the first of them the program.
type Command struct {
	Name string
	Line string
	Args []string
}

// MaxCommandName is the longest NAME that --run accepts.
const MaxCommandName = 32

// ParseCommand reads one --run value, NAME=COMMAND. NAME is 1 to 32
// characters of a-z, 0-9, _ and -, starting with a letter; COMMAND is split
// into words as SplitWords splits them, and must hold at least one, the
// program, which may not be an empty word.
func ParseCommand(value string) (Command, error) {
	name, line, ok := strings.Cut(value, "=")
	if !ok {
		return Command{}, fmt.Errorf("%q is not NAME=COMMAND", value)
	}
	if err := CheckCommandName(name); err != nil {
		return Command{}, err
	}
	args, err := SplitWords(line)
	if err != nil {
		return Command{}, fmt.Errorf("command %s: %w", name, err)
	}
	switch {
	case len(args) == 0:
		return Command{}, fmt.Errorf("command %s is empty: give the program and its arguments after %s=", name, name)
	case args[0] == "":
		return Command{}, fmt.Errorf("command %s: the program is an empty word", name)
	}
	return Command{Name: name, Line: line, Args: args}, nil
}

// CheckCommandName checks a command's NAME: 1 to 32 characters of a-z,
// 0-9, _ and -, starting with a letter.
func CheckCommandName(name string) error {
	switch {
	case name == "":
		return errors.New("a command needs a name: NAME=COMMAND")
	case len(name) > MaxCommandName:
		return fmt.Errorf("name %q is %d characters, over %d", name, len(name), MaxCommandName)
	case name[0] < 'a' || name[0] > 'z':
		return fmt.Errorf("name %q must start with a letter a-z", name)
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("name %q holds %q: a name is a-z, 0-9, _ and -", name, c)
		}
	}
	return nil
}

// SplitWords splits line into words as a POSIX shell splits a simple
// command: at unquoted blanks and newlines, with single quotes, double
// quotes and backslashes removed as the shell removes them. Nothing is
// expanded, so what a shell would expand is refused rather than passed on
// as it is: parameters ($HOME, ${x}), command substitution ($(...) and
// backquotes), arithmetic, a leading unquoted ~, and unquoted *, ? or
// [...] (pathname expansion). So are the parts of the shell's language
// that are not words: operators (; & | && ||), redirections, variable
// assignments before the program, comments, and more than one line of
// commands. Quote such a character (single quotes keep everything as it
// is) to pass it literally.
//
// The parsing is mvdan.cc/sh's POSIX parser; quote removal is unquote's.
func SplitWords(line string) ([]string, error) {
	parser := syntax.NewParser(syntax.Variant(syntax.LangPOSIX), syntax.KeepComments(true))
	f, err := parser.Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("%q is not a simple command: %v", line, shellError(err))
	}
	if len(f.Last) > 0 {
		return nil, fmt.Errorf("%q holds a comment (#): quote the # to pass it", line)
	}
	switch len(f.Stmts) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("%q is more than one command: give one program and its arguments", line)
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	switch {
	case len(st.Comments) > 0:
		return nil, fmt.Errorf("%q holds a comment (#): quote the # to pass it", line)
	case !ok || st.Negated || st.Background || st.Coprocess || st.Disown || st.Semicolon.IsValid():
		return nil, fmt.Errorf("%q is not a simple command: operators (; & | && || ! and compound commands) are not run", line)
	case len(st.Redirs) > 0:
		return nil, fmt.Errorf("%q redirects (<, >): the output is captured and standard input is empty", line)
	case len(call.Assigns) > 0:
		return nil, fmt.Errorf("%q assigns a variable before the program (%s=...): the command gets the server's environment", line, call.Assigns[0].Name.Value)
	}
	args := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		if err := literalWord(w); err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		args = append(args, unquote(w))
	}
	return args, nil
}

// literalWord checks that a word holds nothing a shell would expand: only
// literals, single quotes, and double quotes that hold only literals.
func literalWord(w *syntax.Word) error {
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return fmt.Errorf("%s would be expanded by a shell (a home directory), and nothing is expanded here: write the path out, or quote it", p.Value)
			}
			if pattern.HasMeta(p.Value, 0) {
				return fmt.Errorf("%s would be expanded by a shell (a file name pattern), and nothing is expanded here: quote it to pass it as it is", p.Value)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return errors.New("$'...' is not POSIX: use '...'")
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return errors.New(`$"..." is not POSIX: use "..."`)
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return expansion(q)
				}
			}
		default:
			return expansion(part)
		}
	}
	return nil
}

// unquote is the word's quote removal (POSIX 2.6.7) for a word that
// literalWord accepted: unquoted, a backslash keeps the next character and
// goes (the parser has already dropped a backslash-newline); single quotes
// keep everything; inside double quotes a backslash goes only before $, `,
// ", \ and a newline (which it removes too). mvdan.cc/sh's expand package
// would do more: its Fields adds brace expansion, which POSIX shells do not
// have, and its Literal keeps unquoted backslashes.
func unquote(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				if p.Value[i] == '\\' && i+1 < len(p.Value) {
					i++
					if p.Value[i] == '\n' {
						continue
					}
				}
				b.WriteByte(p.Value[i])
			}
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				v := q.(*syntax.Lit).Value
				for i := 0; i < len(v); i++ {
					if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
						i++
						if v[i] == '\n' {
							continue
						}
					}
					b.WriteByte(v[i])
				}
			}
		}
	}
	return b.String()
}

// expansion is the error of a word part that a shell would expand.
func expansion(part syntax.WordPart) error {
	what := "an expansion"
	switch p := part.(type) {
	case *syntax.ParamExp:
		what = "$" + p.Param.Value
		if !p.Short {
			what = "${" + p.Param.Value + "...}"
		}
	case *syntax.CmdSubst:
		what = "a command substitution"
	case *syntax.ArithmExp:
		what = "an arithmetic expansion"
	}
	return fmt.Errorf("%s would be expanded by a shell, and nothing is expanded here: write the value out, or quote it with '...' to pass it as it is", what)
}

// shellError is the parser's message without its position prefix when the
// input is one line.
func shellError(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	return err.Error()
}
