package workspace

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless yields 'g' forever: a file that keeps growing while it is read.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'g'
	}
	return len(p), nil
}

// counting counts the bytes that its reader delivered.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestReadBounded(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("input/output error")
	text := strings.Repeat("0123456789", 300) // 3,000 bytes

	tests := []struct {
		name         string
		r            io.Reader
		sizeHint     int64
		maxBytes     int64
		wantData     string
		wantOver     bool
		wantErr      error
		wantConsumed int64 // -1: do not check
	}{
		{name: "exact size", r: strings.NewReader(text), sizeHint: 3000, maxBytes: 3000, wantData: text, wantConsumed: 3000},
		{name: "under limit", r: strings.NewReader(text), sizeHint: 3000, maxBytes: 1 << 20, wantData: text, wantConsumed: 3000},
		{name: "empty", r: strings.NewReader(""), sizeHint: 0, maxBytes: 0, wantData: "", wantConsumed: 0},
		// /proc files report size 0 and have contents.
		{name: "size 0 with contents", r: strings.NewReader(text), sizeHint: 0, maxBytes: 1 << 20, wantData: text, wantConsumed: 3000},
		{name: "size 0 over limit", r: strings.NewReader(text), sizeHint: 0, maxBytes: 100, wantOver: true, wantConsumed: 101},
		// A file that grows past its stat size while it is read: never
		// more than maxBytes+1 bytes are taken from it.
		{name: "grows past limit", r: endless{}, sizeHint: 10, maxBytes: 20, wantOver: true, wantConsumed: 21},
		{name: "grows past limit from size 0", r: endless{}, sizeHint: 0, maxBytes: 5000, wantOver: true, wantConsumed: 5001},
		{name: "grows with limit 0", r: endless{}, sizeHint: 0, maxBytes: 0, wantOver: true, wantConsumed: 1},
		{name: "grows within limit", r: strings.NewReader(text), sizeHint: 10, maxBytes: 3000, wantData: text, wantConsumed: 3000},
		{name: "grows by one past limit", r: strings.NewReader(text), sizeHint: 2999, maxBytes: 2999, wantOver: true, wantConsumed: 3000},
		// A file that shrinks returns what was there.
		{name: "shrinks", r: strings.NewReader("short"), sizeHint: 100, maxBytes: 200, wantData: "short", wantConsumed: 5},
		{name: "one byte at a time", r: iotest.OneByteReader(strings.NewReader(text)), sizeHint: 3000, maxBytes: 3000, wantData: text, wantConsumed: 3000},
		{name: "one byte at a time over", r: iotest.OneByteReader(endless{}), sizeHint: 0, maxBytes: 700, wantOver: true, wantConsumed: 701},
		{name: "data with EOF", r: iotest.DataErrReader(strings.NewReader(text)), sizeHint: 3000, maxBytes: 3000, wantData: text, wantConsumed: 3000},
		{name: "read error", r: iotest.TimeoutReader(strings.NewReader(text)), sizeHint: 3000, maxBytes: 3000, wantErr: iotest.ErrTimeout, wantConsumed: -1},
		{name: "error after data", r: io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(errDisk)), sizeHint: 3, maxBytes: 10, wantErr: errDisk, wantConsumed: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &counting{r: tt.r}
			data, over, err := readBounded(c, tt.sizeHint, tt.maxBytes, nil)
			if tt.wantConsumed >= 0 {
				assert.Equal(t, tt.wantConsumed, c.n, "bytes consumed")
			}
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, data)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOver, over, "over")
			if !tt.wantOver {
				assert.Equal(t, tt.wantData, string(data))
				assert.NotNil(t, data)
			}
		})
	}
}

// TestReadBoundedAllocatesOnce checks that a file whose stat size is right
// costs one allocation of size+1 bytes, with no growth.
func TestReadBoundedAllocatesOnce(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 1<<20)
	br := bytes.NewReader(nil)
	var got []byte
	allocs := testing.AllocsPerRun(10, func() {
		br.Reset(data)
		var err error
		got, _, err = readBounded(br, int64(len(data)), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
	})
	assert.Equal(t, 1.0, allocs)
	assert.Equal(t, len(data), len(got))
	assert.Equal(t, len(data)+1, cap(got))
}

// TestReadBoundedWatch checks that a watcher sees every prefix as it is
// read, at most readWindow bytes more each time, including across the
// growth of a file that is larger than its stat size.
func TestReadBoundedWatch(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3*readWindow+123)
	for i := range data {
		data[i] = byte(i % 251)
	}
	for _, hint := range []int64{int64(len(data)), 10, 0} {
		var seen []int
		got, over, err := readBounded(bytes.NewReader(data), hint, 1<<30, func(filled []byte) {
			require.Equal(t, data[:len(filled)], filled)
			if len(seen) > 0 {
				require.LessOrEqual(t, len(filled)-seen[len(seen)-1], readWindow)
				require.Greater(t, len(filled), seen[len(seen)-1])
			}
			seen = append(seen, len(filled))
		})
		require.NoError(t, err)
		assert.False(t, over)
		assert.Equal(t, data, got)
		assert.Equal(t, len(data), seen[len(seen)-1], "hint %d", hint)
		if hint == int64(len(data)) {
			assert.Equal(t, []int{readWindow, 2 * readWindow, 3 * readWindow, len(data)}, seen)
		}
	}
}
