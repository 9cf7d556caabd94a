package jsontape_test

import (
	"fmt"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

func ExampleValidate() {
	for _, doc := range []string{` {"a": [1, 2]} `, `[1,]`, `{"a":1}x`, `01`} {
		typ, err := jsontape.Validate([]byte(doc))
		if err != nil {
			fmt.Println(err, *err.Offset)
			continue
		}
		fmt.Println(typ)
	}
	// Output:
	// object
	// invalid_json: invalid character ']' at offset 3: expected a value after ','; trailing commas are not allowed 3
	// invalid_json: invalid character 'x' at offset 7: expected the end of input after the top-level value 7
	// invalid_json: invalid character '1' at offset 1: a number's integer part has no leading zero (write 0, or start with 1-9) 1
}

func ExampleDecodeString() {
	data := []byte(`["caf\u00e9 \ud83d\ude00 \"q\"", "\ud800", 7]`)
	ix, err := jsontape.Build(data, jsontape.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		v, _ := ix.Element(ix.Root(), i)
		text, err := jsontape.DecodeString(data, ix.Value(v))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(text)
	}
	// Output:
	// café 😀 "q"
	// invalid_json: escape \ud800 at offset 34 is a lone surrogate, which has no UTF-8 form: "as": "string" needs a surrogate pair (\ud800-\udbff then \udc00-\udfff); "as": "lexeme" returns the raw text
	// not_a_string: value at 43-44 is a number, not a string: "as": "string" needs a JSON string ("as": "lexeme" returns any value)
}

func ExampleIndex_Member() {
	data := []byte(`{"name": "Ada", "langs": ["en", "fr"], "name": "A. L."}`)
	ix, err := jsontape.Build(data, jsontape.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	langs, _ := ix.Member(ix.Root(), "langs")
	for i, v := range ix.Elements(langs) {
		text, _ := ix.StringText(v)
		fmt.Println(i, text)
	}
	_, count := ix.Member(ix.Root(), "name")
	fmt.Println("members named name:", count)
	// Output:
	// 0 en
	// 1 fr
	// members named name: 2
}
