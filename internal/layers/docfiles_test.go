package layers

import (
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasDocFile: every package of the repository, nested
// modules and commands included, keeps its package comment in doc.go
// (issue 27 item 6), and only there, so a reader finds what a package
// owns in one known file. A package comment begins "Package <name>", or
// "Command <dir>" for a main package.
func TestEveryPackageHasDocFile(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx := build.Default
	ctx.BuildTags = append(ctx.BuildTags, "tools") // internal/deps
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		p, err := ctx.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(p.GoFiles) == 0 {
			return nil // tests only (the module's examples)
		}
		rel, _ := filepath.Rel(root, path)
		checked++
		checkDocFile(t, filepath.ToSlash(rel), path, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d packages under %s: the walk is broken", checked, root)
	}
}

// checkDocFile checks one package: doc.go is among its files and holds
// its package comment, and no other file has one.
func checkDocFile(t *testing.T, rel, dir string, p *build.Package) {
	t.Helper()
	want := "Package " + p.Name + " "
	if p.Name == "main" {
		want = "Command " + filepath.Base(dir) + " "
	}
	hasDoc := false
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatalf("%s/%s: %v", rel, name, err)
		}
		if name == "doc.go" {
			hasDoc = true
			if f.Doc == nil || !strings.HasPrefix(f.Doc.Text(), want) {
				t.Errorf("%s/doc.go: the package comment does not begin %q", rel, want)
			}
			continue
		}
		if f.Doc != nil {
			t.Errorf("%s/%s has a package comment: it belongs in doc.go", rel, name)
		}
	}
	if !hasDoc {
		t.Errorf("package %s has no doc.go", rel)
	}
	if _, err := os.Stat(filepath.Join(dir, "doc.go")); err == nil && !hasDoc {
		t.Errorf("%s/doc.go is not built with the package (build constraints?)", rel)
	}
}
