package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// Exec runs every statement of script in order and returns the result of
// the last one read to the end: a convenience for small results, built on
// Query (use Query to stream). params binds :name parameters by name (and
// $k ones by "k"; a :name bound by no name is bound by its position "k").
func (db *DB) Exec(ctx context.Context, script string, params map[string]any) (*Result, error) {
	rows, err := db.Query(ctx, script, params)
	if err != nil {
		return nil, err
	}
	return rows.collect()
}

// Query runs the statements of script in order and returns the rows of the
// last one as a stream; each earlier statement runs to completion first
// (its rows are read and dropped), and the first that fails stops the
// script. The caller must Close the Rows. To see every statement's result,
// cut the script with SplitStatements and Query each piece.
//
// The script runs in a session of its own (NewSession): BEGIN ... COMMIT
// inside it is a transaction. A script that ends inside a block is rolled
// back and is ErrUnsupported: a client sending BEGIN alone (a server's
// statement per call) would otherwise get an answer that promises a
// transaction its next call does not run in. Keep a Session for that.
//
// An error of a script of several statements names the statement and its
// line; every error keeps its identity (errors.Is with the package
// sentinels and errkind), and a panic comes back as an *InternalError.
func (db *DB) Query(ctx context.Context, script string, params map[string]any) (*Rows, error) {
	s := db.NewSession()
	defer s.Close()
	return s.endScript(s.Query(ctx, script, params))
}

// endScript refuses the result of a session-less script that left a
// transaction block open (DB.Query): the block is rolled back by Close.
func (s *Session) endScript(rows *Rows, err error) (*Rows, error) {
	if err != nil || s.tx == nil {
		return rows, err
	}
	rows.Close()
	return nil, fmt.Errorf("%w: the statements end inside a transaction block, which was rolled back: each call runs in a session of its own (keep an engine.Session to run a block over several calls)", ErrInTransaction)
}

// Query is DB.Query in the session: its statements run in the session's
// transaction, if one is open or the script opens one.
func (s *Session) Query(ctx context.Context, script string, params map[string]any) (*Rows, error) {
	if i := strings.IndexByte(script, 0); i >= 0 {
		// The parser reads C strings: text after a NUL would be dropped
		// unseen. PostgreSQL refuses NUL in query text too.
		return nil, s.fail(fmt.Errorf("%w: NUL byte at line %d", sql.ErrSyntax, 1+strings.Count(script[:i], "\n")))
	}
	stmts, rest := SplitStatements(script)
	if rest.Text != "" {
		stmts = append(stmts, rest)
	}
	if len(stmts) == 0 {
		return nil, s.fail(fmt.Errorf("%w: empty statement", sql.ErrSyntax))
	}
	if len(stmts) > 1 {
		// Nothing runs unless the whole script parses.
		if err := CheckSyntax(stmts); err != nil {
			return nil, s.fail(err)
		}
	}
	last := len(stmts) - 1
	for i, st := range stmts[:last] {
		rows, err := s.queryOne(ctx, st, params)
		if err == nil {
			err = rows.drain()
		}
		if err != nil {
			return nil, st.Err(i, err)
		}
	}
	rows, err := s.queryOne(ctx, stmts[last], params)
	if err != nil && last > 0 {
		err = stmts[last].Err(last, err)
	}
	return rows, err
}

// Exec is DB.Exec in the session.
func (s *Session) Exec(ctx context.Context, script string, params map[string]any) (*Result, error) {
	rows, err := s.Query(ctx, script, params)
	if err != nil {
		return nil, err
	}
	return rows.collect()
}

// QueryStatement runs one statement SplitStatements cut from a script and
// returns its rows (the caller must Close them). Its errors name positions
// in the whole script, as Query's do. It runs in a session of its own, so
// BEGIN alone is refused as Query refuses it: use Session.QueryStatement.
func (db *DB) QueryStatement(ctx context.Context, st Statement, params map[string]any) (*Rows, error) {
	s := db.NewSession()
	defer s.Close()
	return s.endScript(s.QueryStatement(ctx, st, params))
}

// QueryStatement is DB.QueryStatement in the session.
func (s *Session) QueryStatement(ctx context.Context, st Statement, params map[string]any) (*Rows, error) {
	if err := checkNUL(st); err != nil {
		return nil, s.fail(err)
	}
	return s.queryOne(ctx, st, params)
}

// queryOne parses and starts one statement (a piece SplitStatements cut,
// which the parser reads as at most one statement). Inside a transaction a
// failure aborts it (Session.fail), also one while the rows stream.
func (s *Session) queryOne(ctx context.Context, st Statement, params map[string]any) (rows *Rows, err error) {
	defer recoverInternal(&err)
	defer func() {
		if err != nil {
			s.fail(err)
		}
	}()
	db := s.db
	cat := db.newCatalog(ctx)
	cat.sess = s
	stmts, err := sql.ParseAt(st.Text, cat, st.start)
	if err != nil {
		if s.tx != nil && s.tx.failed {
			return nil, ErrTxnAborted
		}
		return nil, err
	}
	if len(stmts) == 0 {
		return newDoneRows(0), nil
	}
	for i, st := range stmts {
		r, err := s.startOne(ctx, cat, st, params)
		if err != nil {
			return nil, err
		}
		if i == len(stmts)-1 {
			return r, nil
		}
		if err := r.drain(); err != nil {
			return nil, err
		}
	}
	return nil, nil // not reached: stmts is not empty
}

// startOne starts one parsed statement in the session: transaction
// control, or a statement run in the open transaction (if any).
func (s *Session) startOne(ctx context.Context, cat *catalog, st sql.Statement, params map[string]any) (*Rows, error) {
	if t, ok := st.(*sql.Transaction); ok {
		return s.control(ctx, t)
	}
	if s.tx != nil {
		if s.tx.failed {
			return nil, ErrTxnAborted
		}
		if err := allowedInTransaction(st); err != nil {
			return nil, err
		}
	}
	r, err := s.db.start(ctx, cat, st, params)
	if err != nil {
		return nil, err
	}
	if s.tx != nil {
		tx := s.tx
		r.onFail = func(error) {
			if s.tx == tx {
				s.abort()
			}
		}
	}
	return r, nil
}

// start runs one statement: a query is started and streams; any other
// statement runs to completion.
func (db *DB) start(ctx context.Context, cat *catalog, st sql.Statement, params map[string]any) (*Rows, error) {
	switch s := st.(type) {
	case *sql.Query:
		return db.startQuery(ctx, cat, s, params)
	case *sql.Vacuum:
		// VACUUM reports what it did as rows (one per table), built in
		// memory: their number is bounded by the tables, not the data.
		res, err := db.vacuum(ctx, s)
		if err != nil {
			return nil, err
		}
		return newBatchRows(res.Schema, res.Batches, ""), nil
	}
	n, err := db.run(ctx, cat, st, params)
	if err != nil {
		return nil, err
	}
	r := newDoneRows(n)
	r.summary = db.summarize(ctx, st)
	r.tag = commandTag(st, n)
	return r, nil
}

// run runs a statement without a result set and returns the rows it
// affected.
func (db *DB) run(ctx context.Context, cat *catalog, st sql.Statement, params map[string]any) (int64, error) {
	switch s := st.(type) {
	case *sql.CreateTable:
		_, err := db.CreateTable(ctx, s.Name, s.Schema)
		if errors.Is(err, ErrTableExists) && s.IfNotExists {
			err = nil
		}
		return 0, err
	case *sql.DropTable:
		err := db.DropTable(ctx, s.Name)
		if errors.Is(err, ErrUnknownTable) && s.IfExists {
			err = nil
		}
		return 0, err
	case *sql.CreateIndex:
		if s.Method != "" && !strings.EqualFold(s.Method, "btree") {
			return 0, fmt.Errorf("%w: index method %q (only btree)", ErrUnsupported, s.Method)
		}
		err := db.CreateIndex(ctx, s.Table, s.Name, s.Column)
		if errors.Is(err, ErrIndexExists) && s.IfNotExists {
			err = nil
		}
		return 0, err
	case *sql.DropIndex:
		return 0, fmt.Errorf("%w: DROP INDEX", ErrUnsupported)
	case *sql.Cluster:
		return 0, db.Cluster(ctx, s.Table, s.Index)
	case *sql.Reindex:
		return 0, db.Reindex(ctx, s.Table, s.Index)
	case *sql.Insert:
		return db.insert(ctx, cat, s, params)
	case *sql.Delete:
		return db.delete(ctx, cat, s, params)
	case *sql.Update:
		return db.update(ctx, cat, s, params)
	case *sql.CopyFrom:
		return db.copyFrom(ctx, cat, s)
	case *sql.CopyTo:
		return db.copyTo(ctx, cat, s, params)
	case *sql.CreateTableAs:
		return db.createTableAs(ctx, cat, s, params)
	case *sql.Set:
		return 0, db.set(s)
	}
	return 0, fmt.Errorf("%w: statement %T", ErrUnsupported, st)
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
		if !ok && name != "" {
			// A client that binds by position (Flight SQL, ADBC) names
			// :ids by its place among the statement's parameters.
			v, ok = params[strconv.Itoa(k)]
		}
		if !ok {
			return nil, fmt.Errorf("%w: no value bound for parameter %s", ErrParam, paramLabel(name, k))
		}
		nv, err := normalizeParam(v)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter %s: %w", ErrParam, paramLabel(name, k), err)
		}
		out[k] = nv
	}
	return out, nil
}

// normalizeParam checks a bound value is there. Values go to the planner
// as the caller gave them: plan converts Go integers (and row ids) in one
// place (plan/rowid.go), so nothing is widened or reinterpreted here.
func normalizeParam(v any) (any, error) {
	if v == nil {
		return nil, errors.New("nil value")
	}
	return v, nil
}

// build plans a lowered query.
func (db *DB) build(ctx context.Context, cat *catalog, q *sql.Query) (exec.Node, error) {
	return plan.Build(ctx, q.Plan, cat, plan.Options{DisableIndexes: db.opt.DisableIndexes, DisableSharing: db.opt.DisableSharing, Files: db.files(ctx), Threads: db.planThreads(ctx), MemoryLimited: db.memoryLimited(ctx), WriteSource: writeSource(ctx)})
}

// startQuery plans q and starts it. A query streams; EXPLAIN returns its
// text, EXPLAIN ANALYZE after running the query to the end (dropping its
// rows as they come).
func (db *DB) startQuery(ctx context.Context, cat *catalog, q *sql.Query, params map[string]any) (*Rows, error) {
	node, err := db.build(ctx, cat, q)
	if err != nil {
		return nil, err
	}
	if q.Explain && !q.Analyze {
		return explainRows(db, exec.Explain(node, false))
	}
	if err := checkExtraParams(ctx, q, params); err != nil {
		return nil, err
	}
	bound, err := bind(q, params)
	if err != nil {
		return nil, err
	}
	rows, err := db.execute(ctx, node, bound)
	if err != nil {
		return nil, nameParam(q, err)
	}
	if !q.Explain {
		return rows, nil
	}
	if err := rows.drain(); err != nil {
		return nil, err
	}
	return explainRows(db, exec.Explain(node, true))
}

// paramLabel is how the SQL text wrote parameter k: ":name" or "$k".
func paramLabel(name string, k int) string {
	if name != "" {
		return ":" + name
	}
	return "$" + strconv.Itoa(k)
}

// nameParam names the parameter of a plan.ParamError by what the SQL text
// called it (":ids" rather than "$1").
func nameParam(q *sql.Query, err error) error {
	var pe *plan.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	name := ""
	if pe.Ref >= 1 && pe.Ref <= len(q.ParamNames) {
		name = q.ParamNames[pe.Ref-1]
	}
	return fmt.Errorf("%w: parameter %s: %w", ErrParam, paramLabel(name, pe.Ref), err)
}

func explainRows(db *DB, text string) (*Rows, error) {
	b := array.NewStringBuilder(db.mem())
	defer b.Release()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.Append(line)
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	return newBatchRows(schema, []arrow.RecordBatch{batch}, text), nil
}

// insert streams the source query's rows into the table: each batch is
// fitted to the table's user columns (target columns not named get NULL)
// and table.Append writes fragments as the batches arrive, so memory is
// bounded by a batch and an open fragment, not by the source.
func (db *DB) insert(ctx context.Context, cat *catalog, s *sql.Insert, params map[string]any) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
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
				return 0, fmt.Errorf("%w: insert into unknown column %q", table.ErrInvalidArgument, c)
			}
			pos[i] = j
		}
	}
	for i, f := range us.Fields() {
		if pos[i] < 0 && !f.Nullable {
			return 0, fmt.Errorf("%w: column %q is NOT NULL and has no value", table.ErrSchema, f.Name)
		}
	}
	src, err := db.startQuery(serialPlan(ctx), cat, s.Source, params)
	if err != nil {
		return 0, err
	}
	in := &insertReader{src: src, schema: us, pos: pos, db: db}
	defer in.close()
	if _, err := t.Append(ctx, in, db.mem()); err != nil {
		return 0, err
	}
	return in.n, nil
}

// insertReader is the RecordReader table.Append reads an INSERT's rows
// from: the source rows, batch by batch, fitted to the target's columns.
type insertReader struct {
	src    *Rows
	schema *arrow.Schema
	pos    []int
	db     *DB
	cur    arrow.RecordBatch
	err    error
	n      int64
}

func (r *insertReader) Retain()                        {}
func (r *insertReader) Release()                       {}
func (r *insertReader) Schema() *arrow.Schema          { return r.schema }
func (r *insertReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *insertReader) Record() arrow.RecordBatch      { return r.cur }

func (r *insertReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.src.Err()
}

func (r *insertReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.src.Next() {
		return false
	}
	b := r.src.Batch()
	cols := make([]arrow.Array, r.schema.NumFields())
	for i, f := range r.schema.Fields() {
		switch p := r.pos[i]; {
		case p >= int(b.NumCols()):
			releaseArrays(cols[:i])
			r.err = fmt.Errorf("%w: insert source has %d columns", table.ErrSchema, b.NumCols())
			return false
		case p >= 0:
			cols[i] = b.Column(p)
			cols[i].Retain()
		default:
			cols[i] = array.MakeArrayOfNull(r.db.mem(), f.Type, int(b.NumRows()))
		}
	}
	r.cur = array.NewRecordBatch(r.schema, cols, b.NumRows())
	releaseArrays(cols)
	r.n += b.NumRows()
	return true
}

func (r *insertReader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.src.Close()
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// delete streams the row query (one _rowid column) and deletes the ids it
// yields; only the ids are kept, 8 bytes a row.
func (db *DB) delete(ctx context.Context, cat *catalog, s *sql.Delete, params map[string]any) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
	rows, err := db.startQuery(ctx, cat, s.Rows, params)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []uint64
	for rows.Next() {
		b := rows.Batch()
		c, ok := b.Column(0).(*array.Uint64)
		if !ok {
			return 0, fmt.Errorf("%w: delete row query returned %s, want uint64 _rowid", table.ErrSchema, b.Column(0).DataType())
		}
		ids = append(ids, c.Uint64Values()...)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	_, n, err := t.DeleteRowIDs(ctx, ids)
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}

// update streams the row query (_rowid, then every user column) into
// table.Update, which writes the new rows as they come.
func (db *DB) update(ctx context.Context, cat *catalog, s *sql.Update, params map[string]any) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
	rows, err := db.startQuery(serialPlan(ctx), cat, s.Rows, params)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	_, n, err := t.Update(ctx, rows, db.mem())
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}
