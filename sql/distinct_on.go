package sql

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// SELECT DISTINCT ON (exprs) keeps the first row of each group of equal
// exprs, first in ORDER BY order (issue 29). PostgreSQL plans it as a
// Unique over a sort (transformDistinctOnClause, create_upper_unique_path);
// Substrait has no such relation, so it lowers as
//
//	Filter(rn = 1) <- Project[..., row_number() OVER (PARTITION BY exprs
//	                                                  ORDER BY the ORDER BY)]
//
// under the usual projection, sort and fetch: the window operator sorts
// (and spills) once, and the filter streams. Without ORDER BY the window
// has no order and each group keeps an arbitrary row, as in PostgreSQL.
// Equal DISTINCT ON keys are IS NOT DISTINCT FROM equal (NULLs form one
// group), which is how a window partitions.

// distinctOnKey is one DISTINCT ON item, resolved like an ORDER BY item
// (findTargetlistEntrySQL92): an output ordinal, an output name, or an
// expression over the input.
type distinctOnKey struct {
	e   expr.Expression
	loc int32
}

// distinctOnKeys resolves the DISTINCT ON items of s over the scope in.
func (l *lowerer) distinctOnKeys(s *pg_query.SelectStmt, in *scope, outs []output) ([]distinctOnKey, error) {
	var keys []distinctOnKey
	for _, n := range s.DistinctClause {
		loc := nodeLocation(n)
		out, err := l.outputNamed(n, outs)
		if err != nil {
			return nil, err
		}
		if out >= 0 {
			keys = append(keys, distinctOnKey{e: outs[out].e, loc: loc})
			continue
		}
		ks := *in
		ks.noAggs = "in DISTINCT ON"
		v, err := l.expr(n, &ks)
		if err != nil {
			return nil, err
		}
		e, err := l.settle(v)
		if err != nil {
			return nil, err
		}
		keys = append(keys, distinctOnKey{e: e, loc: loc})
	}
	return keys, nil
}

// checkDistinctOnOrder is transformDistinctOnClause's rule: the ORDER BY
// items that are DISTINCT ON items must come before every other ORDER BY
// item, and if any ORDER BY item is not one, every DISTINCT ON item must
// be among the ORDER BY items before it. Otherwise it is PostgreSQL's
// error 42P10 at the first DISTINCT ON item out of place.
// ORDER BY a, b, a is ORDER BY a, b; DISTINCT ON (a, a) is DISTINCT ON (a).
func (l *lowerer) checkDistinctOnOrder(keys []distinctOnKey, order []sortKey) error {
	index := func(e expr.Expression) int {
		for i, k := range keys {
			if sameExpr(k.e, e) {
				return i
			}
		}
		return -1
	}
	used := make([]bool, len(keys))
	skipped := false
	for j, o := range order {
		// A repeated ORDER BY item is no sort key of its own
		// (addTargetToSortList adds a target once).
		if slices.ContainsFunc(order[:j], func(p sortKey) bool { return sameExpr(p.e, o.e) }) {
			continue
		}
		i := index(o.e)
		switch {
		case i < 0:
			skipped = true
		case skipped:
			return fmt.Errorf("%w: SELECT DISTINCT ON expressions must match initial ORDER BY expressions%s", ErrInvalidColumnReference, l.src.at(keys[i].loc))
		default:
			// A repeated DISTINCT ON key is the same key
			// (addTargetToGroupList adds a target once).
			for j, k := range keys {
				used[j] = used[j] || sameExpr(k.e, o.e)
			}
		}
	}
	if !skipped {
		return nil
	}
	for i, u := range used {
		if !u {
			return fmt.Errorf("%w: SELECT DISTINCT ON expressions must match initial ORDER BY expressions%s", ErrInvalidColumnReference, l.src.at(keys[i].loc))
		}
	}
	return nil
}

// distinctOn keeps rel's first row per DISTINCT ON key in ORDER BY order:
// a row_number window partitioned by the keys and ordered by the whole
// ORDER BY, then a filter of its 1s. The scope in still describes the
// result's leading fields (the window's column is appended after them).
func (l *lowerer) distinctOn(rel plan.Rel, in *scope, outs []output, s *pg_query.SelectStmt) (plan.Rel, error) {
	keys, err := l.distinctOnKeys(s, in, outs)
	if err != nil {
		return nil, err
	}
	order, err := l.orderKeys(s.SortClause, in, outs)
	if err != nil {
		return nil, err
	}
	if err := l.checkDistinctOnOrder(keys, order); err != nil {
		return nil, err
	}
	wf, err := substraitfn.Window(l.b.GetExprBuilder().Reg, "row_number")
	if err != nil {
		return nil, fmt.Errorf("%w: DISTINCT ON: %w", ErrInvalid, err)
	}
	for _, k := range keys {
		wf.Partitions = append(wf.Partitions, k.e)
	}
	// An ORDER BY item that is a DISTINCT ON key is constant within a
	// partition: the window orders by the others only.
	for _, o := range order {
		if slices.ContainsFunc(keys, func(k distinctOnKey) bool { return sameExpr(k.e, o.e) }) {
			continue
		}
		wf.Sorts = append(wf.Sorts, expr.SortField{Expr: o.e, Kind: o.kind})
	}
	// The frame does not change row_number; PostgreSQL's default.
	if err := l.windowFrame(wf, &pg_query.WindowDef{}); err != nil {
		return nil, err
	}
	n := rel.RecordType().FieldCount()
	withRN, err := l.b.Project(rel, wf)
	if err != nil {
		return nil, fmt.Errorf("%w: DISTINCT ON: %w", ErrInvalid, err)
	}
	rn, err := l.b.RootFieldRef(withRN, n)
	if err != nil {
		return nil, fmt.Errorf("%w: DISTINCT ON: %w", ErrInvalid, err)
	}
	first, err := l.call(urnComparison, "equal", nodeLocation(s.DistinctClause[0]), rn, expr.NewPrimitiveLiteral(int64(1), false))
	if err != nil {
		return nil, err
	}
	f, err := l.b.Filter(withRN, first)
	if err != nil {
		return nil, fmt.Errorf("%w: DISTINCT ON: %w", ErrInvalid, err)
	}
	return f, nil
}

// nodeLocation is the location field of the expression node n holds
// (PostgreSQL's exprLocation, for the nodes that carry one), or -1.
func nodeLocation(n *pg_query.Node) int32 {
	m := n.ProtoReflect()
	loc := int32(-1)
	m.Range(func(_ protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		inner, ok := v.Interface().(protoreflect.Message)
		if !ok {
			return true
		}
		if f := inner.Descriptor().Fields().ByName("location"); f != nil && f.Kind() == protoreflect.Int32Kind {
			loc = int32(inner.Get(f).Int())
		}
		return false
	})
	return loc
}
