package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

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
		cons := table.Constraints{PrimaryKey: s.PrimaryKey}
		for _, c := range s.Checks {
			cons.Checks = append(cons.Checks, table.Check{Name: c.Name, Expr: c.Expr})
		}
		_, err := db.createTable(ctx, s.Name, s.Schema, cons)
		if errors.Is(err, ErrTableExists) && s.IfNotExists {
			return 0, nil // nothing created, its constraints included
		}
		// PRIMARY KEY and UNIQUE: a unique index each, on the empty
		// table (indexddl.go).
		for _, ix := range s.Indexes {
			if err != nil {
				break
			}
			err = db.createIndex(ctx, ix)
		}
		return 0, err
	case *sql.DropTable:
		err := db.checkDropTable(ctx, s.Name) // views.go
		if err == nil {
			err = db.DropTable(ctx, s.Name)
		}
		if errors.Is(err, ErrUnknownTable) && s.IfExists {
			err = nil
		}
		return 0, err
	case *sql.CreateIndex:
		if s.Method != "" && !strings.EqualFold(s.Method, "btree") {
			return 0, fmt.Errorf("%w: index method %q (only btree)", ErrUnsupported, s.Method)
		}
		err := db.createIndex(ctx, s) // indexddl.go
		if errors.Is(err, ErrIndexExists) && s.IfNotExists {
			err = nil
		}
		return 0, err
	case *sql.AlterConstraint:
		return 0, db.alterConstraint(ctx, cat, s) // altercheck.go
	case *sql.DropIndex:
		err := db.DropIndex(ctx, s.Name) // indexddl.go
		if errors.Is(err, ErrUnknownIndex) && s.IfExists {
			err = nil
		}
		return 0, err
	case *sql.Cluster:
		return 0, db.Cluster(ctx, s.Table, s.Index)
	case *sql.Reindex:
		return 0, db.Reindex(ctx, s.Table, s.Index)
	case *sql.Analyze:
		return 0, db.analyze(ctx, s) // analyze.go
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
	case *sql.CreateView:
		return 0, db.createView(ctx, s) // views.go
	case *sql.DropView:
		if err := db.dropView(ctx, s); err != nil && !errors.Is(err, errNoChange) {
			return 0, err
		}
		return 0, nil
	}
	return 0, fmt.Errorf("%w: statement %T", ErrUnsupported, st)
}

// build plans a lowered query.
func (db *DB) build(ctx context.Context, cat *catalog, q *sql.Query) (exec.Node, error) {
	return db.buildEstimated(ctx, cat, q, nil)
}

// buildEstimated is build that records the nodes' estimated rows in est
// when not nil (EXPLAIN (COSTS)).
func (db *DB) buildEstimated(ctx context.Context, cat *catalog, q *sql.Query, est map[exec.Node]float64) (exec.Node, error) {
	return plan.Build(ctx, q.Plan, cat, plan.Options{DisableIndexes: db.opt.DisableIndexes, DisableSharing: db.opt.DisableSharing, DisableRollup: db.opt.DisableRollup, Files: db.files(ctx), Threads: db.planThreads(ctx), MemoryLimited: db.memoryLimited(ctx), WriteSource: writeSource(ctx), Estimates: est})
}

// startQuery plans q and starts it. A query streams; EXPLAIN returns its
// text, EXPLAIN ANALYZE after running the query to the end (dropping its
// rows as they come).
func (db *DB) startQuery(ctx context.Context, cat *catalog, q *sql.Query, params map[string]any) (*Rows, error) {
	var est map[exec.Node]float64
	if q.Explain && q.Costs {
		est = map[exec.Node]float64{}
	}
	node, err := db.buildEstimated(ctx, cat, q, est)
	if err != nil {
		return nil, err
	}
	if q.Explain && !q.Analyze {
		return explainRows(db, exec.ExplainEstimates(node, false, est))
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
	return explainRows(db, exec.ExplainEstimates(node, true, est))
}

func explainRows(db *DB, text string) (*Rows, error) {
	b := array.NewStringBuilder(db.mem())
	defer b.Release()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.Append(line)
	}
	col := b.NewArray()
	defer col.Release()
	batch := array.NewRecordBatch(explainSchema, []arrow.Array{col}, int64(col.Len()))
	return newBatchRows(explainSchema, []arrow.RecordBatch{batch}, text), nil
}

// explainSchema is EXPLAIN's result: one line of the plan a row (Describe
// answers it before the statement runs).
var explainSchema = arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)
