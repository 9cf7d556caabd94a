package replayserver

// idSpan returns where the value of the top-level "id" member of the
// JSON-RPC message msg starts and ends, and false when msg is not an object
// with one (a notification, or not a message). It reads only up to the id:
// clients and servers write it before params and result, so finding it costs
// a few dozen bytes, not the message. Values before the id are skipped with
// their nesting and strings respected; the message is not validated.
func idSpan(msg []byte) (start, end int, ok bool) {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return 0, 0, false
	}
	i++
	for {
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != '"' {
			return 0, 0, false
		}
		keyStart := i + 1
		i = skipString(msg, i)
		if i < 0 {
			return 0, 0, false
		}
		key := msg[keyStart : i-1]
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != ':' {
			return 0, 0, false
		}
		i = skipSpace(msg, i+1)
		valueStart := i
		i = skipValue(msg, i)
		if i < 0 {
			return 0, 0, false
		}
		if string(key) == "id" {
			return valueStart, i, true
		}
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != ',' {
			return 0, 0, false
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i] (a
// quote), or -1 when it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value that starts at b[i], or -1
// when it does not end. Objects and arrays are skipped by counting their
// brackets outside strings; scalars end at the next delimiter.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		start := i
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
}
