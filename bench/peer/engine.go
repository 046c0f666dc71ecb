package peer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind is the shape of a benchmark query.
type Kind int

const (
	// KindTake is the seed take: `SELECT v.ord, t._rowaddr FROM
	// UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON
	// t._rowid = v.rowid ORDER BY v.ord`.
	KindTake Kind = iota
	// KindTakePayload is the seed take that also selects t.payload.
	KindTakePayload
	// KindInK is `SELECT k, payload FROM t WHERE k IN (<keys>)`.
	KindInK
	// KindContent is the content check of a take (ContentSQL): per id, in
	// request order, the row's k and payload. Never timed.
	KindContent
)

func (k Kind) String() string {
	switch k {
	case KindTake:
		return "take"
	case KindTakePayload:
		return "take+payload"
	case KindInK:
		return "k IN-list"
	case KindContent:
		return "take content check"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Query is one benchmark query: a kind and its inputs. Engines turn it into
// their own SQL (the SQL functions below are the canonical texts).
type Query struct {
	Kind Kind
	IDs  []uint64 // KindTake, KindTakePayload, KindContent
	Keys []int64  // KindInK
}

// Size is the length of the query's input list.
func (q Query) Size() int {
	if q.Kind == KindInK {
		return len(q.Keys)
	}
	return len(q.IDs)
}

// Engine is one system under test, holding a loaded table t.
type Engine interface {
	// Name labels the engine in reports ("stablerow", "duckdb", ...).
	Name() string
	// Run executes q and returns its complete answer, materialized in Go
	// memory; this is what the benchmark times.
	Run(ctx context.Context, q Query) (Answer, error)
	// Explain returns a short description of the plan that ran q (the
	// operators and scan types that matter for the comparison).
	Explain(ctx context.Context, q Query) (string, error)
	// Delete runs `DELETE FROM t WHERE <pred>` and returns the rows deleted.
	Delete(ctx context.Context, pred string) (int64, error)
}

// Preparer is an Engine that must be put in a state before each run (a
// session setting shared with another engine on the same database). RunCase
// calls Prepare before every run of that engine, outside the timing.
type Preparer interface {
	Prepare(ctx context.Context) error
}

// SelfTimer is an Engine that times its own runs because it lives in
// another process (LanceDB under Node): the time is measured there, from
// handing the engine its id list to holding the answer in the request's
// shape, so the pipe between the processes is not counted. RunCase uses it
// for the timed runs.
type SelfTimer interface {
	RunTimed(ctx context.Context, q Query) (time.Duration, error)
}

// Family is the peer an engine name belongs to: the name up to its first
// '+' ("duckdb+ART+tuned" is a "duckdb"). Ratios compare stablerow with the
// best variant of each family.
func Family(name string) string {
	f, _, _ := strings.Cut(name, "+")
	return f
}

// TakeSQL is the seed take over list parameter param (":ids" for stablerow),
// selecting t.payload too when payload is set.
func TakeSQL(param string, payload bool) string {
	cols := "v.ord, t._rowaddr"
	if payload {
		cols += ", t.payload"
	}
	return "SELECT " + cols + " FROM UNNEST(" + param + ") WITH ORDINALITY AS v(rowid, ord) " +
		"LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord"
}

// InKSQL is the IN-list filter on k with the keys written into the text, so
// both engines parse the same statement.
func InKSQL(keys []int64) string {
	var b strings.Builder
	b.Grow(len(keys)*20 + 48)
	b.WriteString("SELECT k, payload FROM t WHERE k IN (")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(k, 10))
	}
	b.WriteByte(')')
	return b.String()
}

// DeletePredicate is the predicate of the delete workload: about 10% of the
// rows, spread over the whole table.
const DeletePredicate = "payload < 0.1"

// DeleteLimit is DeletePredicate's bound, for the reference model.
const DeleteLimit = 0.1

// UnsupportedKind is the error engines return for a Kind they do not run.
func UnsupportedKind(engine string, k Kind) error {
	return fmt.Errorf("peer: %s: %w: %v", engine, ErrInvalidArgument, k)
}
