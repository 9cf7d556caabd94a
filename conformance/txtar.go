package conformance

import (
	"bytes"
	"strings"
)

// archive is a txtar archive: a comment, then files, each introduced by a
// line "-- NAME --". It follows golang.org/x/tools/txtar (Parse and Format
// there), kept here so that the scripts need no extra module.
type archive struct {
	Comment []byte
	Files   []archiveFile
}

// archiveFile is one file of an archive.
type archiveFile struct {
	Name string
	Data []byte
}

// parseArchive parses data as a txtar archive. Every file's data ends in a
// newline unless it is empty, as in golang.org/x/tools/txtar.
func parseArchive(data []byte) *archive {
	a := new(archive)
	var name string
	a.Comment, name, data = findFileMarker(data)
	for name != "" {
		f := archiveFile{Name: name}
		f.Data, name, data = findFileMarker(data)
		a.Files = append(a.Files, f)
	}
	return a
}

// format returns the archive's serialised form; parseArchive(format(a))
// equals a once every file's data ends in a newline.
func (a *archive) format() []byte {
	var buf bytes.Buffer
	buf.Write(fixNL(a.Comment))
	for _, f := range a.Files {
		buf.WriteString("-- " + f.Name + " --\n")
		buf.Write(fixNL(f.Data))
	}
	return buf.Bytes()
}

// findFileMarker returns the text before the next file marker, the marker's
// name and the text after the marker's line. Without a marker it returns
// all of data and an empty name.
func findFileMarker(data []byte) (before []byte, name string, after []byte) {
	var i int
	for {
		if name, after = isMarker(data[i:]); name != "" {
			return fixNL(data[:i]), name, after
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return fixNL(data), "", nil
		}
		i += j + 1
	}
}

// isMarker reports whether data starts with a file marker line, and if so
// the name and the data after the line.
func isMarker(data []byte) (name string, after []byte) {
	if !bytes.HasPrefix(data, []byte("-- ")) {
		return "", nil
	}
	line := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, after = data[:i], data[i+1:]
	}
	line = bytes.TrimRight(line, "\r")
	if !bytes.HasSuffix(line, []byte(" --")) || len(line) < len("-- x --") {
		return "", nil
	}
	return strings.TrimSpace(string(line[3 : len(line)-3])), after
}

// fixNL returns data with a final newline added when it is missing.
func fixNL(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	return append(bytes.Clone(data), '\n')
}
