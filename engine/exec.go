package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/plan/sql"
	"github.com/stablerow/stablerow/table"
)

// Result is what a statement returns. It owns its batches.
type Result struct {
	Schema       *arrow.Schema
	Batches      []arrow.RecordBatch
	RowsAffected int64
	// Plan is the plan that ran, with metrics (queries), or the EXPLAIN text.
	Plan string
}

// Release frees the batches.
func (r *Result) Release() {
	if r == nil {
		return
	}
	for _, b := range r.Batches {
		b.Release()
	}
	r.Batches = nil
}

// NumRows is the number of result rows.
func (r *Result) NumRows() int64 {
	var n int64
	for _, b := range r.Batches {
		n += b.NumRows()
	}
	return n
}

// Exec runs every ';'-separated statement of text in order and returns the
// result of the last one. params binds :name parameters by name (and $k
// ones by "k").
func (db *DB) Exec(ctx context.Context, text string, params map[string]any) (*Result, error) {
	parts, err := pg_query.SplitWithScanner(text, true)
	if err != nil || len(parts) == 0 {
		parts = []string{text} // let the parser report the error with its position
	}
	var last *Result
	for _, part := range parts {
		if strings.TrimSpace(part) == "" {
			continue
		}
		last.Release()
		if last, err = db.execOne(ctx, part, params); err != nil {
			return nil, err
		}
	}
	if last == nil {
		return nil, fmt.Errorf("%w: empty statement", sql.ErrSyntax)
	}
	return last, nil
}

func (db *DB) execOne(ctx context.Context, text string, params map[string]any) (*Result, error) {
	cat := db.newCatalog(ctx)
	stmts, err := sql.Parse(text, cat)
	if err != nil {
		return nil, err
	}
	var last *Result
	for _, st := range stmts {
		last.Release()
		if last, err = db.run(ctx, cat, st, params); err != nil {
			return nil, err
		}
	}
	return last, nil
}

func (db *DB) run(ctx context.Context, cat *catalog, st sql.Statement, params map[string]any) (*Result, error) {
	switch s := st.(type) {
	case *sql.Query:
		return db.query(ctx, cat, s, params)
	case *sql.CreateTable:
		_, err := db.CreateTable(ctx, s.Name, s.Schema)
		if errors.Is(err, ErrTableExists) && s.IfNotExists {
			err = nil
		}
		return &Result{}, err
	case *sql.DropTable:
		err := db.DropTable(ctx, s.Name)
		if errors.Is(err, ErrUnknownTable) && s.IfExists {
			err = nil
		}
		return &Result{}, err
	case *sql.CreateIndex:
		if s.Method != "" && !strings.EqualFold(s.Method, "btree") {
			return nil, fmt.Errorf("%w: index method %q (only btree)", ErrUnsupported, s.Method)
		}
		err := db.CreateIndex(ctx, s.Table, s.Name, s.Column)
		if err != nil && s.IfNotExists && strings.Contains(err.Error(), "already exists") {
			err = nil
		}
		return &Result{}, err
	case *sql.DropIndex:
		return nil, fmt.Errorf("%w: DROP INDEX", ErrUnsupported)
	case *sql.Vacuum:
		return db.vacuum(ctx, s)
	case *sql.Cluster:
		return &Result{}, db.Cluster(ctx, s.Table, s.Index)
	case *sql.Reindex:
		return &Result{}, db.Reindex(ctx, s.Table, s.Index)
	case *sql.Insert:
		return db.insert(ctx, cat, s, params)
	case *sql.Delete:
		return db.delete(ctx, cat, s, params)
	case *sql.Update:
		return db.update(ctx, cat, s, params)
	}
	return nil, fmt.Errorf("%w: statement %T", ErrUnsupported, st)
}

// bind maps the query's parameters to exec params by anchor.
func bind(q *sql.Query, params map[string]any) (map[int]any, error) {
	out := map[int]any{}
	for i, name := range q.ParamNames {
		k := i + 1
		key := name
		if key == "" {
			key = strconv.Itoa(k)
		}
		v, ok := params[key]
		if !ok {
			return nil, fmt.Errorf("%w: no value bound for parameter %q", ErrParam, key)
		}
		nv, err := normalizeParam(v)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter %q: %v", ErrParam, key, err)
		}
		out[k] = nv
	}
	return out, nil
}

// normalizeParam widens Go integer kinds to the 64-bit forms exec binds.
func normalizeParam(v any) (any, error) {
	switch x := v.(type) {
	case []int:
		o := make([]int64, len(x))
		for i, e := range x {
			o[i] = int64(e)
		}
		return o, nil
	case []int32:
		o := make([]int64, len(x))
		for i, e := range x {
			o[i] = int64(e)
		}
		return o, nil
	case []uint32:
		o := make([]uint64, len(x))
		for i, e := range x {
			o[i] = uint64(e)
		}
		return o, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case nil:
		return nil, errors.New("nil value")
	}
	return v, nil
}

// build plans a lowered query.
func (db *DB) build(ctx context.Context, cat *catalog, q *sql.Query) (exec.Node, error) {
	return plan.Build(ctx, q.Plan, cat, plan.Options{DisableIndexes: db.opt.DisableIndexes})
}

func (db *DB) query(ctx context.Context, cat *catalog, q *sql.Query, params map[string]any) (*Result, error) {
	res, _, err := db.runQuery(ctx, cat, q, params)
	return res, err
}

// runQuery plans q, runs it (unless it is a plain EXPLAIN) and returns the
// result with the node that ran.
func (db *DB) runQuery(ctx context.Context, cat *catalog, q *sql.Query, params map[string]any) (*Result, exec.Node, error) {
	node, err := db.build(ctx, cat, q)
	if err != nil {
		return nil, nil, err
	}
	if q.Explain && !q.Analyze {
		res, err := explainResult(db, exec.Explain(node, false))
		return res, node, err
	}
	bound, err := bind(q, params)
	if err != nil {
		return nil, nil, err
	}
	batches, err := db.collect(ctx, node, bound)
	if err != nil {
		return nil, nil, err
	}
	text := exec.Explain(node, true)
	if q.Explain {
		for _, b := range batches {
			b.Release()
		}
		res, err := explainResult(db, text)
		return res, node, err
	}
	return &Result{Schema: node.Schema(), Batches: batches, Plan: text}, node, nil
}

// Query plans and runs one SELECT, returning the plan node with the result
// (for callers that want metrics or EXPLAIN of what ran).
func (db *DB) Query(ctx context.Context, text string, params map[string]any) (*Result, exec.Node, error) {
	cat := db.newCatalog(ctx)
	stmts, err := sql.Parse(text, cat)
	if err != nil {
		return nil, nil, err
	}
	if len(stmts) != 1 {
		return nil, nil, fmt.Errorf("%w: Query takes one SELECT, got %d statements", ErrUnsupported, len(stmts))
	}
	q, ok := stmts[0].(*sql.Query)
	if !ok || q.Explain {
		return nil, nil, fmt.Errorf("%w: Query takes a SELECT", ErrUnsupported)
	}
	return db.runQuery(ctx, cat, q, params)
}

func (db *DB) collect(ctx context.Context, node exec.Node, params map[int]any) ([]arrow.RecordBatch, error) {
	st, err := node.Execute(ctx, db.taskContext(params))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return exec.Collect(ctx, st)
}

func explainResult(db *DB, text string) (*Result, error) {
	b := array.NewStringBuilder(db.mem())
	defer b.Release()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.Append(line)
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)
	return &Result{Schema: schema, Batches: []arrow.RecordBatch{array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))}, Plan: text}, nil
}

// dmlRows pins the target table of a DML statement and runs the query
// that produces its rows (the caller releases them).
func (db *DB) dmlRows(ctx context.Context, cat *catalog, name string, q *sql.Query, params map[string]any) (*table.Table, *Result, error) {
	t, err := cat.table(name)
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.query(ctx, cat, q, params)
	if err != nil {
		return nil, nil, err
	}
	return t, rows, nil
}

// insert runs the source query and appends its rows; target columns not
// named get NULL.
func (db *DB) insert(ctx context.Context, cat *catalog, s *sql.Insert, params map[string]any) (*Result, error) {
	t, src, err := db.dmlRows(ctx, cat, s.Table, s.Source, params)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	us := t.UserSchema()
	pos := make([]int, us.NumFields()) // user column -> source column or -1
	for i := range pos {
		pos[i] = -1
	}
	if s.Columns == nil {
		for i := range pos {
			pos[i] = i
		}
	} else {
		for j, c := range s.Columns {
			i := t.ColumnIndex(c)
			if i < 0 || i >= us.NumFields() {
				return nil, fmt.Errorf("%w: insert into unknown column %q", table.ErrInvalidArgument, c)
			}
			pos[i] = j
		}
	}
	var out []arrow.RecordBatch
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	for _, b := range src.Batches {
		cols := make([]arrow.Array, us.NumFields())
		for i, f := range us.Fields() {
			if pos[i] >= 0 {
				if pos[i] >= int(b.NumCols()) {
					return nil, fmt.Errorf("%w: insert source has %d columns", table.ErrSchema, b.NumCols())
				}
				cols[i] = b.Column(pos[i])
				cols[i].Retain()
			} else {
				if !f.Nullable {
					for _, c := range cols[:i] {
						c.Release()
					}
					return nil, fmt.Errorf("%w: column %q is NOT NULL and has no value", table.ErrSchema, f.Name)
				}
				cols[i] = array.MakeArrayOfNull(db.mem(), f.Type, int(b.NumRows()))
			}
		}
		out = append(out, array.NewRecordBatch(us, cols, b.NumRows()))
		for _, c := range cols {
			c.Release()
		}
	}
	n := src.NumRows()
	if _, err := t.AppendBatches(ctx, out, db.mem()); err != nil {
		return nil, err
	}
	return &Result{RowsAffected: n}, nil
}

func (db *DB) delete(ctx context.Context, cat *catalog, s *sql.Delete, params map[string]any) (*Result, error) {
	t, rows, err := db.dmlRows(ctx, cat, s.Table, s.Rows, params)
	if err != nil {
		return nil, err
	}
	defer rows.Release()
	var ids []uint64
	for _, b := range rows.Batches {
		c, ok := b.Column(0).(*array.Uint64)
		if !ok {
			return nil, fmt.Errorf("%w: delete row query returned %s, want uint64 _rowid", table.ErrSchema, b.Column(0).DataType())
		}
		ids = append(ids, c.Uint64Values()...)
	}
	_, n, err := t.DeleteRowIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	return &Result{RowsAffected: int64(n)}, nil
}

func (db *DB) update(ctx context.Context, cat *catalog, s *sql.Update, params map[string]any) (*Result, error) {
	t, rows, err := db.dmlRows(ctx, cat, s.Table, s.Rows, params)
	if err != nil {
		return nil, err
	}
	defer rows.Release()
	if rows.NumRows() == 0 {
		return &Result{}, nil
	}
	_, n, err := t.UpdateBatches(ctx, rows.Batches, db.mem())
	if err != nil {
		return nil, err
	}
	return &Result{RowsAffected: int64(n)}, nil
}
