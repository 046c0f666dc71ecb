package layers

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/stablerow/stablerow"

// rows is the layer of each package of the main module, bottom (0) to
// top, as docs/architecture.md draws them. A package may import only
// packages in lower rows: two packages in one row are peers and import
// neither each other. (Nested modules — bench, difftest, beam,
// server/adbctest, table/store/s3store/s3test — stand above them all and
// are not listed.)
var rows = [][]string{
	{"errkind"},
	{"progress", "value", "table/encoding", "internal/radix", "internal/taskjson", "internal/suggest", "internal/arrowtest",
		"internal/deepsql", "internal/fuzzseed", "internal/layers", "exec/memlimit", "exec/priority",
		"cmd/stablerow/internal/gcstart"},
	{"rowmap", "table/store", "table/rowid", "table/deletion", "cmd/stablerow/internal/warm", "sql/sqltype"},
	{"table", "table/store/s3store"},
	{"table/fragreuse", "index/btree", "internal/vacuumstress"},
	{"access", "exec/physexpr"},
	{"exec"},
	{"fileio", "internal/substraitfn", "exec/exectest", "exec/window"},
	{"plan/optimize", "plan/ingest"},
	{"plan"},
	{"sql"},
	{"engine"},
	{"server", "sqltest", "engine/s3db"},
	{"cmd/stablerow"},
}

// TestImportsRunDown reads the imports of every package's non-test files
// (build constraints applied as for this platform) and fails on an import
// of a package in the same or a higher row, and on a package without a
// row.
func TestImportsRunDown(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]int{}
	for i, r := range rows {
		for _, p := range r {
			row[p] = i
		}
	}
	pkgs := modulePackages(t, root)
	if len(pkgs) < 30 {
		t.Fatalf("found %d packages under %s: the walk is broken", len(pkgs), root)
	}
	for rel, imports := range pkgs {
		r, ok := row[rel]
		if !ok {
			t.Errorf("package %s has no layer: add it to rows here and to docs/architecture.md", rel)
			continue
		}
		for _, im := range imports {
			ir, ok := row[im]
			if !ok {
				continue // reported as its own package
			}
			if ir >= r {
				t.Errorf("%s (row %d) imports %s (row %d): imports run down the layers only", rel, r, im, ir)
			}
		}
	}
	for p := range row {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("rows names %s, which is not a package of the module", p)
		}
	}
}

// TestDrawingNamesEveryPackage: the layer drawing of docs/architecture.md
// names every package of rows, so the map a newcomer reads is the one
// this test holds the code to.
func TestDrawingNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Layers\n.*?```\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/architecture.md has no drawing under ## Layers")
	}
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[a-z][a-z0-9_/]*`).FindAll(m[1], -1) {
		words[string(w)] = true
	}
	for _, r := range rows {
		for _, p := range r {
			if !words[p] {
				t.Errorf("the drawing under ## Layers does not name %s", p)
			}
		}
	}
}

// modulePackages maps each package directory of the main module (relative
// path) to the module packages its non-test files import.
func modulePackages(t *testing.T, root string) map[string][]string {
	nested := map[string]bool{}
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		n := d.Name()
		if path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				nested[path] = true
				return filepath.SkipDir // a nested module
			}
		}
		p, err := build.Default.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			t.Fatalf("%s: %v", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." || p.Name == "main" && rel != "cmd/stablerow" {
			return nil // the module's example package; a generator
		}
		var own []string
		for _, im := range p.Imports {
			if strings.HasPrefix(im, module+"/") {
				own = append(own, strings.TrimPrefix(im, module+"/"))
			}
		}
		sort.Strings(own)
		out[rel] = own
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(nested) == 0 {
		t.Fatal("no nested module found: the walk is broken")
	}
	return out
}
