package workspace

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
)

// direntLayouts are the struct dirent of each BSD system as its headers
// declare it (sys/dirent.h), for parseDirentsAt.
var direntLayouts = map[string]direntLayout{
	// d_ino 8, d_seekoff 8, d_reclen 2, d_namlen 2, d_type 1, d_name
	"darwin": {reclen: 16, namlen: 18, namlenSize: 2, typ: 20, name: 21},
	// d_fileno 8, d_off 8, d_reclen 2, d_type 1, d_pad0 1, d_namlen 2, d_pad1 2, d_name
	"freebsd": {reclen: 16, namlen: 20, namlenSize: 2, typ: 18, name: 24},
	// d_fileno 8, d_reclen 2, d_namlen 2, d_type 1, d_name
	"netbsd": {reclen: 8, namlen: 10, namlenSize: 2, typ: 12, name: 13},
	// d_fileno 8, d_off 8, d_reclen 2, d_type 1, d_namlen 1, d_padding 4, d_name
	"openbsd": {reclen: 16, namlen: 19, namlenSize: 1, typ: 18, name: 24},
}

type testDirent struct {
	ino  uint64
	name string
	typ  entryType
}

// direntRecord lays out one record as l says, in the machine's byte
// order: the name NUL-terminated, the record padded to 8 bytes.
func direntRecord(l direntLayout, e testDirent) []byte {
	n := (int(l.name) + len(e.name) + 1 + 7) &^ 7
	rec := make([]byte, n)
	binary.NativeEndian.PutUint64(rec, e.ino)
	binary.NativeEndian.PutUint16(rec[l.reclen:], uint16(n))
	if l.namlenSize == 1 {
		rec[l.namlen] = byte(len(e.name))
	} else {
		binary.NativeEndian.PutUint16(rec[l.namlen:], uint16(len(e.name)))
	}
	rec[l.typ] = byte(e.typ)
	copy(rec[l.name:], e.name)
	return rec
}

// TestParseDirentsAt: the names and types of each BSD system's records,
// without ".", "..", removed entries (inode 0) and what follows a record
// that does not fit.
func TestParseDirentsAt(t *testing.T) {
	t.Parallel()
	entries := []testDirent{
		{1, ".", typeDir}, {2, "..", typeDir}, {3, "a.go", typeReg}, {4, "dir", typeDir}, {5, "link", typeLink},
		{0, "removed", typeReg}, {6, "fifo", 1}, {7, "ü name with spaces", typeReg}, {8, "x", typeUnknown},
		{9, string(make([]byte, 255)), typeReg}, // a name of 255 NUL bytes: empty, left out
		{10, "...", typeReg},
	}
	wantNames := []string{"a.go", "dir", "link", "fifo", "ü name with spaces", "x", "..."}
	wantTypes := []entryType{typeReg, typeDir, typeLink, 1, typeReg, typeUnknown, typeReg}
	for system, l := range direntLayouts {
		t.Run(system, func(t *testing.T) {
			t.Parallel()
			var buf []byte
			for _, e := range entries {
				buf = append(buf, direntRecord(l, e)...)
			}
			names, types := parseDirentsAt(buf, []string{"kept"}, []entryType{typeReg}, l)
			assert.Equal(t, append([]string{"kept"}, wantNames...), names)
			assert.Equal(t, append([]entryType{typeReg}, wantTypes...), types)

			// A last record cut short, or one whose name is longer than
			// it, ends the parse.
			cut := append(direntRecord(l, entries[2]), direntRecord(l, entries[3])[:int(l.name)+1]...)
			names, _ = parseDirentsAt(cut, nil, nil, l)
			assert.Equal(t, []string{"a.go"}, names)
			bad := direntRecord(l, entries[2])
			if l.namlenSize == 1 {
				bad[l.namlen] = 200
			} else {
				binary.NativeEndian.PutUint16(bad[l.namlen:], 200)
			}
			names, _ = parseDirentsAt(append(bad, direntRecord(l, entries[3])...), nil, nil, l)
			assert.Empty(t, names)
		})
	}
}
