package membench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/loombin"
)

func TestTarget(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(32<<20), Target(0))
	assert.Equal(t, int64(160<<20+32<<20), Target(128<<20))
}

func TestArray(t *testing.T) {
	t.Parallel()
	for _, size := range []int{4, 5, 6, 1000, 1001} {
		a := array(size)
		assert.Len(t, a, size)
		var v []int
		require.NoError(t, json.Unmarshal([]byte(a), &v), a)
		assert.Len(t, v, (size-2)/2, a)
	}
}

func TestPrint(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	Print(&out, Config{Runs: 3}, []Row{{Name: "in", Samples: []Sample{
		{Peak: 40 << 20, Stored: 8 << 20, Elapsed: time.Second},
		{Peak: 50 << 20, Stored: 8 << 20, Elapsed: 3 * time.Second},
		{Peak: 45 << 20, Stored: 8 << 20, Elapsed: 2 * time.Second},
	}}})
	assert.Regexp(t, `\n  in +8\.0 MiB +45\.0 MiB \(40\.0 MiB-50\.0 MiB\) +42\.0 MiB +1\.07 +MISSED +2s +0s\n`, out.String())
}

// TestInputsSmall runs every input of the program, at a small size,
// against the real server.
func TestInputsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	t.Parallel()
	tmp := t.TempDir()
	bin, err := loombin.Build(context.Background(), tmp)
	require.NoError(t, err)
	tests := []struct {
		name   string
		run    func(context.Context, env) (Sample, error)
		stored int64
	}{
		{"path", pathInput(8 << 10), 0},
		{"expand", expandArrayInput(64 << 10), 0},
		{"get_json", getJSONInput(64 << 10), 64 << 10},
		{"sessions", sessionsInput(3, 64<<10), 3 * 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(tmp, tt.name)
			require.NoError(t, os.Mkdir(dir, 0o755))
			s, err := tt.run(context.Background(), env{bin: bin, dir: dir})
			require.NoError(t, err)
			assert.Positive(t, s.Peak)
			assert.Equal(t, tt.stored, s.Stored)
		})
	}
}
