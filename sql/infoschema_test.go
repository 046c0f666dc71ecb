package sql

import (
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// introCatalog is testCatalog that lists its tables and records the
// names each statement is told it reads (TableLister, TableNamer).
type introCatalog struct {
	fakeCatalog
	told [][]string
}

func (c *introCatalog) TableNames() []string {
	var names []string
	for n := range c.fakeCatalog {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (c *introCatalog) StatementTables(names []string) { c.told = append(c.told, names) }

// virtualRows is the number of literal rows of the VirtualTable under rel
// (through the projections and filters lowering puts over it).
func virtualRows(t *testing.T, rel plan.Rel) int {
	t.Helper()
	for {
		switch r := rel.(type) {
		case *plan.VirtualTableReadRel:
			return len(r.Values())
		case *plan.ProjectRel:
			rel = r.Input()
		case *plan.FilterRel:
			rel = r.Input()
		case *plan.SortRel:
			rel = r.Input()
		default:
			t.Fatalf("unexpected %T over the introspection rows", rel)
		}
	}
}

// parseListed parses text and returns its last statement's plan.
func parseListed(t *testing.T, cat *introCatalog, text string) (plan.Rel, []string) {
	t.Helper()
	stmts, err := Parse(text, cat)
	require.NoError(t, err, text)
	q, ok := stmts[len(stmts)-1].(*Query) // the last: DESCRIBE after another statement
	require.True(t, ok, "%s is not a query", text)
	return reread(t, q.Plan)
}

// TestInfoSchemaColumnsRows: information_schema.columns has a row per
// user column of every table (no system column), and a statement reading
// it tells the catalog every table, so the engine pins them together.
func TestInfoSchemaColumnsRows(t *testing.T) {
	cat := &introCatalog{fakeCatalog: testCatalog}
	root, names := parseListed(t, cat, "SELECT table_name, column_name, data_type FROM information_schema.columns")
	require.Equal(t, []string{"table_name", "column_name", "data_type"}, names)
	require.Equal(t, 5, virtualRows(t, root)) // t: id, name, score; u: id, flag
	require.Len(t, cat.told, 1)
	require.Subset(t, cat.told[0], []string{"t", "u"})

	root, _ = parseListed(t, cat, "SELECT * FROM information_schema.tables")
	require.Equal(t, 2, virtualRows(t, root))
}

// TestInfoSchemaDeclaredVarchar: an unbounded varchar column, which a
// scan reads as Substrait's string, is character varying in
// information_schema.columns (its declared type), not text.
func TestInfoSchemaDeclaredVarchar(t *testing.T) {
	f := arrow.Field{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true,
		Metadata: arrow.NewMetadata([]string{sqlvalue.SQLTypeKey}, []string{"varchar"})}
	cat := &introCatalog{fakeCatalog: fakeCatalog{"w": {f}}}
	stmts, err := Parse("DESCRIBE w", cat)
	require.NoError(t, err)
	root, _ := reread(t, stmts[0].(*Query).Plan)
	for root != nil {
		if vt, ok := root.(*plan.VirtualTableReadRel); ok {
			require.Equal(t, "character varying", vt.Values()[0][1].(expr.Literal).ValueString())
			return
		}
		root = root.GetInputs()[0]
	}
}

// TestShowTablesAndDescribe: SHOW TABLES and DESCRIBE t (rewritten to
// SHOW describe.t before the parser) are queries with DuckDB's columns;
// a DESCRIBE of a table that does not exist is ErrUnknownTable, and a
// "describe" that is not a statement's first word is left alone.
func TestShowTablesAndDescribe(t *testing.T) {
	cat := &introCatalog{fakeCatalog: testCatalog}
	root, names := parseListed(t, cat, "SHOW TABLES")
	require.Equal(t, []string{"table_name"}, names)
	require.Equal(t, 2, virtualRows(t, root))

	root, names = parseListed(t, cat, "SELECT 1; DESCRIBE u")
	require.Equal(t, []string{"column_name", "data_type", "is_nullable"}, names)
	require.Equal(t, 2, virtualRows(t, root))

	_, err := Parse("DESCRIBE nosuch", cat)
	require.ErrorIs(t, err, ErrUnknownTable)
	_, err = Parse("SHOW work_mem", cat)
	require.ErrorIs(t, err, ErrUnsupported)

	withDescribe := fakeCatalog{"d": {{Name: "describe", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}}
	_, names = parseListed(t, &introCatalog{fakeCatalog: withDescribe}, "SELECT describe FROM d")
	require.Equal(t, []string{"describe"}, names)
}

// TestInfoSchemaErrors: the relation needs a catalog that lists its
// tables, and information_schema has only tables and columns here.
func TestInfoSchemaErrors(t *testing.T) {
	_, err := Parse("SELECT * FROM information_schema.tables", testCatalog)
	require.ErrorIs(t, err, ErrUnsupported)
	require.True(t, errors.Is(err, ErrUnsupported))
	_, err = Parse("SELECT * FROM information_schema.views", &introCatalog{fakeCatalog: testCatalog})
	require.ErrorIs(t, err, ErrUnsupported)
}

// TestInfoSchemaTypeColumns: data_type and the size columns as
// PostgreSQL's information_schema.columns computes them.
func TestInfoSchemaTypeColumns(t *testing.T) {
	p := func(v int32) *int32 { return &v }
	for _, c := range []struct {
		k                 kind
		typ               string
		length, prec, sca *int32
	}{
		{kindI16, "smallint", nil, p(16), p(0)},
		{kindI32, "integer", nil, p(32), p(0)},
		{kindI64, "bigint", nil, p(64), p(0)},
		{kindF32, "real", nil, p(24), nil},
		{kindF64, "double precision", nil, p(53), nil},
		{kindNumeric(12, 2), "numeric", nil, p(12), p(2)},
		{kindVarchar(40), "character varying", p(40), nil, nil},
		{kindVarchar(0), "character varying", nil, nil, nil},
		{kindChar(3), "character", p(3), nil, nil},
		{kindString, "text", nil, nil, nil},
		{kindBool, "boolean", nil, nil, nil},
		{kindDate, "date", nil, nil, nil},
		{kindTimestamp, "timestamp without time zone", nil, nil, nil},
	} {
		require.Equal(t, c.typ, dataType(c.k))
		l, pr, s := typeSizes(c.k)
		require.Equal(t, c.length, l, c.typ)
		require.Equal(t, c.prec, pr, c.typ)
		require.Equal(t, c.sca, s, c.typ)
	}
}
