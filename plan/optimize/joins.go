package optimize

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// ErrInternal: the pass could not rebuild a relation it took apart (a bug
// here, never the plan's fault).
var ErrInternal = errkind.New(errkind.Internal, "optimize: internal error")

// optimizer holds one pass over a plan.
type optimizer struct {
	ctx context.Context
	est estimator
	b   splan.Builder
	// done is each relation already optimized (a region's nodes are
	// optimized once, for the rebuilt tree and the kept one alike).
	done map[splan.Rel]splan.Rel
}

// Joins reorders every region of inner joins and cross products in r
// (package doc) and returns the relation to plan: r itself when nothing
// changed.
func Joins(ctx context.Context, r splan.Rel, st Stats) (splan.Rel, error) {
	// The builder only assembles relations; its own collection is never
	// consulted (functions are declared in reg).
	c, err := substraitfn.Collection()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	o := &optimizer{ctx: ctx, est: estimator{st: st}, b: splan.NewBuilder(c), done: map[splan.Rel]splan.Rel{}}
	return o.rewrite(r)
}

// rewrite optimizes r: a join region is rebuilt; any other relation gets
// its inputs optimized. Subquery expressions are left as they are (the
// ingest has flattened the ones it can into joins).
func (o *optimizer) rewrite(r splan.Rel) (splan.Rel, error) {
	if err := o.ctx.Err(); err != nil {
		return nil, err
	}
	if d, ok := o.done[r]; ok {
		return d, nil
	}
	out, err := o.rewriteOnce(r)
	if err == nil {
		o.done[r] = out
	}
	return out, err
}

func (o *optimizer) rewriteOnce(r splan.Rel) (splan.Rel, error) {
	if f, ok := r.(*splan.FilterRel); ok && f.OutputMapping() == nil {
		// A filter over an outer join is first moved through it
		// (outerjoin.go), so the joins below see their conjuncts.
		out, moved, err := o.outer(f)
		if err != nil {
			return nil, err
		}
		if moved {
			return o.rewrite(out)
		}
		// A filter over a project, an aggregate, a UNION ALL or a
		// sort moves what it can below it (sink.go).
		if out, moved, err = o.sink(f); err != nil {
			return nil, err
		}
		if moved {
			return o.rewrite(out)
		}
	}
	if f, ok := r.(*splan.FilterRel); (ok && f.OutputMapping() == nil && isRegionJoin(f.Input())) || isRegionJoin(r) {
		// A LEFT JOIN whose nullable side the region never reads goes
		// above it first (liftouter.go).
		out, lifted, err := o.liftOuter(r)
		if err != nil {
			return nil, err
		}
		if lifted {
			return o.rewrite(out)
		}
		return o.region(r)
	}
	in := r.GetInputs()
	if len(in) == 0 {
		return r, nil
	}
	out := make([]splan.Rel, len(in))
	changed := false
	for i, x := range in {
		var err error
		if out[i], err = o.rewrite(x); err != nil {
			return nil, err
		}
		changed = changed || out[i] != x
	}
	if !changed {
		return r, nil
	}
	c, err := r.Copy(out...)
	if err != nil {
		return nil, fmt.Errorf("%w: copy %T: %w", ErrInternal, r, err)
	}
	return c, nil
}

// buildFactor: with as many joins without a key, the rebuilt tree must
// be estimated to build under 1/buildFactor the rows of an order the
// producer chose (explicit joins) to replace it. A conjunct is guessed to
// keep a quarter of the rows, so one misjudged conjunct alone is a factor
// of 4: a smaller difference is within the error of one guess, and no
// reason to overrule a producer that ordered its joins itself.
const buildFactor = 1 / filterKeeps

// region optimizes the join region at r (a filter over joins, or a
// join): it is flattened into a graph and rebuilt greedily (order). A
// region holding a cross product is a FROM list whose producer left the
// order of its joins open (the SQL front end, Isthmus, DuckDB write
// FROM a, b WHERE ... so): the rebuilt tree is the plan, as PostgreSQL
// plans a FROM list by its own join search whatever the order it was
// written in. A region of joins with conditions only was ordered by its
// producer (explicit JOIN ... ON, a decorrelated subquery's join): its
// conjuncts are pushed down in that order (push), and the rebuilt tree
// replaces it only when it has fewer joins without a hash key (keyless:
// a cross product or a nested loop join is the one thing the crude
// estimates here can be sure is worse), or as many and its hash joins
// build under a quarter of the rows (buildRows; buildFactor).
func (o *optimizer) region(r splan.Rel) (splan.Rel, error) {
	g := &graph{}
	if err := o.flatten(g, r, 0); err != nil {
		return nil, err
	}
	var pushed splan.Rel
	open := unordered(r)
	if !open {
		var err error
		if pushed, err = o.push(g, r, 0, nil); err != nil {
			return nil, err
		}
	}
	g.classify()
	built, err := o.order(g)
	if err != nil || open {
		return built, err
	}
	if kb, kp := keyless(built), keyless(pushed); kb < kp ||
		(kb == kp && o.est.buildRows(built)*buildFactor < o.est.buildRows(pushed)) {
		return built, nil
	}
	return pushed, nil
}

// and is the conjunction of es (es itself when one).
func (o *optimizer) and(es []expr.Expression) (expr.Expression, error) {
	if len(es) == 1 {
		return es[0], nil
	}
	reg, err := ownRegistry()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	ownMu.Lock()
	f, err := substraitfn.Scalar(reg, substraitfn.URNBoolean, "and", es...)
	ownMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%w: and: %w", ErrInternal, err)
	}
	return f, nil
}

// filter is r filtered by es (r when es is empty); a filter r without an
// emit takes them into its own condition. A conjunct r's filter already
// has is not added again: a filter an OR implies (implied.go) that the
// producer wrote too, as the SQL front end's FROM-list lowering does,
// would only be evaluated twice and quarter the estimate twice.
func (o *optimizer) filter(r splan.Rel, es []expr.Expression) (splan.Rel, error) {
	if f, ok := r.(*splan.FilterRel); ok && f.OutputMapping() == nil {
		have := conjuncts(f.Condition())
		var add []expr.Expression
		for _, e := range es {
			if !containsExpr(have, e) && !containsExpr(add, e) {
				add = append(add, e)
			}
		}
		if len(add) == 0 {
			return r, nil
		}
		r, es = f.Input(), append(have, add...)
	}
	if len(es) == 0 {
		return r, nil
	}
	cond, err := o.and(es)
	if err != nil {
		return nil, err
	}
	out, err := o.b.Filter(r, cond)
	if err != nil {
		return nil, wrapInternal(err)
	}
	return out, nil
}
