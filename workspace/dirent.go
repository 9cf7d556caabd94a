package workspace

import (
	"bytes"
	"encoding/binary"
)

// direntLayout is where a BSD struct dirent (macOS, FreeBSD, NetBSD,
// OpenBSD) holds its fields, each record starting with its 8-byte inode
// number; dirent_bsd.go takes them from x/sys/unix's Dirent. It is built
// on every system so that its parser is tested everywhere.
type direntLayout struct {
	reclen     uintptr // d_reclen, 2 bytes: the record's size
	namlen     uintptr // d_namlen, namlenSize bytes: the name's size
	namlenSize uintptr
	typ        uintptr // d_type, 1 byte
	name       uintptr // d_name
}

// parseDirentsAt appends the names and types of the entries in buf,
// records laid out as l says, in the machine's byte order: "." and "..",
// and entries whose inode number is 0 (removed), left out.
func parseDirentsAt(buf []byte, names []string, types []entryType, l direntLayout) ([]string, []entryType) {
	nameOff := int(l.name)
	for len(buf) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16(buf[l.reclen:]))
		if reclen < nameOff || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		namlen := int(rec[l.namlen])
		if l.namlenSize == 2 {
			namlen = int(binary.NativeEndian.Uint16(rec[l.namlen:]))
		}
		if nameOff+namlen > reclen {
			break
		}
		name := rec[nameOff : nameOff+namlen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if binary.NativeEndian.Uint64(rec) == 0 || len(name) == 0 ||
			name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
			continue
		}
		names = append(names, string(name))
		types = append(types, entryType(rec[l.typ]))
	}
	return names, types
}
