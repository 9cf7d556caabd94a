package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--runs", "0"},
		{"--runs", "x"},
		{"--no-such-flag"},
		{"extra"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		var usage usageError
		assert.True(t, errors.As(err, &usage), "%v: %v", args, err)
		assert.NotEmpty(t, stderr.String(), "%v", args)
	}
}
