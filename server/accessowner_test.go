package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoAccessLayerOfItsOwn: the server resolves takes through the
// engine's access layer (engine.DB.PlanTake), never one it builds itself:
// a second layer would open and cache every index a second time.
func TestNoAccessLayerOfItsOwn(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && x.Name == "access" && (s.Sel.Name == "New" || s.Sel.Name == "Layer") {
					t.Errorf("%s: access.%s: use the engine's layer (engine.DB.PlanTake)", path, s.Sel.Name)
				}
			}
			return true
		})
	}
}
