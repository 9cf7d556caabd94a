package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// decodeJSON decodes one JSON value keeping numbers exact, and a lone
// surrogate escape distinct from U+FFFD (see markLoneSurrogates).
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(markLoneSurrogates(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// markLoneSurrogates rewrites each lone surrogate escape inside a string
// (\ud800 not followed by a low surrogate escape, or a low one alone) as
// the text "<lone \ud800>": encoding/json would decode it as U+FFFD, and
// SPEC sections 4.3 and 5.1 tell the two apart.
func markLoneSurrogates(data []byte) []byte {
	if !bytes.Contains(data, []byte(`\u`)) {
		return data
	}
	var out []byte
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(data) && data[i+1] != 'u':
			out = append(out, c, data[i+1])
			i++
			continue
		case c == '\\':
			u, ok := hex4(data, i+2)
			if !ok || u < 0xD800 || u > 0xDFFF {
				break
			}
			if u < 0xDC00 && i+11 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
				if lo, ok := hex4(data, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					out = append(out, data[i:i+12]...)
					i += 11
					continue
				}
			}
			out = fmt.Appendf(out, `<lone \\u%04x>`, u)
			i += 5
			continue
		}
		out = append(out, c)
	}
	return out
}

// hex4 decodes the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(data[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// diffJSON compares two JSON values structurally (member order and white
// space do not matter; numbers compare by value) and returns one line per
// difference, each naming the JSON pointer where it is.
func diffJSON(want, got []byte) []string {
	w, err := decodeJSON(want)
	if err != nil {
		return []string{"expected value is not JSON: " + err.Error()}
	}
	g, err := decodeJSON(got)
	if err != nil {
		return []string{"response is not JSON: " + err.Error()}
	}
	var d []string
	diffValue(&d, "", w, g)
	return d
}

func diffValue(d *[]string, at string, want, got any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := at + "/" + escapeToken(k)
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				*d = append(*d, fmt.Sprintf("%s: missing, want %s", p, show(wv)))
			case !inW:
				*d = append(*d, fmt.Sprintf("%s: unexpected, got %s", p, show(gv)))
			default:
				diffValue(d, p, wv, gv)
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := range max(len(w), len(g)) {
			p := at + "/" + strconv.Itoa(i)
			switch {
			case i >= len(g):
				*d = append(*d, fmt.Sprintf("%s: missing, want %s", p, show(w[i])))
			case i >= len(w):
				*d = append(*d, fmt.Sprintf("%s: unexpected, got %s", p, show(g[i])))
			default:
				diffValue(d, p, w[i], g[i])
			}
		}
		return
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(w, g) {
			return
		}
	default: // string, bool, nil
		if want == got {
			return
		}
	}
	if at == "" {
		at = "(whole)"
	}
	*d = append(*d, fmt.Sprintf("%s: want %s, got %s", at, show(want), show(got)))
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, okx := new(big.Rat).SetString(string(a))
	y, oky := new(big.Rat).SetString(string(b))
	return okx && oky && x.Cmp(y) == 0
}

// escapeToken escapes a member name as an RFC 6901 reference token.
func escapeToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// show renders a decoded value as compact JSON, cut when long.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return clip(strings.TrimSuffix(buf.String(), "\n"), 400)
}

// clip cuts s to about n bytes, saying how much was left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…(%d more bytes)", len(s)-cut)
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }
