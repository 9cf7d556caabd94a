package jsontape

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInteger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lex  string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"7", 7, true}, {"-7", -7, true},
		{"9223372036854775807", 1<<63 - 1, true}, {"9223372036854775808", 1<<63 - 1, true},
		{"-9223372036854775808", -1 << 63, true}, {"-9223372036854775809", -1 << 63, true},
		{"1.000", 1, true}, {"100e-2", 1, true}, {"0.5e1", 5, true}, {"1E+2", 100, true},
		{"0e999999999999", 0, true}, {"1.01", 0, false}, {"1e-1", 0, false}, {"", 0, false}, {"-", 0, false},
	}
	for _, tt := range tests {
		got, ok := Integer(tt.lex)
		assert.Equal(t, tt.ok, ok, tt.lex)
		assert.Equal(t, tt.want, got, tt.lex)
	}
}
