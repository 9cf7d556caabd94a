package selectors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
)

func TestByteRange(t *testing.T) {
	t.Parallel()
	data := []byte("añb€c") // a(0) ñ(1-2) b(3) €(4-6) c(7); size 8
	tests := []struct {
		name       string
		start, end int64
		want       string
		code       errcode.Code
		details    errcode.Details
	}{
		{"whole", 0, 8, "añb€c", "", errcode.Details{}},
		{"empty at start", 0, 0, "", "", errcode.Details{}},
		{"empty at end", 8, 8, "", "", errcode.Details{}},
		{"multi-byte char", 1, 3, "ñ", "", errcode.Details{}},
		{"negative start", -1, 3, "", errcode.InvalidRange, errcode.Details{Size: new(int64(8))}},
		{"start past size", 9, 9, "", errcode.InvalidRange, errcode.Details{Size: new(int64(8))}},
		{"end before start", 3, 1, "", errcode.InvalidRange, errcode.Details{Size: new(int64(8))}},
		{"end past size", 0, 9, "", errcode.InvalidRange, errcode.Details{Size: new(int64(8))}},
		{"start inside char", 2, 3, "", errcode.NotCharBoundary,
			errcode.Details{Offset: new(int64(2)), Before: new(int64(1)), After: new(int64(3))}},
		{"end inside char", 3, 6, "", errcode.NotCharBoundary,
			errcode.Details{Offset: new(int64(6)), Before: new(int64(4)), After: new(int64(7))}},
		// SPEC 4: start's range, then its boundary, then end's range.
		{"start boundary before end range", 2, 99, "", errcode.NotCharBoundary,
			errcode.Details{Offset: new(int64(2)), Before: new(int64(1)), After: new(int64(3))}},
		{"end range before end boundary", 3, 99, "", errcode.InvalidRange, errcode.Details{Size: new(int64(8))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ByteRange(data, tt.start, tt.end)
			if tt.code != "" {
				require.NotNil(t, err)
				assert.Equal(t, tt.code, err.Code)
				assert.Equal(t, tt.details, err.Details)
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.want, string(data[got.Start:got.End]))
		})
	}
}

func TestByteRangeMessage(t *testing.T) {
	t.Parallel()
	_, err := ByteRange([]byte("abc"), 2, 7)
	require.NotNil(t, err)
	assert.Equal(t, "error invalid_range: bytes 2-7 outside 0-3: need 0 <= start <= end <= 3", err.Text())
}

func TestCharBoundaries(t *testing.T) {
	t.Parallel()
	data := []byte("a€b") // € is 1-3
	assert.Equal(t, 1, FloorCharBoundary(data, 2))
	assert.Equal(t, 4, CeilCharBoundary(data, 2))
	assert.Equal(t, 5, FloorCharBoundary(data, 9))
	assert.True(t, IsCharBoundary(data, 5))
	assert.False(t, IsCharBoundary(data, 3))
}

func FuzzByteRange(f *testing.F) {
	f.Add([]byte("añb€c"), int64(1), int64(3))
	f.Add([]byte(""), int64(0), int64(0))
	f.Add([]byte("😀x"), int64(2), int64(5))
	f.Fuzz(func(t *testing.T, data []byte, start, end int64) {
		got, err := ByteRange(data, start, end)
		if err != nil {
			switch err.Code {
			case errcode.InvalidRange, errcode.NotCharBoundary:
			default:
				t.Fatalf("unexpected code %s", err.Code)
			}
			return
		}
		if got.Start < 0 || got.Start > got.End || got.End > len(data) {
			t.Fatalf("span %v outside %d bytes", got, len(data))
		}
		if int64(got.Start) != start || int64(got.End) != end {
			t.Fatalf("span %v is not [%d, %d)", got, start, end)
		}
	})
}
