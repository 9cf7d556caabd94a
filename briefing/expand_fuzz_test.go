package briefing

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

// fuzzPool is the literal text the fuzz tests compose from: line endings,
// multi-byte characters, JSON's special characters and text that looks like
// a node.
var fuzzPool = []string{
	"", "x", "\n", "\r\n", "\r", "é", "😀", `"`, `\`, "$", "$1", "\u2028", "\x00", "\t", "\x7f",
	`{"$compose":[]}`, "line\n", "\\n", "€", "1: ", "2: x",
}

// fuzzText derives valid UTF-8 from fuzzer bytes, keeping it small.
func fuzzText(raw []byte) string {
	if len(raw) > 2048 {
		raw = raw[:2048]
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}

// splitLines is the reference line split of SPEC 4.2: each line keeps its
// "\n"; a final run without one is a line too.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// boundaries returns every character boundary of s, len(s) included.
func boundaries(s string) []int {
	var out []int
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

func quote(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// fuzzBriefing is a briefing that holds text as r1.
func fuzzBriefing(t *testing.T, text string) *Briefing {
	b := New(Options{Limits: limits.Defaults(), Policy: Legacy})
	t.Cleanup(b.Close)
	d, err := b.retainOutput(Output{Label: "fuzz", Text: text, Complete: true})
	require.Nil(t, err)
	require.Equal(t, "r1", *d.ID)
	return b
}

// checkExpansion checks the one expansion of got at /content against want.
func checkExpansion(t *testing.T, b *Briefing, got *Expanded, want string, parts int) {
	require.Len(t, got.Expansions, 1)
	x := got.Expansions[0]
	sum := sha256.Sum256([]byte(want))
	assert.Equal(t, "/content", x.At)
	assert.Equal(t, int64(len(want)), x.Bytes)
	assert.Equal(t, hex.EncodeToString(sum[:]), x.SHA256)
	assert.Equal(t, parts, x.Parts)
	require.NotNil(t, x.Result)
	r, err := b.store.Get(*x.Result)
	require.Nil(t, err)
	assert.Equal(t, want, string(r.Text.Data))
	assert.Equal(t, sum, r.Text.Sum)

	require.True(t, json.Valid(got.Arguments), "%q", got.Arguments)
	var args struct{ Path, Content string }
	require.NoError(t, json.Unmarshal(got.Arguments, &args))
	assert.Equal(t, "f.txt", args.Path)
	assert.Equal(t, want, args.Content)
	assert.True(t, strings.HasPrefix(string(got.Arguments), `{"path":"f.txt","content":"`))
	assert.Equal(t, "/content: "+strconv.Itoa(len(want))+" bytes sha256="+x.SHA256[:12]+" result="+*x.Result+"\n", got.Text)
}

// FuzzCompose composes random byte and line references into a stored text
// with literals, and checks the expansion against the bytes it should be.
func FuzzCompose(f *testing.F) {
	f.Add([]byte("one\ntwo\nthree\n"), []byte{1, 0, 3, 2, 1, 1, 0, 5, 6, 3, 2, 0, 4, 0, 1})
	f.Fuzz(func(t *testing.T, raw, plan []byte) {
		text := fuzzText(raw)
		b := fuzzBriefing(t, text)
		lines := splitLines(text)
		bounds := boundaries(text)
		digest := sha256.Sum256([]byte(text))
		full := hex.EncodeToString(digest[:])

		var want strings.Builder
		var parts []string
		for i := 0; i+3 <= len(plan) && len(parts) < 64; i += 3 {
			op, x, y := plan[i], int(plan[i+1]), int(plan[i+2])
			switch op % 5 {
			case 0: // a literal
				lit := fuzzPool[x%len(fuzzPool)] + fuzzPool[y%len(fuzzPool)]
				parts = append(parts, quote(t, lit))
				want.WriteString(lit)
			case 1: // a byte range on character boundaries
				s, e := bounds[x*7%len(bounds)], bounds[y*11%len(bounds)]
				if s > e {
					s, e = e, s
				}
				parts = append(parts, `{"result":"r1","bytes":[`+strconv.Itoa(s)+`,`+strconv.Itoa(e)+`]}`)
				want.WriteString(text[s:e])
			case 2: // a line range
				if len(lines) == 0 {
					continue
				}
				first := 1 + x%len(lines)
				last := first + y%(len(lines)-first+1)
				parts = append(parts, `{"result":"r1","lines":[`+strconv.Itoa(first)+`,`+strconv.Itoa(last)+`]}`)
				want.WriteString(strings.Join(lines[first-1:last], ""))
			case 3: // lines [first]: to the last line
				if len(lines) == 0 {
					continue
				}
				first := 1 + x%len(lines)
				parts = append(parts, `{"result":"r1","lines":[`+strconv.Itoa(first)+`]}`)
				want.WriteString(strings.Join(lines[first-1:], ""))
			case 4: // the whole result, with a digest prefix
				d := full[:12+x%53]
				if y&1 == 1 {
					d = strings.ToUpper(d)
				}
				parts = append(parts, `{"sha256":"`+d+`","result":"r1"}`)
				want.WriteString(text)
			}
		}
		args := `{"path":"f.txt","content":{"$compose":[` + strings.Join(parts, ",") + `]}}`
		got, err := expandEdit(b, jsonSub(args))
		require.Nil(t, err, "%s", args)
		checkExpansion(t, b, got, want.String(), len(parts))
	})
}

// spliceRef applies edits to lines as SPEC 5.2 says, the simple way: each
// edit replaces lines [from, to) of the stored text (from = to inserts).
func spliceRef(lines []string, edits []refEdit) string {
	var out strings.Builder
	pos := 1
	for _, e := range edits {
		out.WriteString(strings.Join(lines[pos-1:e.from-1], ""))
		out.WriteString(e.text)
		pos = e.to
	}
	out.WriteString(strings.Join(lines[pos-1:], ""))
	return out.String()
}

type refEdit struct {
	from, to int // stored lines [from, to) are replaced
	text     string
	json     string
}

// refCRLF is SPEC 5.2's CRLF, the simple way: at least one "\n", and as
// many "\r\n".
func refCRLF(text string) bool {
	n := strings.Count(text, "\n")
	return n > 0 && n == strings.Count(text, "\r\n")
}

// refToCRLF takes each "\n" of text that does not follow a "\r" as
// "\r\n".
func refToCRLF(text string) string {
	var out strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && (i == 0 || text[i-1] != '\r') {
			out.WriteByte('\r')
		}
		out.WriteByte(text[i])
	}
	return out.String()
}

// failing returns the first of edits (of total edits in the splice) whose
// text breaks one of SPEC 5.2's rules, in their order, and the message of
// its cause: the newline rule (a non-empty text that does not end with
// "\n", unless it is the last edit and reaches the end of the n stored
// lines), the last-line rule (an insertion at the end of a text without a
// final newline that would continue its last line, when no earlier edit
// replaced that line), and the copied line numbers (a text that begins
// with the edit's first line and ": "). Texts are converted already.
func failing(edits []refEdit, total, n int, finalNewline bool) (int, string, bool) {
	replacedLast := false
	for i, e := range edits {
		switch {
		case e.text != "" && !strings.HasSuffix(e.text, "\n") && !(i == total-1 && e.to == n+1):
			return i, `text does not end with "\n": it would join line ` + strconv.Itoa(e.to), true
		case e.from == e.to && e.from == n+1 && !finalNewline && e.text != "" &&
			!strings.HasPrefix(e.text, "\n") && !strings.HasPrefix(e.text, "\r\n") && !replacedLast:
			return i, "text would continue line " + strconv.Itoa(n) + `, which has no final newline: start the text with "\n", or replace line ` + strconv.Itoa(n), true
		case strings.HasPrefix(e.text, strconv.Itoa(e.from)+": "):
			return i, `text begins with "` + strconv.Itoa(e.from) + `: ", a line number as find and get_lines show it; send the line without it`, true
		}
		if e.from < e.to && e.to == n+1 {
			replacedLast = true
		}
	}
	return 0, "", false
}

// requireCause checks that a splice failed at edit i with cause
// invalid_argument and message msg.
func requireCause(t *testing.T, err *errcode.Error, args string, i int, msg string) {
	t.Helper()
	require.NotNil(t, err, "%s", args)
	require.Equal(t, errcode.UnresolvedEdit, err.Code, err.Error())
	assert.Equal(t, new("/content/$splice/edits/"+strconv.Itoa(i)), err.At)
	cause := err.Cause
	require.NotNil(t, cause)
	assert.Equal(t, errcode.InvalidArgument, cause.Code)
	assert.Equal(t, msg, cause.Msg)
}

// FuzzSplice applies random in-order, non-overlapping edits to a stored text
// and compares the expansion with spliceRef, each text taken as SPEC 5.2's
// line endings take it, or the failure with the first rule it breaks. When the plan asks for it, one
// more edit that overlaps the last one must fail at that edit with
// invalid_range.
func FuzzSplice(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte{0, 1, 2, 1, 0, 0, 2, 1, 1})
	f.Add([]byte("a\r\nb\r\nc"), []byte{2, 0, 2, 0, 3, 1, 1, 2, 17}) // a CRLF text without a final newline
	f.Add([]byte("a\nb"), []byte{0, 5, 1})                           // an append that would continue line 2
	f.Add([]byte("a\nb\n"), []byte{2, 40, 1})                        // a text that begins with "1: "
	f.Fuzz(func(t *testing.T, raw, plan []byte) {
		text := fuzzText(raw)
		b := fuzzBriefing(t, text)
		lines := splitLines(text)
		n := len(lines)
		crlf := refCRLF(text)
		finalNewline := text == "" || strings.HasSuffix(text, "\n")

		var edits []refEdit
		minInsert, minReplace := 1, 1 // the first line each kind of edit may start at
		for i := 0; i+3 <= len(plan) && len(edits) < 64; i += 3 {
			op, x, y := plan[i], int(plan[i+1]), int(plan[i+2])
			lit := fuzzPool[x%len(fuzzPool)] + fuzzPool[y%len(fuzzPool)]
			// Most texts end with "\n", so that most splices resolve; with
			// y's bit 0x40 a text is left as drawn, to meet the newline rule.
			end := "\n"
			if y&0x40 != 0 {
				end = ""
			}
			if lit != "" && !strings.HasSuffix(lit, "\n") {
				lit += end
			}
			switch op % 4 {
			case 0, 1: // an insertion before line k, k = lines+1 appends
				if minInsert > n+1 {
					continue
				}
				k := minInsert + x%(n+2-minInsert)
				var textJSON string
				if op%4 == 1 && n > 0 { // its text composed from the result
					l := 1 + y%n
					lit = lines[l-1] + "|" + end
					textJSON = `{"$compose":[{"result":"r1","lines":[` + strconv.Itoa(l) + `,` + strconv.Itoa(l) + `]},` + quote(t, "|"+end) + `]}`
				} else {
					textJSON = quote(t, lit)
				}
				if crlf {
					lit = refToCRLF(lit)
				}
				edits = append(edits, refEdit{k, k, lit, `{"before":` + strconv.Itoa(k) + `,"text":` + textJSON + `}`})
				minInsert, minReplace = k+1, k
			case 2, 3: // a replacement of lines [first, last]
				if minReplace > n {
					continue
				}
				first := minReplace + x%(n+1-minReplace)
				last := first + y%(n-first+1)
				if op%4 == 3 {
					lit = "" // a deletion
				}
				textJSON := quote(t, lit)
				if crlf {
					lit = refToCRLF(lit)
				}
				edits = append(edits, refEdit{first, last + 1, lit,
					`{"lines":[` + strconv.Itoa(first) + `,` + strconv.Itoa(last) + `],"text":` + textJSON + `}`})
				minInsert, minReplace = last+1, last+1
			}
		}
		list := make([]string, len(edits))
		for i, e := range edits {
			list[i] = e.json
		}
		if len(plan) > 0 && plan[0]&0x80 != 0 && len(edits) > 0 {
			// The last edit again overlaps itself (two insertions before
			// the same line, or the same lines twice).
			list = append(list, edits[len(edits)-1].json)
			args := `{"path":"f.txt","content":{"$splice":{"result":"r1","edits":[` + strings.Join(list, ",") + `]}}}`
			_, err := expandEdit(b, jsonSub(args))
			if i, msg, ok := failing(edits, len(list), n, finalNewline); ok {
				requireCause(t, err, args, i, msg)
				return
			}
			require.NotNil(t, err, "%s", args)
			require.Equal(t, errcode.UnresolvedEdit, err.Code, err.Error())
			assert.Equal(t, new("/content/$splice/edits/"+strconv.Itoa(len(edits))), err.At)
			require.NotNil(t, err.Cause)
			assert.Equal(t, errcode.InvalidRange, err.Cause.Code)
			return
		}
		args := `{"path":"f.txt","content":{"$splice":{"result":"r1","edits":[` + strings.Join(list, ",") + `]}}}`
		got, err := expandEdit(b, jsonSub(args))
		if i, msg, ok := failing(edits, len(edits), n, finalNewline); ok {
			requireCause(t, err, args, i, msg)
			return
		}
		require.Nil(t, err, "%s", args)
		want := spliceRef(lines, edits)
		require.True(t, utf8.ValidString(want))
		checkExpansion(t, b, got, want, len(edits))
	})
}
