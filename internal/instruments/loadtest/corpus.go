package loadtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// file is one generated file: its bytes and what the checks need of them.
type file struct {
	path   string // slash-separated, relative to the root
	tag    string // what starts each line of a text file; "" for JSON
	data   []byte
	sha256 string
	starts []int // byte offset of each line's start; line n starts at starts[n-1]
}

func newFile(path, tag string, data []byte) *file {
	sum := sha256.Sum256(data)
	f := &file{path: path, tag: tag, data: data, sha256: hex.EncodeToString(sum[:])}
	for i := 0; i < len(data); {
		f.starts = append(f.starts, i)
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return f
}

// lines is the file's line count (SPEC section 4.2).
func (f *file) lines() int { return len(f.starts) }

// lineRange is the bytes of lines first..last, newlines included.
func (f *file) lineRange(first, last int) []byte {
	end := len(f.data)
	if last < len(f.starts) {
		end = f.starts[last]
	}
	return f.data[f.starts[first-1]:end]
}

// line is line n without its ending.
func (f *file) line(n int) string {
	return strings.TrimSuffix(strings.TrimSuffix(string(f.lineRange(n, n)), "\n"), "\r")
}

// jsonProbe is one pointer lookup with its expected answer.
type jsonProbe struct {
	pointer string
	as      string // "lexeme" or "string"
	want    string
}

// corpus is the generated root: shared text files, one JSON document, and
// the files unique to each session.
type corpus struct {
	dir    string
	shared []*file // text files, then the JSON document last
	json   *file
	probes []jsonProbe
	unique [][]*file // by session
}

// sharedSizes are the sizes of the shared text files: 64 KiB to 1 MiB.
var sharedSizes = []int{64 << 10, 96 << 10, 160 << 10, 256 << 10, 384 << 10, 512 << 10, 768 << 10, 1 << 20}

// words fill the lines; some are multi-byte, so that byte ranges meet
// character boundaries.
var words = strings.Fields("alpha beta gamma delta epsilon lookup result digest briefing step budget " +
	"naïve café façade größe Ærø 日本語 テキスト ñandú καλημέρα 🙂 zebra quartz vector tensor index")

// uniqueFiles is how many files session k inspects before the shared ones.
func uniqueFiles(k int) int { return 1 + k%4 }

// writeCorpus generates the files of a run under dir.
func writeCorpus(dir string, sessions int, seed uint64) (*corpus, error) {
	rng := rand.New(rand.NewPCG(seed, 0x10ad))
	c := &corpus{dir: dir}
	for i, size := range sharedSizes {
		tag := fmt.Sprintf("f%d", i)
		c.shared = append(c.shared, newFile("shared/"+tag+".txt", tag, textFile(rng, tag, size)))
	}
	doc, probes, err := jsonDocument(rng, 1500)
	if err != nil {
		return nil, err
	}
	c.json = newFile("shared/doc.json", "", doc)
	c.probes = probes
	c.shared = append(c.shared, c.json)
	for k := range sessions {
		var own []*file
		for j := range uniqueFiles(k) {
			tag := fmt.Sprintf("s%03d-%d", k, j)
			own = append(own, newFile("sessions/"+tag+".txt", tag, textFile(rng, tag, 2<<10+rng.IntN(2<<10))))
		}
		c.unique = append(c.unique, own)
	}
	all := append([]*file(nil), c.shared...)
	for _, own := range c.unique {
		all = append(all, own...)
	}
	for _, f := range all {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// textFile is about size bytes of lines "<tag> L000123 words...\n", each
// under find's 240-byte cut; the marker L000123 (the line number) occurs
// nowhere else, so find can look for it.
func textFile(rng *rand.Rand, tag string, size int) []byte {
	var b strings.Builder
	b.Grow(size + 256)
	for n := 1; b.Len() < size; n++ {
		fmt.Fprintf(&b, "%s L%06d", tag, n)
		for range 2 + rng.IntN(10) {
			b.WriteByte(' ')
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// jsonDocument builds a document of n items by hand, with lexemes that a
// re-encoding would change (1.50, escapes), and the pointer lookups to make
// on it, their answers taken from encoding/json's raw values.
func jsonDocument(rng *rand.Rand, n int) ([]byte, []jsonProbe, error) {
	var b strings.Builder
	b.WriteString("{\n  \"meta\": {\"title\": \"loom-load document\", \"ratio\": 1.50, \"count\": " + strconv.Itoa(n) + "},\n  \"items\": [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `    {"id": %d, "name": "item-%d", "price": %d.%02d0, "tags": ["%s", "%s"], "note": "line\nwith \"quotes\", \\ and \u00e9 %s"}`,
			i, i, rng.IntN(1000), rng.IntN(100), words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
	}
	b.WriteString("\n  ]\n}\n")
	doc := []byte(b.String())

	var top struct {
		Meta  map[string]json.RawMessage
		Items []map[string]json.RawMessage
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, nil, fmt.Errorf("generated JSON: %w", err)
	}
	var rawItems struct{ Items []json.RawMessage }
	if err := json.Unmarshal(doc, &rawItems); err != nil {
		return nil, nil, fmt.Errorf("generated JSON: %w", err)
	}
	probes := []jsonProbe{{"/meta/ratio", "lexeme", string(top.Meta["ratio"])}, {"/meta/title", "string", "loom-load document"}}
	for i := 0; i < n; i += 7 {
		item := top.Items[i]
		var name, note string
		var tags []json.RawMessage
		if err := errors.Join(json.Unmarshal(item["name"], &name), json.Unmarshal(item["note"], &note), json.Unmarshal(item["tags"], &tags)); err != nil {
			return nil, nil, err
		}
		p := "/items/" + strconv.Itoa(i)
		probes = append(probes,
			jsonProbe{p, "lexeme", string(rawItems.Items[i])},
			jsonProbe{p + "/name", "string", name},
			jsonProbe{p + "/price", "lexeme", string(item["price"])},
			jsonProbe{p + "/note", "string", note},
			jsonProbe{p + "/note", "lexeme", string(item["note"])},
			jsonProbe{p + "/tags/1", "lexeme", string(tags[1])},
		)
	}
	return doc, probes, nil
}
