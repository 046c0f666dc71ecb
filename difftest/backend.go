package difftest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stablerow/stablerow/engine"
)

// Outcome is what one side did with one statement: an error, or a result
// (Cols and Rows for a query, Affected for DML).
type Outcome struct {
	Err      error
	SQLState string // PostgreSQL's error code; "" on the stablerow side
	Cols     []TypeClass
	Rows     [][]*string // PostgreSQL text; nil is NULL
	Affected int64
}

func (o *Outcome) String() string {
	if o.Err != nil {
		if o.SQLState != "" {
			return "error " + o.SQLState + ": " + o.Err.Error()
		}
		return "error: " + o.Err.Error()
	}
	if o.Cols == nil {
		return fmt.Sprintf("ok, %d rows affected", o.Affected)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v, %d rows", o.Cols, len(o.Rows))
	for _, r := range o.Rows {
		b.WriteString("\n    ")
		b.WriteString(rowText(r))
	}
	return b.String()
}

func rowText(r []*string) string {
	var xs []string
	for _, v := range r {
		if v == nil {
			xs = append(xs, "NULL")
		} else {
			xs = append(xs, fmt.Sprintf("%q", *v))
		}
	}
	return strings.Join(xs, " | ")
}

// Backend runs statements on one side.
type Backend interface {
	// Reset drops everything so the next case starts empty.
	Reset(ctx context.Context) error
	// Run runs one statement; query says whether it returns rows.
	Run(ctx context.Context, sql string, query bool) *Outcome
	Close() error
}

// PG is the PostgreSQL side: one connection, simple protocol so every
// value arrives as the server's own text output.
type PG struct {
	conn *pgx.Conn
}

// DialPG connects and pins the session settings the comparison relies on.
func DialPG(ctx context.Context, dsn string) (*PG, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("difftest: connect to PostgreSQL: %w", err)
	}
	for _, s := range []string{
		"SET extra_float_digits = 1", // float8out's shortest round trip (normalize.go 3)
		"SET client_min_messages = warning",
		"SET TIME ZONE 'UTC'",
		// No index paths: PostgreSQL's answers do not depend on them,
		// but which rows it evaluates does, and its choice between an
		// ordered index scan and a sort is its cost model's, from
		// statistics the case does not control: ORDER BY k LIMIT 1 over
		// an index created on an empty table reads one row through it
		// (its estimate is 2040 rows), over one created after 2 rows were
		// inserted sorts both, and an expression that overflows on the
		// second row raises only then (seed 20261211 case 7065). stablerow
		// has no ordered index path and evaluates as the sort does, so
		// the oracle is pinned to scans and sorts; the cases' indexes stay
		// (stablerow's index lookups are compared as ever).
		"SET enable_indexscan = off",
		"SET enable_indexonlyscan = off",
		"SET enable_bitmapscan = off",
		// No incremental sort either: over a merge join's output, already
		// sorted on the first ORDER BY key, it sorts one group of that key
		// at a time and stops pulling once LIMIT has its rows, so the
		// select list of the later groups is never computed; a full sort
		// (stablerow's, and PostgreSQL's own when it costs that plan
		// lower) computes it for every joined row. Which of the two runs
		// is again the cost model's choice (seed 20261220 case 60930: a
		// product that overflows on the fourth group raised only under
		// the full sort).
		"SET enable_incremental_sort = off",
		// Nor merge joins: their output is sorted on the join keys, so an
		// ORDER BY on those keys needs no sort at all and LIMIT stops
		// pulling after its rows, leaving the select list of every later
		// joined row uncomputed; over a hash join PostgreSQL sorts the
		// whole join and computes it for every row, as stablerow (which
		// hash-joins and sorts) does. Again the cost model's choice (seed
		// 20261223: b.k * b.k over ON a.k = b.k ORDER BY a.k, b.k LIMIT 3
		// overflowed on the fourth row only under the hash join).
		"SET enable_mergejoin = off",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			conn.Close(ctx)
			return nil, fmt.Errorf("difftest: %s: %w", s, err)
		}
	}
	return &PG{conn: conn}, nil
}

// Reset drops and recreates the public schema.
func (p *PG) Reset(ctx context.Context) error {
	_, err := p.conn.Exec(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public", pgx.QueryExecModeSimpleProtocol)
	return err
}

// Run runs one statement.
func (p *PG) Run(ctx context.Context, sql string, query bool) *Outcome {
	rows, err := p.conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return pgOutcome(err)
	}
	defer rows.Close()
	o := &Outcome{}
	if query {
		o.Cols = []TypeClass{}
		for _, f := range rows.FieldDescriptions() {
			o.Cols = append(o.Cols, pgClass(f.DataTypeOID))
		}
	}
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]*string, len(raw))
		for i, v := range raw {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		o.Rows = append(o.Rows, row)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return pgOutcome(err)
	}
	o.Affected = rows.CommandTag().RowsAffected()
	if !query {
		o.Rows = nil
	}
	return o
}

func pgOutcome(err error) *Outcome {
	o := &Outcome{Err: err}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		o.SQLState = pe.Code
	}
	return o
}

// Close closes the connection.
func (p *PG) Close() error { return p.conn.Close(context.Background()) }

// Stablerow is the stablerow side: the engine in process, on an in-memory
// database, under a checked allocator so a leak shows as a divergence.
type Stablerow struct {
	Opt engine.Options
	mem *memory.CheckedAllocator
	db  *engine.DB
}

// NewStablerow returns the stablerow side; opt.Mem is replaced by a
// checked allocator.
func NewStablerow(opt engine.Options) *Stablerow {
	s := &Stablerow{Opt: opt}
	s.Reset(context.Background())
	return s
}

// Reset opens a fresh in-memory database.
func (s *Stablerow) Reset(context.Context) error {
	s.mem = memory.NewCheckedAllocator(memory.NewGoAllocator())
	opt := s.Opt
	opt.Mem = s.mem
	s.db = engine.OpenMemory(opt)
	return nil
}

// Leaked is the number of bytes allocated and not freed so far. Tables
// hold no Arrow memory once written, so it is zero between statements.
func (s *Stablerow) Leaked() int { return s.mem.CurrentAlloc() }

// Run runs one statement. A panic is caught and reported as an error
// (a panic is itself a bug: Compare reports it as a divergence).
func (s *Stablerow) Run(ctx context.Context, sql string, query bool) (o *Outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = &Outcome{Err: &PanicError{Value: r, Stack: string(debug.Stack())}}
		}
	}()
	res, err := s.db.Exec(ctx, sql, nil)
	if err != nil {
		return &Outcome{Err: err}
	}
	defer res.Release()
	o = &Outcome{Affected: res.RowsAffected}
	if !query {
		return o
	}
	if res.Schema == nil {
		return &Outcome{Err: fmt.Errorf("difftest: query returned no result set")}
	}
	o.Cols = []TypeClass{}
	for _, f := range res.Schema.Fields() {
		o.Cols = append(o.Cols, arrowClass(f.Type))
	}
	for _, b := range res.Batches {
		for r := 0; r < int(b.NumRows()); r++ {
			row := make([]*string, b.NumCols())
			for c := range row {
				v, err := pgText(b.Column(c), r)
				if err != nil {
					return &Outcome{Err: err}
				}
				row[c] = v
			}
			o.Rows = append(o.Rows, row)
		}
	}
	return o
}

// Close does nothing: the database lives in memory.
func (s *Stablerow) Close() error { return nil }

// PanicError is a recovered panic of the engine.
type PanicError struct {
	Value any
	Stack string
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }
