package errcode

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCodesListsEveryConstant: a Code constant declared in this package and
// missing from Codes fails here, so that a new code cannot be left out of
// what lists them.
func TestCodesListsEveryConstant(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var declared []Code
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for _, val := range v.Values {
					code, err := strconv.Unquote(val.(*ast.BasicLit).Value)
					require.NoError(t, err)
					declared = append(declared, Code(code))
				}
			}
		}
	}
	require.NotEmpty(t, declared)
	assert.ElementsMatch(t, declared, Codes)
}
