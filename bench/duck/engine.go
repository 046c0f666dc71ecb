package duck

import (
	"context"
	"fmt"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/stablerow/stablerow/bench/peer"
)

// CreateTableSQL is t as DuckDB holds it: the stablerow system columns as
// plain columns, then the user columns.
const CreateTableSQL = "CREATE TABLE t(_rowid UBIGINT, _rowaddr UBIGINT, k BIGINT, payload DOUBLE)"

// LoadTable creates t and appends tb's rows in order.
func (d *DB) LoadTable(tb *peer.Table) error {
	if err := tb.Validate(); err != nil {
		return err
	}
	if _, err := d.Exec(CreateTableSQL); err != nil {
		return err
	}
	return d.appendColumns("t", tb.RowID, tb.RowAddr, tb.K, tb.Payload)
}

// IndexRowID builds DuckDB's ART index on t._rowid (unique, as the
// stablerow index is).
func (d *DB) IndexRowID() error {
	_, err := d.Exec("CREATE UNIQUE INDEX t_rowid ON t(_rowid)")
	return err
}

// IndexK builds an ART index on t.k (not unique: DuckDB's ART answers
// an IN-list on k by index lookups when the optimizer expects few rows).
func (d *DB) IndexK() error {
	_, err := d.Exec("CREATE INDEX t_k ON t(k)")
	return err
}

// Setting is a DuckDB session setting, `SET name = value`.
type Setting struct{ Name, Value string }

// Defaults are DuckDB 1.5's defaults of the settings Tuned changes, set
// explicitly so that a default variant sharing a database with a tuned one
// runs as DuckDB ships.
var Defaults = []Setting{
	{"dynamic_or_filter_threshold", "50"},
	{"index_scan_max_count", "2048"},
	{"index_scan_percentage", "0.001"},
}

// Tuned raises the limits below which DuckDB probes an ART index instead
// of scanning: the join's build side becomes an IN filter on the probe side
// (and so an index lookup) for up to ids ids instead of 50, and an index
// scan may return up to ids rows and any fraction of the table.
func Tuned(ids int) []Setting {
	n := fmt.Sprint(ids)
	return []Setting{
		{"dynamic_or_filter_threshold", n},
		{"index_scan_max_count", n},
		{"index_scan_percentage", "1.0"},
	}
}

// Engine runs peer queries against d's table t.
type Engine struct {
	db       *DB
	name     string
	settings []Setting // applied by Prepare before every run
	ord      []int64   // 1..n, grown on demand: the ord column of ids_v
}

// WithSettings returns e applying settings before every run (Prepare), so
// variants with different settings can share one database.
func (e *Engine) WithSettings(s []Setting) *Engine {
	e.settings = s
	return e
}

// Settings are the settings e applies.
func (e *Engine) Settings() []Setting { return e.settings }

// Prepare implements peer.Preparer.
func (e *Engine) Prepare(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, s := range e.settings {
		if _, err := e.db.Exec("SET " + s.Name + " = " + s.Value); err != nil {
			return err
		}
	}
	return nil
}

var (
	_ peer.Engine   = (*Engine)(nil)
	_ peer.Preparer = (*Engine)(nil)
)

// Engine returns a peer.Engine over d labelled name.
func (d *DB) Engine(name string) *Engine { return &Engine{db: d, name: name} }

// Name implements peer.Engine.
func (e *Engine) Name() string { return e.name }

// takeSQL joins the appended id table; see the package doc for why this and
// not UNNEST of a list parameter.
func takeSQL(kind peer.Kind) string {
	cols := "v.ord, t._rowaddr"
	switch kind {
	case peer.KindTakePayload:
		cols += ", t.payload"
	case peer.KindContent:
		cols = "v.ord, t.k, t.payload"
	}
	return "SELECT " + cols + " FROM ids_v AS v LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord"
}

// sql prepares q's inputs (the id table of a take) and returns its text.
func (e *Engine) sql(q peer.Query) (string, error) {
	switch q.Kind {
	case peer.KindTake, peer.KindTakePayload, peer.KindContent:
		if _, err := e.db.Exec("CREATE OR REPLACE TABLE ids_v(rowid UBIGINT, ord BIGINT)"); err != nil {
			return "", err
		}
		for len(e.ord) < len(q.IDs) {
			e.ord = append(e.ord, int64(len(e.ord)+1))
		}
		if err := e.db.appendColumns("ids_v", q.IDs, e.ord[:len(q.IDs)]); err != nil {
			return "", err
		}
		return takeSQL(q.Kind), nil
	case peer.KindInK:
		return peer.InKSQL(q.Keys), nil
	}
	return "", peer.UnsupportedKind(e.name, q.Kind)
}

// Run implements peer.Engine.
func (e *Engine) Run(ctx context.Context, q peer.Query) (peer.Answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sql, err := e.sql(q)
	if err != nil {
		return nil, err
	}
	res, err := e.db.query(sql)
	if err != nil {
		return nil, err
	}
	defer mapping.DestroyResult(res)
	switch q.Kind {
	case peer.KindInK:
		cols, err := readColumns(res, []mapping.Type{mapping.TypeBigInt, mapping.TypeDouble})
		if err != nil {
			return nil, err
		}
		return &peer.KRows{K: cols[0].i64(), Payload: cols[1].f64()}, nil
	case peer.KindContent:
		cols, err := readColumns(res, []mapping.Type{mapping.TypeBigInt, mapping.TypeBigInt, mapping.TypeDouble})
		if err != nil {
			return nil, err
		}
		return &peer.ContentRows{Ord: cols[0].i64(), K: cols[1].i64(), Payload: cols[2].f64(), Valid: cols[1].valid}, nil
	default:
		want := []mapping.Type{mapping.TypeBigInt, mapping.TypeUBigInt}
		if q.Kind == peer.KindTakePayload {
			want = append(want, mapping.TypeDouble)
		}
		cols, err := readColumns(res, want)
		if err != nil {
			return nil, err
		}
		a := &peer.TakeRows{Ord: cols[0].i64(), Addr: cols[1].u64(), AddrValid: cols[1].valid}
		if q.Kind == peer.KindTakePayload {
			a.Payload, a.PayloadValid = cols[2].f64(), cols[2].valid
		}
		return a, nil
	}
}

// Delete implements peer.Engine.
func (e *Engine) Delete(ctx context.Context, pred string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return e.db.Exec("DELETE FROM t WHERE " + pred)
}

// Explain implements peer.Engine: it runs EXPLAIN ANALYZE (the scan type is
// chosen at run time, so plain EXPLAIN can say "Sequential Scan" for what
// runs as an index scan) and summarizes it with SummarizePlan.
func (e *Engine) Explain(ctx context.Context, q peer.Query) (string, error) {
	text, err := e.ExplainText(ctx, q)
	if err != nil {
		return "", err
	}
	return SummarizePlan(text)
}

// ExplainText is q's EXPLAIN (ANALYZE, FORMAT json) profile.
func (e *Engine) ExplainText(ctx context.Context, q peer.Query) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	sql, err := e.sql(q)
	if err != nil {
		return "", err
	}
	res, err := e.db.query("EXPLAIN (ANALYZE, FORMAT json) " + sql)
	if err != nil {
		return "", err
	}
	defer mapping.DestroyResult(res)
	cols, err := readColumns(res, nil)
	if err != nil {
		return "", err
	}
	// explain_key, explain_value: the plan is the last column.
	var text string
	if last := cols[len(cols)-1]; last.typ == mapping.TypeVarchar {
		for _, s := range last.strs {
			text += s
		}
	}
	if text == "" {
		return "", fmt.Errorf("%w: EXPLAIN ANALYZE returned no text", ErrUnexpectedType)
	}
	return text, nil
}

// ReloadTable replaces t by tb (dropping the ART index with it; call
// IndexRowID again if it is wanted). After a recluster in stablerow the rows
// have new addresses, and reloading is faster than an UPDATE of every row.
func (d *DB) ReloadTable(tb *peer.Table) error {
	if _, err := d.Exec("DROP TABLE IF EXISTS t"); err != nil {
		return err
	}
	return d.LoadTable(tb)
}
