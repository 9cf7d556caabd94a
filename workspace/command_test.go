package workspace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		name  string
		args  []string
	}{
		{"test=go test ./...", "test", []string{"go", "test", "./..."}},
		{"a=x", "a", []string{"x"}},
		{"lint-all_2=golangci-lint run", "lint-all_2", []string{"golangci-lint", "run"}},
		{"t=  go   test\t./...  ", "t", []string{"go", "test", "./..."}},
		{"t=echo 'a b' \"c d\" e\\ f", "t", []string{"echo", "a b", "c d", "e f"}},
		{`t=echo "a\"b\\c\$d\x"`, "t", []string{"echo", `a"b\c$d\x`}},
		{`t=echo 'it''s' "" ''`, "t", []string{"echo", "its", "", ""}},
		{`t=echo '$HOME' \$HOME "\$HOME"`, "t", []string{"echo", "$HOME", "$HOME", "$HOME"}},
		{`t=echo '*.go' \*.go "[ab]" a\?`, "t", []string{"echo", "*.go", "*.go", "[ab]", "a?"}},
		{`t=echo \~ '~/x' a~b`, "t", []string{"echo", "~", "~/x", "a~b"}},
		{`t=echo '#' a#b \#`, "t", []string{"echo", "#", "a#b", "#"}},
		{`t=echo {a,b} a=b [`, "t", []string{"echo", "{a,b}", "a=b", "["}},
		{"t=go \\\n test", "t", []string{"go", "test"}},
		{"t=echo \"two\nlines\"", "t", []string{"echo", "two\nlines"}},
		{`t=echo \\`, "t", []string{"echo", `\`}},
		{"t=./scripts/test.sh -v", "t", []string{"./scripts/test.sh", "-v"}},
		{"t=go test -run 'Test(A|B)$' ./x=y", "t", []string{"go", "test", "-run", "Test(A|B)$", "./x=y"}},
		{"t=echo é ü", "t", []string{"echo", "é", "ü"}},
		{"t=echo a\\\nb", "t", []string{"echo", "ab"}},
		{"t=echo \"a\\\nb\" \"c\\\\d\"", "t", []string{"echo", "ab", `c\d`}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCommand(tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.name, got.Name)
			assert.Equal(t, tt.args, got.Args)
			assert.Equal(t, tt.value[len(tt.name)+1:], got.Line)
		})
	}
}

func TestParseCommandRefuses(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 33)
	tests := []struct {
		value string
		want  string // the error's message, or a part of it
	}{
		{"go test", `"go test" is not NAME=COMMAND`},
		{"=go test", "a command needs a name: NAME=COMMAND"},
		{long + "=x", `name "` + long + `" is 33 characters, over 32`},
		{"Test=x", `name "Test" must start with a letter a-z`},
		{"1t=x", `name "1t" must start with a letter a-z`},
		{"-t=x", `name "-t" must start with a letter a-z`},
		{"t.x=x", `name "t.x" holds '.': a name is a-z, 0-9, _ and -`},
		{"té=x", `name "té" holds 'é': a name is a-z, 0-9, _ and -`},
		{"t=a=b", "assigns a variable before the program (a=...)"},
		{"t=", "command t is empty: give the program and its arguments after t="},
		{"t=   ", "command t is empty"},
		{"t=''", "command t: the program is an empty word"},
		{"t=echo $HOME", "$HOME would be expanded by a shell, and nothing is expanded here"},
		{`t=echo "$HOME"`, "$HOME would be expanded by a shell"},
		{`t=echo ${HOME}`, "${HOME...} would be expanded by a shell"},
		{"t=echo $(ls)", "a command substitution would be expanded by a shell"},
		{"t=echo `ls`", "a command substitution would be expanded by a shell"},
		{"t=echo $((1+1))", "an arithmetic expansion would be expanded by a shell"},
		{"t=echo *.go", "*.go would be expanded by a shell (a file name pattern)"},
		{"t=echo a?", "a? would be expanded by a shell (a file name pattern)"},
		{"t=echo [ab]", "[ab] would be expanded by a shell (a file name pattern)"},
		{"t=echo ~/x", "~/x would be expanded by a shell (a home directory)"},
		{"t=go test; rm -rf x", "is more than one command"},
		{"t=go test\ngo vet", "is more than one command"},
		{"t=go test && go vet", "is not a simple command"},
		{"t=go test | tee log", "is not a simple command"},
		{"t=go test &", "is not a simple command"},
		{"t=! go test", "is not a simple command"},
		{"t=(go test)", "is not a simple command"},
		{"t=go test > log", "redirects (<, >)"},
		{"t=go test < /dev/null", "redirects (<, >)"},
		{"t=GOFLAGS=-v go test", "assigns a variable before the program (GOFLAGS=...)"},
		{"t=go test # all", "holds a comment (#)"},
		{`t=echo "unterminated`, "is not a simple command: reached EOF without closing quote `\"`"},
		{`t=echo 'unterminated`, "is not a simple command"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			_, err := ParseCommand(tt.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
