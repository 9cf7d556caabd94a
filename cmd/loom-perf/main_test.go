package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUsage checks the command lines refused before anything is built.
func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--runs", "0"},
		{"--runs", "x"},
		{"--phases", "warm,nope"},
		{"--phases", ""},
		{"--no-such-flag"},
		{"extra"},
	} {
		err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
		var usage usageError
		assert.True(t, errors.As(err, &usage), "%v: %v", args, err)
	}
}
