package sql

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/errkind"
	sqlvalue "github.com/stablerow/stablerow/value"
)

// typedCatalog has one column of every SQL type, as the table stores them.
var typedCatalog = fakeCatalog{
	"ty": {
		{Name: "i2", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i4", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f4", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{sqlvalue.SQLTypeKey}, []string{"varchar(5)"})},
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{sqlvalue.SQLTypeKey}, []string{"char(3)"})},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	},
}

// TestCreateTableTypes: every SQL type is stored as itself (PostgreSQL's
// names and aliases), never widened.
func TestCreateTableTypes(t *testing.T) {
	stmts, err := Parse("CREATE TABLE x (a INT2, b INT4, c INT, d FLOAT4, e FLOAT(24), f FLOAT(25), g CHARACTER VARYING(7), h CHARACTER(2), i CHAR, j VARCHAR, k DATE, l TIMESTAMP, m TIMESTAMP(6))", typedCatalog)
	require.NoError(t, err)
	s := stmts[0].(*CreateTable).Schema
	want := []struct {
		t    arrow.DataType
		decl string
	}{
		{arrow.PrimitiveTypes.Int16, ""}, {arrow.PrimitiveTypes.Int32, ""}, {arrow.PrimitiveTypes.Int32, ""},
		{arrow.PrimitiveTypes.Float32, ""}, {arrow.PrimitiveTypes.Float32, ""}, {arrow.PrimitiveTypes.Float64, ""},
		{arrow.BinaryTypes.String, "varchar(7)"}, {arrow.BinaryTypes.String, "char(2) trimmed"}, {arrow.BinaryTypes.String, "char(1) trimmed"},
		{arrow.BinaryTypes.String, "varchar"}, {arrow.FixedWidthTypes.Date32, ""},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, ""}, {&arrow.TimestampType{Unit: arrow.Microsecond}, ""},
	}
	for i, w := range want {
		f := s.Field(i)
		assert.True(t, arrow.TypeEqual(w.t, f.Type), "%s: %s", f.Name, f.Type)
		decl, _ := sqlvalue.SQLType(f)
		assert.Equal(t, w.decl, decl, f.Name)
	}
	for sql, kind := range map[string]error{
		"CREATE TABLE x (a VARCHAR(0))":        ErrInvalid,
		"CREATE TABLE x (a VARCHAR(10485761))": ErrInvalid,
		"CREATE TABLE x (a TIMESTAMP(3))":      ErrUnsupported,
		"CREATE TABLE x (a TIMESTAMPTZ)":       ErrUnsupported,
	} {
		_, err := Parse(sql, typedCatalog)
		require.ErrorIs(t, err, kind, sql)
	}
}

// TestAssignmentErrors: constants that do not fit the column are
// PostgreSQL's errors at plan time, typed.
func TestAssignmentErrors(t *testing.T) {
	for sql, msg := range map[string]string{
		"INSERT INTO ty (i2) VALUES ('40000')":     `value "40000" is out of range for type smallint`,
		"INSERT INTO ty (v) VALUES ('abcdef')":     "value too long for type character varying(5)",
		"INSERT INTO ty (c) VALUES ('abcd')":       "value too long for type character(3)",
		"INSERT INTO ty (d) VALUES ('2023-02-29')": `date/time field value out of range: "2023-02-29"`,
		"INSERT INTO ty (ts) VALUES ('soon')":      `invalid input syntax for type timestamp: "soon"`,
		"UPDATE ty SET v = 'abcdef'":               "value too long for type character varying(5)",
		"SELECT d * 2 FROM ty":                     "operator does not exist: date * integer",
		"SELECT d + 1::bigint FROM ty":             "operator does not exist: date + bigint",
		"SELECT ts - ts FROM ty":                   "interval",
		"SELECT CAST(d AS INTEGER) FROM ty":        "cannot cast type date to integer",
	} {
		_, err := Parse(sql, typedCatalog)
		require.Error(t, err, sql)
		assert.Contains(t, err.Error(), msg, sql)
		assert.True(t, errors.Is(err, ErrType) || errors.Is(err, ErrUnsupported), "%s: %v", sql, err)
	}
	_, err := Parse("INSERT INTO ty (v) VALUES ('abcdef')", typedCatalog)
	assert.ErrorIs(t, err, errkind.OutOfRange, "the length error keeps its kind")
}

// TestExplicitStringCastTruncates: CAST(x AS varchar(n) / char(n)) of a
// column is PostgreSQL's explicit cast, which truncates to n characters
// (it was refused): the first n characters of the value as text, then
// the assignment cast, which they always fit.
func TestExplicitStringCastTruncates(t *testing.T) {
	for _, q := range []string{"SELECT CAST(v AS VARCHAR(2)) FROM ty", "SELECT CAST(v AS CHAR(2)) FROM ty", "SELECT CAST(i4 AS VARCHAR(3)) FROM ty", "SELECT CAST(c AS CHAR(1)) FROM ty"} {
		stmts, err := Parse(q, typedCatalog)
		require.NoError(t, err, q)
		root, _ := reread(t, stmts[0].(*Query).Plan)
		cast, ok := root.(*plan.ProjectRel).Expressions()[0].(*expr.Cast)
		require.True(t, ok, q)
		cut, ok := cast.Input.(*expr.ScalarFunction)
		require.True(t, ok, q)
		assert.Equal(t, "substring", cut.Name(), q)
	}
}

// TestTypedPlans: the Substrait types the front end emits for the SQL
// types, read back by substrait-go.
func TestTypedPlans(t *testing.T) {
	stmts, err := Parse("SELECT i2 + i2, i2 + 1, i4 + 1::bigint, f4 * f4, f4 + 1, d + 1, d - d, c, v, ts FROM ty", typedCatalog)
	require.NoError(t, err)
	root, _ := reread(t, stmts[0].(*Query).Plan)
	es := root.(*plan.ProjectRel).Expressions()
	var got []string
	for _, e := range es {
		got = append(got, e.GetType().String())
	}
	assert.Equal(t, []string{"i16?", "i32?", "i64?", "fp32?", "fp64?", "date?", "i32?", "fixedchar?<3>", "varchar?<5>", "precision_timestamp?<6>"}, got)
}
