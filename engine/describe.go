package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// Description is what a client learns of a statement before it runs it:
// PostgreSQL's Describe of a prepared statement
// (exec_describe_statement_message), which answers its ParameterDescription
// and its RowDescription, or NoData for a statement without a result set.
// Flight SQL carries the two as a prepared statement's parameter_schema
// and dataset_schema (ADBC's GetParameterSchema and ExecuteSchema, JDBC's
// ParameterMetaData and ResultSetMetaData).
type Description struct {
	// Params is the parameter schema (see ParamSchema).
	Params *arrow.Schema
	// Result is the schema of the statement's rows, as its Rows.Schema
	// will be when it runs against the same tables: a query's planned
	// output, EXPLAIN's plan column, VACUUM's report. A statement without
	// a result set (INSERT, UPDATE, DELETE, DDL, COPY, SET) has a schema
	// of no fields: PostgreSQL's NoData. It is nil when the statement
	// cannot say before it runs: a script of several statements, each
	// planned only once the ones before it ran (PostgreSQL cannot prepare
	// one at all).
	Result *arrow.Schema
}

// noFields is the schema of no fields: the Result of a statement without
// a result set, the Params of one without parameters.
var noFields = arrow.NewSchema(nil, nil)

// Describe parses and plans one statement — SQL text, else the Substrait
// plan substrait — against the current catalog and describes it, without
// running it: nothing is read from the tables beyond their schemas and
// nothing is written, whatever the statement would do. As PostgreSQL's
// PlanCacheComputeResultDesc, the result schema comes from the planned
// query's output (ExecCleanTypeFromTL of its target list), and a utility
// statement's from what it returns (UtilityTupleDescriptor: EXPLAIN's
// plan text, here also VACUUM's report). A statement that fails to parse
// or plan fails here, as it would when run.
func (db *DB) Describe(ctx context.Context, text string, substrait []byte) (Description, error) {
	return db.describe(ctx, text, substrait, true)
}

// describe is Describe; without withResult only the parameters are
// described, and the statement is lowered but not planned.
func (db *DB) describe(ctx context.Context, text string, substrait []byte, withResult bool) (d Description, err error) {
	defer recoverInternal(&err)
	if substrait != nil {
		p, err := plan.DecodePlan(substrait)
		if err != nil {
			return Description{}, err
		}
		if d.Params, err = paramSchema(p, nil); err != nil {
			return Description{}, err
		}
		if withResult {
			node, err := db.buildSubstrait(ctx, db.newCatalog(ctx), p)
			if err != nil {
				return Description{}, err
			}
			d.Result = node.Schema()
		}
		return d, nil
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		// Refused as running it is (Session.Query): the parser reads C
		// strings, so the text after the NUL would go undescribed.
		return Description{}, fmt.Errorf("%w: NUL byte at line %d", sql.ErrSyntax, 1+strings.Count(text[:i], "\n"))
	}
	cat := db.newCatalog(ctx)
	stmts, err := sql.Parse(text, cat)
	if err != nil {
		return Description{}, err
	}
	if len(stmts) != 1 {
		// A script's statements are planned one by one as it runs;
		// PostgreSQL cannot prepare one at all.
		return Description{Params: noFields}, nil
	}
	d.Params = noFields
	if q := statementQuery(stmts[0]); q != nil {
		if d.Params, err = paramSchema(q.Plan, q.ParamNames); err != nil {
			return Description{}, err
		}
		if d.Params, err = actionParams(stmts[0], d.Params); err != nil { // upsert.go
			return Description{}, err
		}
	}
	if withResult {
		if d.Result, err = db.resultSchema(ctx, cat, stmts[0]); err != nil {
			return Description{}, err
		}
	}
	return d, nil
}

// resultSchema is the schema the rows of st will have (DB.start's
// cases), planned on cat but not run.
func (db *DB) resultSchema(ctx context.Context, cat *catalog, st sql.Statement) (*arrow.Schema, error) {
	switch s := st.(type) {
	case *sql.Query:
		// Planned even for EXPLAIN, so that a bad query fails here.
		node, err := db.build(ctx, cat, s)
		if err != nil {
			return nil, err
		}
		if s.Explain {
			return explainSchema, nil
		}
		return node.Schema(), nil
	case *sql.Vacuum:
		if s.Full {
			return compactSchema, nil
		}
		return vacuumSchema, nil
	}
	return noFields, nil
}
