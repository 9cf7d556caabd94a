package workspace

import (
	"bytes"
	"strings"
)

// This file decides what a listing leaves out (SPEC section 5): the rules
// of the .gitignore files inside the root and of the root's
// .git/info/exclude, read and matched as git reads and matches them (its
// dir.c and wildmatch.c), so that a listing holds what
// `git ls-files -co --exclude-standard` holds for files git does not track.
// The tests compare the two on generated trees. No library was taken: of
// those compared (docs/reference.md, "Listings"), none matches as git does.

// ignoreRule is one line of an ignore file, parsed as git's
// parse_path_pattern parses it.
type ignoreRule struct {
	pattern  string // without "!", without the trailing "/" of a directory rule
	base     string // the directory of its file, root-relative, "" or ending in "/"
	literal  int    // the length of the pattern's leading part without wildcards (git's nowildcardlen)
	negative bool   // "!": a match includes
	dirOnly  bool   // a trailing "/": matches directories only
	noDir    bool   // no "/" in the pattern: matches the last component alone
	endsWith bool   // "*" then a literal: matches names ending in it
}

// ignoreRules are the rules in force in one directory of a walk, in the
// order git gives them priority: the later a rule, the higher. The root's
// .git/info/exclude comes first, then each .gitignore from the root down.
type ignoreRules []ignoreRule

// parseIgnore appends the rules of one ignore file, whose directory is base
// ("" for the root, else ending in "/"), as git's
// add_patterns_from_buffer reads them: lines split at "\n" (a "\r" before
// it dropped), a UTF-8 byte order mark at the start skipped, blank lines
// and lines starting with "#" skipped, trailing spaces trimmed unless
// escaped with a backslash.
func (rs ignoreRules) parseIgnore(data []byte, base string) ignoreRules {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
			line = bytes.TrimSuffix(line, []byte{'\r'})
		} else {
			data = nil
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if r, ok := parseRule(trimTrailingSpaces(string(line)), base); ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// trimTrailingSpaces is git's trim_trailing_spaces: the spaces that end
// the line go, unless the first of them is escaped by a backslash.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parseRule parses one trimmed line (git's parse_path_pattern).
func parseRule(p, base string) (ignoreRule, bool) {
	r := ignoreRule{base: base}
	if strings.HasPrefix(p, "!") {
		r.negative = true
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = p[:len(p)-1]
	}
	if p == "" {
		return r, false // matches nothing
	}
	r.noDir = !strings.Contains(p, "/")
	r.literal = literalLen(p)
	if r.noDir && r.literal == 0 && len(p) > 1 && p[0] == '*' && literalLen(p[1:]) == len(p)-1 {
		r.endsWith = true
	}
	r.pattern = p
	return r, true
}

// literalLen is the length of p's leading part without wildcard or escape
// characters (git's simple_length).
func literalLen(p string) int {
	if i := strings.IndexAny(p, "*?[\\"); i >= 0 {
		return i
	}
	return len(p)
}

// excluded reports whether path (root-relative, slash-separated), whose
// last component is name and which is a directory when dir is set, is
// left out: the last rule that matches it decides (git's
// last_matching_pattern), and none leaves it in.
func (rs ignoreRules) excluded(path, name string, dir bool) bool {
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if r.dirOnly && !dir {
			continue
		}
		if r.matches(path, name) {
			return !r.negative
		}
	}
	return false
}

func (r *ignoreRule) matches(path, name string) bool {
	if r.noDir {
		return r.matchBasename(name)
	}
	return r.matchPathname(path)
}

// matchBasename is git's match_basename: the last component alone, where
// "*" may match anything (there is no "/" in it).
func (r *ignoreRule) matchBasename(name string) bool {
	switch {
	case r.literal == len(r.pattern):
		return name == r.pattern
	case r.endsWith:
		return strings.HasSuffix(name, r.pattern[1:])
	}
	return wildmatch(r.pattern, name, false)
}

// matchPathname is git's match_pathname: the path below the rule's
// directory against the whole pattern, "*" not matching "/". As git does
// up to 2.51, the pattern's leading literal part is compared first and
// the rest is matched against the rest of the path on its own (git 2.52
// gives the rest one character of context, which changes patterns like
// "foo**/bar"; the git the tests compare against is older).
func (r *ignoreRule) matchPathname(path string) bool {
	pattern, literal := r.pattern, r.literal
	if pattern[0] == '/' {
		pattern, literal = pattern[1:], literal-1
	}
	if len(path) < len(r.base)+1 || !strings.HasPrefix(path, r.base) {
		return false
	}
	name := path[len(r.base):]
	if literal > 0 {
		if literal > len(name) || name[:literal] != pattern[:literal] {
			return false
		}
		pattern, name = pattern[literal:], name[literal:]
		if pattern == "" && name == "" {
			return true
		}
	}
	return wildmatch(pattern, name, true)
}

// The results of dowild, as git's wildmatch.c has them.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the glob pattern as git's
// wildmatch does, with WM_PATHNAME when pathname is set ("*", "?" and
// brackets never match "/"; "**" between slashes matches any number of
// directories). Case is significant.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// dowild is git's dowild (wildmatch.c), over Go strings.
func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if ti < len(text) {
			tc = text[ti]
		}
		switch pc {
		case '\\':
			// The next character is literal; a pattern that ends in a
			// backslash matches nothing.
			pi++
			if pi == len(p) {
				return wmAbortAll
			}
			if tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := !pathname
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2 // the character before "**", or -1
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				switch {
				case !pathname:
					matchSlash = true
				case (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/'):
					// "**/" matches zero or more directories.
					if pi < len(p) && p[pi] == '/' && dowild(p[pi+1:], text[ti:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				default:
					matchSlash = false // "**" beside other characters is "*"
				}
			}
			if pi == len(p) {
				// The trailing star matches the rest, unless it must not
				// cross a "/".
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmAbortToStarStar
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmAbortAll
				}
				// The star takes all up to the "/", which the pattern's
				// "/" then matches.
				ti += slash
				continue
			}
			for ti < len(text) {
				tc = text[ti]
				if !isGlobSpecial(p[pi]) {
					// Skip ahead to the next place the literal can match.
					for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != p[pi] {
						ti++
					}
					if ti == len(text) || text[ti] != p[pi] {
						if !matchSlash && ti < len(text) && text[ti] == '/' {
							return wmAbortToStarStar
						}
						return wmAbortAll
					}
					tc = text[ti]
				}
				m := dowild(p[pi:], text[ti:], pathname)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			end, ok := matchBracket(p, pi, tc)
			if end < 0 {
				return wmAbortAll // an unclosed bracket matches nothing
			}
			if !ok || pathname && tc == '/' {
				return wmNoMatch
			}
			pi = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// matchBracket matches c against the bracket expression that opens at
// p[open] ("[...]", "[!...]" or "[^...]", with ranges, backslash escapes
// and the POSIX classes git knows) and returns the index of its closing
// "]", or -1 when it has none (or names an unknown class).
func matchBracket(p string, open int, c byte) (end int, ok bool) {
	i := open + 1
	negated := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negated = true
		i++
	}
	matched := false
	var prev byte
	first := true
	for ; i < len(p); i++ {
		pc := p[i]
		if pc == ']' && !first {
			return i, matched != negated
		}
		first = false
		switch {
		case pc == '\\':
			i++
			if i == len(p) {
				return -1, false
			}
			pc = p[i]
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && i+1 < len(p) && p[i+1] != ']':
			i++
			hi := p[i]
			if hi == '\\' {
				i++
				if i == len(p) {
					return -1, false
				}
				hi = p[i]
			}
			if prev <= c && c <= hi {
				matched = true
			}
			pc = 0 // a range cannot start another
		case pc == '[' && i+1 < len(p) && p[i+1] == ':':
			// As git reads a class: up to the first "]", which must
			// follow a ":"; else "[" is itself.
			j := strings.IndexByte(p[i+2:], ']')
			if j < 0 {
				return -1, false
			}
			if j < 1 || p[i+2+j-1] != ':' {
				if c == '[' {
					matched = true
				}
				break
			}
			in, known := posixClass(p[i+2:i+2+j-1], c)
			if !known {
				return -1, false
			}
			matched = matched || in
			i += 2 + j
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
	}
	return -1, false
}

// posixClass reports whether c is in the named class, and whether git
// knows the class. Bytes past ASCII are in none.
func posixClass(name string, c byte) (in, known bool) {
	isUpper := 'A' <= c && c <= 'Z'
	isLower := 'a' <= c && c <= 'z'
	isDigit := '0' <= c && c <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return 0x21 <= c && c <= 0x7e, true
	case "lower":
		return isLower, true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return 0x21 <= c && c <= 0x7e && !isUpper && !isLower && !isDigit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true // git's own isspace
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', true
	}
	return false, false
}
