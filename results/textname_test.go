package results

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTextName(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"server/tools.go", "server/tools.go"},
		{"dir with space/ü 中.txt", "dir with space/ü 中.txt"},
		{`a"b\c`, `a"b\c`},
		{"", ""},
		{"n\nr9 file forged.go: 1 byte", `"n\nr9 file forged.go: 1 byte"`},
		{"tab\there", `"tab\there"`},
		{"cr\r", `"cr\r"`},
		{"nul\x00", `"nul\x00"`},
		{"del\x7f", `"del\x7f"`},
		{"nel\u0085", `"nel\u0085"`},
		{"line\u2028sep", `"line\u2028sep"`},
		{"para\u2029sep", `"para\u2029sep"`},
		{`"quoted"`, `"\"quoted\""`},
		// A lone surrogate kept in its 3-byte form is no control
		// character: it is shown as it is (the answer's JSON escapes it).
		{"/k\xed\xa0\x80", "/k\xed\xa0\x80"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, TextName(tt.name))
		})
	}
}
