package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// ParamSchema is the schema of the parameters of one statement — SQL
// text, else the Substrait plan substrait — for a client to bind them by
// (Flight SQL's parameter_schema, ADBC's GetParameterSchema): field i is
// $i+1, typed as the planner infers it (plan.ParamTypes): a scalar
// parameter as the type of its use ($1 compared with a BIGINT column is
// int64, with a TEXT column utf8), the list of UNNEST($k) as a list.
// Field names are the :name the text wrote, or "" for $k, as ADBC asks.
// Every field is nullable: NULL may be bound to any parameter. A
// statement without parameters has an empty schema.
//
// The statement is parsed and planned against the current catalog, as
// PostgreSQL's PREPARE runs parse analysis (parse_analyze_varparams): an
// unknown table or a type error is reported here. As there, the first use
// that fixes a parameter's type types it, one left unknown in a select
// list or among untyped operands is text (SELECT $1), and one that no use
// types ($1 IS NULL alone) is refused: "could not determine data type of
// parameter $1" (sql/paramtype.go). So no field is Arrow's null type.
func (db *DB) ParamSchema(ctx context.Context, text string, substrait []byte) (*arrow.Schema, error) {
	d, err := db.describe(ctx, text, substrait, false)
	return d.Params, err
}

// paramSchema is the parameter schema of a plan whose $k is named
// names[k-1] ("" or absent: unnamed).
func paramSchema(p *substraitpb.Plan, names []string) (*arrow.Schema, error) {
	types, err := plan.ParamTypes(p)
	if err != nil {
		return nil, err
	}
	n := len(names)
	for k := range types {
		n = max(n, k)
	}
	fields := make([]arrow.Field, n)
	for i := range fields {
		t, ok := types[i+1]
		if !ok {
			// Not in the plan (a Substrait plan may skip a reference):
			// any value binds, and ADBC spells "unknown" as the null type.
			t = arrow.Null
		}
		fields[i] = arrow.Field{Name: paramFieldName(names, i), Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil), nil
}

// paramFieldName is $i+1's name in a parameter schema.
func paramFieldName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}

// statementQuery is the query a statement plans its rows with (the query
// itself, or the rows an INSERT, DELETE, UPDATE, CREATE TABLE AS or
// COPY TO reads), where its parameters are; nil for the others.
func statementQuery(st sql.Statement) *sql.Query {
	var q *sql.Query
	switch s := st.(type) {
	case *sql.Query:
		q = s
	case *sql.Insert:
		q = s.Source
	case *sql.Delete:
		q = s.Rows
	case *sql.Update:
		q = s.Rows
	case *sql.CreateTableAs:
		q = s.Source
	case *sql.CopyTo:
		q = s.Source
	}
	return q
}
