package selectors_test

import (
	"fmt"

	"github.com/loom-results/loom-results/selectors"
)

func ExampleByteRange() {
	data := []byte("añb")
	span, err := selectors.ByteRange(data, 1, 3)
	fmt.Printf("%q %v\n", data[span.Start:span.End], err == nil)
	_, err = selectors.ByteRange(data, 2, 3)
	fmt.Println(err, *err.Before, *err.After)
	// Output:
	// "ñ" true
	// not_char_boundary: offset 2 is inside a multi-byte character; nearest boundaries are 1 and 3 1 3
}

func ExampleLines_Range() {
	data := []byte("one\r\ntwo\nthree")
	lines, _ := selectors.ScanText(data)
	span, _ := lines.Range(1, 2)
	fmt.Printf("%d lines; %q\n", lines.Count(), data[span.Start:span.End])
	_, err := lines.Range(2, 9)
	fmt.Println(err)
	// Output:
	// 3 lines; "one\r\ntwo\n"
	// invalid_range: lines 2-9 outside 1-3
}

func ExampleFind() {
	data := []byte("func a() {}\nvar x = 1\nfunc b() {}\n")
	lines, _ := selectors.ScanText(data)
	m, _ := selectors.NewMatcher(selectors.Patterns{List: []string{"^func"}, Regex: true})
	found, _ := selectors.Find(data, lines, m, 1, 8192)
	fmt.Print(found.Text)
	// Output:
	// 1#bo: func a() {}
	// … 1 more
}
