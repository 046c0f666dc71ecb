package sql

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/errkind"
)

// listingCatalog is testCatalog that can also list its tables.
type listingCatalog struct{ fakeCatalog }

func (c listingCatalog) TableNames() []string {
	var names []string
	for n := range c.fakeCatalog {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// An error that names a place in the statement is marked with it (so the
// CLI can echo the line with a caret), and the names a person most often
// mistypes come with the closest real one.
func TestErrorsLocatedAndHinted(t *testing.T) {
	cat := listingCatalog{fakeCatalog{
		"sales": {{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "region", Type: arrow.BinaryTypes.String, Nullable: true}},
		"t":     testCatalog["t"],
	}}
	for _, c := range []struct {
		sql          string
		want         error
		line, column int    // 0: not located
		hint         string // "" : no hint
	}{
		{"SELECT * FROM salse", ErrUnknownTable, 1, 15, `(did you mean "sales"?)`},
		{"SELECT 1;\nSELECT *\n  FROM   nothing_like_it", ErrUnknownTable, 3, 10, ""},
		{"SELECT amout FROM sales", ErrUnknownColumn, 1, 8, `(did you mean "amount"?)`},
		{"SELECT s.regoin FROM sales AS s", ErrUnknownColumn, 1, 8, `(did you mean "region"?)`},
		{"SELECT 'é', reigon FROM sales", ErrUnknownColumn, 1, 13, `(did you mean "region"?)`},
		{"SELECT lenght(name) FROM t", ErrUnsupported, 1, 8, `(did you mean "length"?)`},
		{"SELECT cuont(*) FROM t", ErrUnsupported, 1, 8, `(did you mean "count"?)`},
		{"SELECT id FROM t WHERE", ErrSyntax, 1, 23, ""},
		{"SELECT id FROM t WHERE id = 'abc'", ErrType, 1, 29, ""},
	} {
		_, err := Parse(c.sql, cat)
		if !errors.Is(err, c.want) {
			t.Errorf("%q: %v, want %v", c.sql, err, c.want)
			continue
		}
		var loc *errkind.Located
		switch {
		case !errors.As(err, &loc):
			t.Errorf("%q: %v is not located", c.sql, err)
		case loc.Line != c.line || loc.Column != c.column:
			t.Errorf("%q: located at %d:%d, want %d:%d (%v)", c.sql, loc.Line, loc.Column, c.line, c.column, err)
		case !strings.Contains(err.Error(), loc.At):
			t.Errorf("%q: At %q is not in %q", c.sql, loc.At, err)
		}
		if c.hint != "" && !strings.Contains(err.Error(), c.hint) {
			t.Errorf("%q: %v lacks %s", c.sql, err, c.hint)
		}
		if c.hint == "" && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%q: %v offers a name though none is close", c.sql, err)
		}
	}
}

// An unknown table's message says it once, however many layers report it,
// and still matches the catalog's own error.
func TestUnknownTableReadsOnce(t *testing.T) {
	_, err := Parse("SELECT * FROM nope", testCatalog)
	if strings.Count(err.Error(), "unknown table") != 1 || strings.Contains(err.Error(), "catalog:") {
		t.Fatalf("stacked: %v", err)
	}
	if !errors.Is(err, ErrUnknownTable) {
		t.Fatal(err)
	}
}
