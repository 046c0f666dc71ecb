package access

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// restricted are the coverage building blocks of package table that only
// package access composes (see the package documentation): outside table
// itself, no other file of the module may name them.
var restricted = map[string]string{
	"github.com/stablerow/stablerow/table": "DerivedCoverage",
}

// TestLayering parses every Go file of the module (nested modules
// included) and fails on a use of a restricted building block outside
// package table and package access: which index address is valid now has
// one owner.
func TestLayering(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(dir string) bool {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		return rel == "table" || rel == "access"
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || allowed(filepath.Dir(path)) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // not ours to judge (a generator template, a broken fixture)
		}
		files++
		names := map[string]string{} // local import name -> restricted identifier
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			id, ok := restricted[p]
			if !ok {
				continue
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = id
		}
		if len(names) == 0 {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] == sel.Sel.Name {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s uses %s.%s: only package access may (it owns index address validity)", rel, x.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files under %s: not the module", files, root)
	}
}
