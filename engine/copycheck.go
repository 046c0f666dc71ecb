package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// copyChecks tests COPY FROM's rows against the table's CHECK
// constraints. INSERT and UPDATE compute the checks in their own
// query (sql.Insert.Checks); COPY's rows come from the file, so each
// batch is the one table of a query that computes them, SELECT
// (check1), (check2), ... over the batch, lowered and planned as any
// query is (the same expression lowering as INSERT's), and its values
// are tested by checkFailed.
type copyChecks struct {
	db     *DB
	rel    string
	names  []string // the checks, in name order (ExecRelCheck's)
	query  *sql.Query
	schema *arrow.Schema // the table's full schema: user columns, _rowid, _rowaddr
}

// newCopyChecks lowers the checks of t (nil when it has none).
func (db *DB) newCopyChecks(rel string, t *table.Table) (*copyChecks, error) {
	cs := t.Constraints().Checks
	if len(cs) == 0 {
		return nil, nil
	}
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b table.Check) int { return strings.Compare(a.Name, b.Name) })
	c := &copyChecks{db: db, rel: rel, schema: t.Schema()}
	exprs := make([]string, len(cs))
	for i, k := range cs {
		c.names = append(c.names, k.Name)
		exprs[i] = "(" + k.Expr + ")"
	}
	stmts, err := sql.Parse("SELECT "+strings.Join(exprs, ", ")+" FROM copy_rows", &batchCatalog{c: c})
	if err != nil {
		return nil, fmt.Errorf("CHECK constraints of %q: %w", rel, err)
	}
	q, ok := stmts[0].(*sql.Query)
	if !ok || len(stmts) != 1 {
		return nil, fmt.Errorf("%w: CHECK constraints of %q lowered to %T", ErrInternal, rel, stmts[0])
	}
	c.query = q
	return c, nil
}

// test runs the checks over b (the table's user columns).
func (c *copyChecks) test(ctx context.Context, b arrow.RecordBatch) error {
	cols := append(slices.Clone(b.Columns()), nil, nil)
	n := int(b.NumRows())
	for i := len(cols) - 2; i < len(cols); i++ {
		// _rowid and _rowaddr: a CHECK cannot read them (its scope is
		// the user columns), so they are zero.
		bld := array.NewUint64Builder(c.db.mem())
		bld.AppendValues(make([]uint64, n), nil)
		cols[i] = bld.NewArray()
		bld.Release()
	}
	full := array.NewRecordBatch(c.schema, cols, int64(n))
	cols[len(cols)-2].Release()
	cols[len(cols)-1].Release()
	defer full.Release()
	cat := &batchCatalog{c: c, batch: full}
	defer cat.release()
	node, err := plan.Build(ctx, c.query.Plan, cat, plan.Options{Threads: 1})
	if err != nil {
		return err
	}
	rows, err := c.db.execute(ctx, node, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		out := rows.Batch()
		if err := checkFailed(c.rel, c.names, out.Columns()); err != nil {
			return err
		}
	}
	return rows.Close()
}

// batchCatalog is the catalog of the checks' query: one table, the
// batch being copied, with the target table's schema.
type batchCatalog struct {
	c     *copyChecks
	batch arrow.RecordBatch // nil while the query is lowered
	// made are the scans planned over batch, which hold references to
	// its columns until released (their owner, as plan/values.go's
	// stream owns its ValuesExec).
	made []*exec.ValuesExec
}

func (b *batchCatalog) release() {
	for _, v := range b.made {
		v.Release()
	}
	b.made = nil
}

func (b *batchCatalog) TableSchema(string) (*arrow.Schema, error) { return b.c.schema, nil }

func (b *batchCatalog) Table(string) (plan.TableProvider, error) { return batchTable{b}, nil }

type batchTable struct{ b *batchCatalog }

func (t batchTable) Schema() *arrow.Schema { return t.b.c.schema }

func (t batchTable) Scan(columns []int) (exec.Node, error) {
	if t.b.batch == nil {
		return nil, fmt.Errorf("%w: COPY checks planned without a batch", ErrInternal)
	}
	fields := make([]arrow.Field, len(columns))
	cols := make([]arrow.Array, len(columns))
	for i, c := range columns {
		fields[i], cols[i] = t.b.c.schema.Field(c), t.b.batch.Column(c)
	}
	schema := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBatch(schema, cols, t.b.batch.NumRows())
	defer rb.Release()
	v, err := exec.NewValuesExec(schema, []arrow.RecordBatch{rb})
	if err != nil {
		return nil, err
	}
	t.b.made = append(t.b.made, v)
	return v, nil
}

func (t batchTable) TakeByKey(exec.Node, int, int, []int) (exec.Node, bool, error) {
	return nil, false, nil
}
