package perfbench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// lineFormat is the format of every line of sourceText but the first.
const lineFormat = "\tx%07d := compute(a, b) // note é\n"

// lineLen is the length of every line of sourceText but the first.
var lineLen = len(fmt.Sprintf(lineFormat, 0))

// sourceText returns source-like text of lineLen-byte lines (one two-byte
// character each), at least size-64 and at most size bytes, the first line
// tagged with tag so that files of equal size differ, and its line count.
func sourceText(size int, tag string) ([]byte, int) {
	var sb strings.Builder
	sb.Grow(size)
	fmt.Fprintf(&sb, "// %s\n", tag)
	lines := 1
	for sb.Len() <= size-64 {
		fmt.Fprintf(&sb, lineFormat, lines)
		lines++
	}
	return []byte(sb.String()), lines
}

// jsonDoc returns a JSON document of at most size bytes: {"meta":{...},
// "items":[{"id","name","price","tags","ok"}, ...]}, and its item count.
func jsonDoc(size int) ([]byte, int) {
	var sb strings.Builder
	sb.Grow(size)
	sb.WriteString(`{"meta":{"name":"bench","version":3},"items":[`)
	n := 0
	for sb.Len() < size-256 {
		if n > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"item-%d","price":%d.25,"tags":["a","b\u00e9"],"ok":true}`, n, n, n%1000)
		n++
	}
	sb.WriteString("]}\n")
	return []byte(sb.String()), n
}

// corpus is the set of files every server reads, in one root.
type corpus struct {
	Root      string
	Big       []byte   // big.txt, kept for the in-memory SHA-256
	TextLines int      // lines of text.txt
	JSONItems int      // items of big.json
	Small     []string // 16 small files, for a list_results page
	Fill      []string // files of InspectBytes each, more than the store holds
	// Sized are the files of the smaller sizes of the per-MiB row
	// (Config.InspectSizes), by size.
	Sized map[int]string
	// HTTPLines is the line count of http.txt, HTTPItems the items of
	// http.json.
	HTTPLines, HTTPItems int
}

// Files of the rows against grep and of the HTTP rows.
const (
	findFile  = "find.go.txt"
	emptyFile = "empty.txt"
	httpText  = "http.txt"
	httpJSON  = "http.json"
)

func writeCorpus(dir string, cfg Config) (*corpus, error) {
	c := &corpus{Root: dir, Sized: map[int]string{}}
	write := func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	big, _ := sourceText(cfg.InspectBytes, "big")
	c.Big = big
	if err := write("big.txt", big); err != nil {
		return nil, err
	}
	text, lines := sourceText(cfg.TextBytes, "text")
	c.TextLines = lines
	if err := write("text.txt", text); err != nil {
		return nil, err
	}
	doc, items := jsonDoc(cfg.JSONBytes)
	c.JSONItems = items
	if err := write("big.json", doc); err != nil {
		return nil, err
	}
	for i := range 16 {
		name := fmt.Sprintf("small%02d.go", i)
		data, _ := sourceText(2048, name)
		if err := write(name, data); err != nil {
			return nil, err
		}
		c.Small = append(c.Small, name)
	}
	for i := range int(cfg.StoreBytes/int64(cfg.InspectBytes)) + 2 {
		name := fmt.Sprintf("fill%d.txt", i)
		data, _ := sourceText(cfg.InspectBytes, name)
		if err := write(name, data); err != nil {
			return nil, err
		}
		c.Fill = append(c.Fill, name)
	}
	for _, size := range cfg.InspectSizes {
		name := fmt.Sprintf("size%d.txt", size)
		data, _ := sourceText(size, name)
		if err := write(name, data); err != nil {
			return nil, err
		}
		c.Sized[size] = name
	}
	if err := write(findFile, codeText(cfg.FindBytes)); err != nil {
		return nil, err
	}
	if err := write(emptyFile, nil); err != nil {
		return nil, err
	}
	text, c.HTTPLines = sourceText(cfg.HTTPBytes, "http")
	if err := write(httpText, text); err != nil {
		return nil, err
	}
	doc, c.HTTPItems = jsonDoc(cfg.HTTPBytes)
	if err := write(httpJSON, doc); err != nil {
		return nil, err
	}
	return c, nil
}

// findNeedle is the literal codeText puts on exactly one line; findCommon
// is one it puts on most lines.
const (
	findNeedle = "loomNeedle4b1d"
	findCommon = "err"
)

// codeText returns at most size bytes of Go-like source (error-checked
// calls, loops, comments with a few two-byte characters): the text of the
// rows against grep. findCommon occurs on most of its lines, findNeedle on
// one line about 60% of the way in. It is the same for the same size.
func codeText(size int) []byte {
	rng := rand.New(rand.NewPCG(15, 15))
	idents := []string{"conn", "buf", "index", "store", "cache", "result", "entry", "offset", "digest", "reader", "line", "page"}
	pick := func() string { return idents[rng.IntN(len(idents))] }
	needle := "\tconst marker = \"" + findNeedle + "\" // the one line find looks for\n"
	var b bytes.Buffer
	b.Grow(size)
	placed := false
	for fn := 0; ; fn++ {
		var f bytes.Buffer
		a, t := pick(), pick()
		fmt.Fprintf(&f, "// load%s%d reads the %s of a %s; its errors name the key (naïve callers retry: déjà vu).\n", a, fn, a, t)
		fmt.Fprintf(&f, "func (s *%sStore) load%s%d(ctx context.Context, key string) (*%s, error) {\n", t, a, fn, t)
		for range 2 + rng.IntN(4) {
			v := pick()
			switch rng.IntN(6) {
			case 0, 1, 2, 3:
				fmt.Fprintf(&f, "\t%s, err := s.%s.Get(ctx, key+%q)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %%q: %%w\", key, err)\n\t}\n", v, pick(), "/"+v, v)
			case 4:
				fmt.Fprintf(&f, "\tfor i := range s.%s.items {\n\t\tif err := s.check(ctx, s.%s.items[i]); err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t}\n", v, v)
			default:
				fmt.Fprintf(&f, "\ts.%s.Store(key, %d) // keep the last %s\n", v, rng.IntN(1<<20), pick())
			}
		}
		fmt.Fprintf(&f, "\treturn &%s{}, nil\n}\n\n", t)
		if !placed && b.Len()+f.Len() >= size*3/5 && b.Len()+len(needle) <= size {
			b.WriteString(needle)
			placed = true
		}
		if b.Len()+f.Len() > size {
			break
		}
		b.Write(f.Bytes())
	}
	return b.Bytes()
}
