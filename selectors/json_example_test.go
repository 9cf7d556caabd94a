package selectors_test

import (
	"fmt"

	"github.com/loom-results/loom-results/selectors"
)

func ExampleJSONIndex_Lookup() {
	data := []byte(`{"users": [{"name": "Ada", "id": 1.50}, {"name": "Linus"}], "a/b": {"~": true}}`)
	ix, err := selectors.IndexJSON(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pointer := range []string{"/users/0/id", "#/users/1/name", "/a~1b/~0", "/users/2", "/users/01", "/users/0/x"} {
		p, err := selectors.ParsePointer(pointer)
		if err != nil {
			fmt.Println(err)
			continue
		}
		v, err := ix.Lookup(p)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %s %s\n", p, v.Type, data[v.Start:v.End])
	}
	// Output:
	// /users/0/id: number 1.50
	// /users/1/name: string "Linus"
	// /a~1b/~0: boolean true
	// error pointer_not_found: token "2" at /users: array index out of range; it has 2 elements (0-1)
	// error invalid_pointer: token "01" at /users: an array index is 0 or a decimal without leading zeros (or "-")
	// error pointer_not_found: token "x" at /users/0: object has no member "x"; it has 2 members: "name", "id"
}

func ExampleDecodeJSONString() {
	data := []byte(`["caf\u00e9 \ud83d\ude00 \"q\"", "\ud800", 7]`)
	ix, err := selectors.IndexJSON(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		v, _ := ix.Lookup(selectors.Pointer{}.Append(fmt.Sprint(i)))
		text, err := selectors.DecodeJSONString(data, v)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(text)
	}
	// Output:
	// café 😀 "q"
	// error invalid_json: escape \ud800 at offset 34 is a lone surrogate, which has no UTF-8 form: "as": "string" needs a surrogate pair (\ud800-\udbff then \udc00-\udfff); "as": "lexeme" returns the raw text
	// error not_a_string: value at 43-44 is a number, not a string: "as": "string" needs a JSON string ("as": "lexeme" returns any value)
}

func ExampleValidateJSON() {
	for _, doc := range []string{` {"a": [1, 2]} `, `[1,]`, `{"a":1}x`, `01`} {
		typ, err := selectors.ValidateJSON([]byte(doc))
		if err != nil {
			fmt.Println(err, err.Details["offset"])
			continue
		}
		fmt.Println(typ)
	}
	// Output:
	// object
	// error invalid_json: invalid character ']' at offset 3: expected a value after ','; trailing commas are not allowed 3
	// error invalid_json: invalid character 'x' at offset 7: expected the end of input after the top-level value 7
	// error invalid_json: invalid character '1' at offset 1: a number's integer part has no leading zero (write 0, or start with 1-9) 1
}

func ExampleParsePointer() {
	for _, pointer := range []string{"/a~1b/~01", "#/a%20b/%7E0", "a/b", "/~2"} {
		p, err := selectors.ParsePointer(pointer)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q -> tokens %q, plain form %s\n", pointer, p.Tokens(), p)
	}
	// Output:
	// "/a~1b/~01" -> tokens ["a/b" "~1"], plain form /a~1b/~01
	// "#/a%20b/%7E0" -> tokens ["a b" "~"], plain form /a b/~0
	// error invalid_pointer: pointer "a/b" must be "" or start with "/" (or be a URI fragment starting with "#")
	// error invalid_pointer: pointer "/~2": "~" at offset 1 must be followed by 0 or 1 ("~0" is "~", "~1" is "/")
}
