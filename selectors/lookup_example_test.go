package selectors_test

import (
	"fmt"

	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/selectors"
)

func ExampleLookup() {
	data := []byte(`{"users": [{"name": "Ada", "id": 1.50}, {"name": "Linus"}], "a/b": {"~": true}}`)
	ix, err := jsontape.Build(data, jsontape.Options{})
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
		v, err := selectors.Lookup(ix, p)
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
	// pointer_not_found: token "2" at /users: array index out of range; it has 2 elements (0-1)
	// invalid_pointer: token "01" at /users: an array index is 0 or a decimal without leading zeros (or "-")
	// pointer_not_found: token "x" at /users/0: object has no member "x"; it has 2 members: "name", "id"
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
	// invalid_pointer: pointer "a/b" must be "" or start with "/" (or be a URI fragment starting with "#")
	// invalid_pointer: pointer "/~2": "~" at offset 1 must be followed by 0 or 1 ("~0" is "~", "~1" is "/")
}
