package sql

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkCatalog is testCatalog whose table "c" has CHECK constraints.
type checkCatalog struct {
	fakeCatalog
	checks map[string][]Check
}

func (c checkCatalog) TableChecks(name string) ([]Check, error) { return c.checks[name], nil }

// TestCreateTableChecks: CHECK constraints of columns and of the table,
// named as PostgreSQL's ChooseConstraintName names them (the given
// name; <table>_<column>_check for an expression over one column, else
// <table>_check; a number appended to a name taken), stored as
// deparsed SQL; PostgreSQL's refusals (a non-boolean expression, a
// subquery, an aggregate, a window function, an unknown column, a
// duplicated name, NOT VALID) are typed errors.
func TestCreateTableChecks(t *testing.T) {
	ct := parseOne(t, `CREATE TABLE c1 (a int CHECK (a > 0), b int CHECK (b > a), c int, CHECK (c > 0),
		CHECK (a + c > 0), CONSTRAINT named CHECK (b < 100), CHECK (C > 0), CHECK (1 > 0) NO INHERIT)`).(*CreateTable)
	assert.Equal(t, []Check{
		{Name: "c1_a_check", Expr: "a > 0"},
		{Name: "c1_check", Expr: "b > a"},
		{Name: "c1_c_check", Expr: "c > 0"},
		{Name: "c1_check1", Expr: "(a + c) > 0"},
		{Name: "named", Expr: "b < 100"},
		{Name: "c1_c_check1", Expr: "c > 0"},
		{Name: "c1_check2", Expr: "1 > 0"},
	}, ct.Checks)
	for q, want := range map[string]string{
		"CREATE TABLE c2 (a int CHECK (a))":                                               "argument of CHECK must be type boolean, not type integer",
		"CREATE TABLE c3 (a int CHECK ((SELECT 1) > 0))":                                  "cannot use subquery in check constraint",
		"CREATE TABLE c4 (a int CHECK (sum(a) > 0))":                                      "aggregate functions are not allowed in check constraints",
		"CREATE TABLE c5 (a int CHECK (z > 0))":                                           `column "z" does not exist`,
		"CREATE TABLE c7 (a int, CONSTRAINT x CHECK (a > 0), CONSTRAINT x CHECK (a > 1))": `check constraint "x" already exists`,
		"CREATE TABLE c12 (a int CHECK (row_number() over () > 0))":                       "window functions are not allowed in check constraints",
	} {
		_, err := Parse(q, testCatalog)
		require.Error(t, err, q)
		assert.Contains(t, err.Error(), want, q)
	}
	_, err := Parse("CREATE TABLE c (a int, CHECK (a > 0) NOT VALID)", testCatalog)
	assert.True(t, err != nil && (errors.Is(err, ErrUnsupported) || errors.Is(err, ErrSyntax)), "%v", err)
}

// TestChecksOnWrites: INSERT (every column, some columns, SELECT) and
// UPDATE of a table with CHECK constraints compute each check over the
// whole new row, in name order (ExecRelCheck's), after the row's
// columns: Insert.Checks and Update.Checks name them, and an INSERT
// then yields every user column (a column not named NULL).
func TestChecksOnWrites(t *testing.T) {
	cat := checkCatalog{
		fakeCatalog: fakeCatalog{"c": {
			{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		}},
		checks: map[string][]Check{"c": {{Name: "z_last", Expr: "a < b"}, {Name: "c_a_check", Expr: "a > 0"}}},
	}
	one := func(q string) Statement {
		stmts, err := Parse(q, cat)
		require.NoError(t, err, q)
		return stmts[0]
	}
	for _, q := range []string{"INSERT INTO c VALUES (1, 2)", "INSERT INTO c (b) VALUES (2)", "INSERT INTO c SELECT 1, 2"} {
		ins := one(q).(*Insert)
		assert.Equal(t, []string{"c_a_check", "z_last"}, ins.Checks, q)
		assert.Nil(t, ins.Columns, q)
		assert.Equal(t, []string{"a", "b", "c_a_check", "z_last"}, ins.Source.Plan.Relations[0].GetRoot().Names, q)
	}
	up := one("UPDATE c SET a = a + 1").(*Update)
	assert.Equal(t, []string{"c_a_check", "z_last"}, up.Checks)
	assert.Equal(t, []string{colRowID, "a", "b", "c_a_check", "z_last"}, up.Rows.Plan.Relations[0].GetRoot().Names)
	// Without checks nothing is added.
	plain := parseOne(t, "INSERT INTO t (id) VALUES (1)").(*Insert)
	assert.Empty(t, plain.Checks)
	assert.Equal(t, []string{"id"}, plain.Columns)
}

// TestAlterTableConstraint: ADD CHECK is analysed as CREATE TABLE's
// checks are and named past the table's own (c_a_check taken: the next
// is c_a_check1), with a query computing it over every row; a name the
// table has is refused; DROP CONSTRAINT [IF EXISTS]; other ALTERs are
// refused by name.
func TestAlterTableConstraint(t *testing.T) {
	cat := checkCatalog{
		fakeCatalog: fakeCatalog{"c": {{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}},
		checks:      map[string][]Check{"c": {{Name: "c_a_check", Expr: "a > 0"}}},
	}
	stmts, err := Parse("ALTER TABLE c ADD CHECK (A < 10)", cat)
	require.NoError(t, err)
	ac := stmts[0].(*AlterConstraint)
	assert.Equal(t, &Check{Name: "c_a_check1", Expr: "a < 10"}, ac.Add)
	names := ac.Validate.Plan.Relations[0].GetRoot().Names
	assert.Equal(t, "c_a_check1", names[len(names)-1])
	stmts, err = Parse("ALTER TABLE c DROP CONSTRAINT IF EXISTS x", cat)
	require.NoError(t, err)
	assert.Equal(t, &AlterConstraint{Table: "c", Drop: "x", MissingOK: true}, stmts[0])
	for q, want := range map[string]error{
		"ALTER TABLE c ADD CONSTRAINT c_a_check CHECK (a < 10)": ErrInvalid,
		"ALTER TABLE c ADD CHECK (sum(a) > 0)":                  ErrInvalid,
		"ALTER TABLE c ADD COLUMN b INT":                        ErrUnsupported,
		"ALTER TABLE c ADD UNIQUE (a)":                          ErrUnsupported,
		"ALTER TABLE nope ADD CHECK (a > 0)":                    ErrUnknownTable,
	} {
		_, err := Parse(q, cat)
		assert.ErrorIs(t, err, want, q)
	}
}
