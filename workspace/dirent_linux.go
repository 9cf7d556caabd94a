//go:build linux

package workspace

import (
	"bytes"
	"encoding/binary"
)

// parseDirents appends the names and types of the entries in buf, as
// getdents64 writes them (struct linux_dirent64, the same on every
// architecture, in the machine's byte order), "." and ".." left out.
func parseDirents(buf []byte, names []string, types []entryType) ([]string, []entryType) {
	const (
		reclenOff = 16 // d_ino (8), d_off (8)
		typeOff   = 18 // then d_reclen (2)
		nameOff   = 19 // then d_type (1)
	)
	for len(buf) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16(buf[reclenOff:]))
		if reclen < nameOff || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[nameOff:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
			continue
		}
		names = append(names, string(name))
		types = append(types, entryType(rec[typeOff]))
	}
	return names, types
}
