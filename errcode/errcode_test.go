package errcode

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestError(t *testing.T) {
	t.Parallel()
	err := New(InvalidRange, "lines %d-%d outside 1-%d", 90, 120, 84).With("lines", int64(84))
	assert.Equal(t, "error invalid_range: lines 90-120 outside 1-84", err.Error())
	assert.Equal(t, map[string]any{"lines": int64(84)}, err.Details)
	assert.True(t, errors.Is(err, &Error{Code: InvalidRange}), "errors.Is compares by code")
	assert.False(t, errors.Is(err, &Error{Code: InvalidJSON}))

	off := Offset(NotUTF8, 7, "not valid UTF-8 at byte %d", 7)
	assert.Equal(t, map[string]any{"offset": int64(7)}, off.Details)
	assert.Equal(t, "error not_utf8: not valid UTF-8 at byte 7", off.Error())
}
