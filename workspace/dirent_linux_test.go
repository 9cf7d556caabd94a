package workspace

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestParseDirentsLinux: getdents64's records (struct linux_dirent64: d_ino
// 8, d_off 8, d_reclen 2, d_type 1, d_name NUL-terminated, padded to 8), in
// the machine's byte order; "." and ".." left out, and what follows a
// record that does not fit.
func TestParseDirentsLinux(t *testing.T) {
	t.Parallel()
	record := func(name string, typ entryType) []byte {
		n := (19 + len(name) + 1 + 7) &^ 7
		rec := make([]byte, n)
		binary.NativeEndian.PutUint64(rec, 42)
		binary.NativeEndian.PutUint16(rec[16:], uint16(n))
		rec[18] = byte(typ)
		copy(rec[19:], name)
		return rec
	}
	var buf []byte
	for _, e := range []struct {
		name string
		typ  entryType
	}{{".", typeDir}, {"..", typeDir}, {"a.go", typeReg}, {"d", typeDir}, {"l", typeLink}, {".x", typeUnknown}, {"ü", 1}} {
		buf = append(buf, record(e.name, e.typ)...)
	}
	names, types := parseDirents(buf, nil, nil)
	assert.Equal(t, []string{"a.go", "d", "l", ".x", "ü"}, names)
	assert.Equal(t, []entryType{typeReg, typeDir, typeLink, typeUnknown, 1}, types)

	names, _ = parseDirents(append(record("a", typeReg), record("bcd", typeReg)[:20]...), nil, nil)
	assert.Equal(t, []string{"a"}, names)
}
