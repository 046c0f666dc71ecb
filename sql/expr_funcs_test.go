package sql

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestScalarExprsLower: each seed of FuzzParse's exprs* corpus lowers
// without error, and substrait-go reads the plan back against the full
// standard collection (the compound names and types are the YAML's).
func TestScalarExprsLower(t *testing.T) {
	files, _ := filepath.Glob("testdata/fuzz/FuzzParse/exprs*")
	if len(files) < 5 {
		t.Fatalf("exprs seeds missing: %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(string(b), "\n", 3)[1], `[]byte("`), `")`)
		src = strings.ReplaceAll(src, `\\`, `\`)
		stmts, err := Parse(src, testCatalog)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		q := stmts[0].(*Query)
		if _, _, err := readPlan(q.Plan); err != nil {
			t.Fatalf("%s: plan does not re-read: %v", src, err)
		}
	}
}

// TestScalarExprsErrors: PostgreSQL refuses these too (or, for the
// unsupported ones, returns a type stablerow lacks).
func TestScalarExprsErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want error
		msg  string
	}{
		{"SELECT lower(id) FROM t", ErrType, "bigint"},
		{"SELECT 1 || 2", ErrType, "operator does not exist"},
		{"SELECT round(score, 2) FROM t", ErrType, "function round(double precision, integer) does not exist"},
		{"SELECT mod(score, 2) FROM t", ErrUnsupported, "numeric"},
		{"SELECT name LIKE name ESCAPE '!' FROM t", ErrUnsupported, "ESCAPE"},
		{"SELECT name LIKE 'a' ESCAPE 'xy' FROM t", ErrInvalid, "invalid escape string"},
		{"SELECT CASE WHEN id THEN 1 END FROM t", ErrType, "boolean"},
		{"SELECT CASE WHEN true THEN 1 ELSE 'x' END", ErrType, "invalid input syntax"},
		{"SELECT coalesce(id, name) FROM t", ErrType, "cannot compare or combine"},
		{"SELECT substr(name, 3000000000) FROM t", ErrType, "integer out of range"},
		{"SELECT lower(name, name) FROM t", ErrType, "does not take 2 arguments"},
		{"SELECT md5(name) FROM t", ErrUnsupported, "md5"},
	} {
		_, err := Parse(c.sql, testCatalog)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %v containing %q", c.sql, err, c.want, c.msg)
		}
	}
}

// TestConcatFunctions: concat and concat_ws lower (they were refused:
// TPC-DS Q5, Q80, Q84) to a strict concat over arguments that cannot be
// NULL, each written as its output function writes it; concat() of no
// arguments is refused as PostgreSQL refuses it.
func TestConcatFunctions(t *testing.T) {
	for _, q := range []string{
		"SELECT concat(id, name, id > 1, NULL) FROM t",
		"SELECT concat_ws(',', name, id, NULL, score) FROM t",
		"SELECT concat('store', name) FROM t",
	} {
		_, root, _ := parseQuery(t, q)
		assert.Contains(t, planCalls(t, root), "concat", q)
	}
	_, err := Parse("SELECT concat() FROM t", testCatalog)
	assert.ErrorIs(t, err, ErrType)
}
