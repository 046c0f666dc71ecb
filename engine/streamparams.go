package engine

import (
	"context"

	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// UnnestOnlyParams reports the parameters ($k) of one statement — SQL
// text, else the Substrait plan substrait — used only as the list of
// UNNEST($k) in FROM, each with the number of UNNESTs that read it
// (plan.UnnestOnlyParams). Such a parameter may be bound as a stream
// (exec.ListSource) rather than a Go list: UnnestExec reads it array by
// array. For SQL the statement may be a query or INSERT ... SELECT,
// DELETE, UPDATE, CREATE TABLE AS or COPY TO of one; anything else, a
// script, EXPLAIN or text that does not plan reports none: such
// statements bind their lists whole.
func (db *DB) UnnestOnlyParams(ctx context.Context, text string, substrait []byte) (_ map[int]int, err error) {
	defer recoverInternal(&err)
	if substrait != nil {
		pb, err := plan.DecodePlan(substrait)
		if err != nil {
			return nil, err
		}
		return plan.UnnestOnlyParams(pb), nil
	}
	stmts, err := sql.Parse(text, db.newCatalog(ctx))
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return map[int]int{}, nil
	}
	q := statementQuery(stmts[0])
	if q == nil || q.Explain {
		return map[int]int{}, nil
	}
	return plan.UnnestOnlyParams(q.Plan), nil
}

// SpillDir is where statements write their temporary files (Options.SpillDir;
// "" is os.TempDir()).
func (db *DB) SpillDir() string { return db.opt.SpillDir }
