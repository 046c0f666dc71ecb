package plan

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// EvalConst evaluates e, an expression over no columns and no parameters,
// once, with the executor's own kernels: the SQL front end (sql)
// folds constant calls with it while planning, as PostgreSQL's planner
// does (eval_const_expressions), so a constant call becomes its value and
// one that raises raises what the executor would.
//
// ok is false when e is not something this evaluates (a field reference,
// a parameter, a function the executor does not have): the caller keeps
// e as it is. Otherwise v is a one-row array holding e's value (release
// it), or err is the error evaluating e raised.
func EvalConst(ctx context.Context, mem memory.Allocator, e expr.Expression) (v arrow.Array, ok bool, err error) {
	defer func() {
		// A bug evaluating it must not fail the statement here: it is
		// then left to the plan, as before this folding.
		if r := recover(); r != nil {
			slog.Debug("stablerow: recovered panic", "during", "evaluating a constant", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			v, ok, err = nil, false, nil
		}
	}()
	p := &planner{ctx: ctx, params: map[int]paramUse{}, widths: nil, extended: map[exec.Node]extension{}}
	ce, err := p.expr(e, noFields{})
	if err != nil || len(p.params) > 0 {
		return nil, false, nil
	}
	bd, err := physexpr.Bind(ce, emptySchema)
	if err != nil {
		return nil, false, nil
	}
	row := array.NewRecordBatch(emptySchema, nil, 1)
	defer row.Release()
	v, err = physexpr.EvalArray(ctx, mem, bd, row)
	if err != nil {
		return nil, true, err
	}
	return v, true, nil
}
