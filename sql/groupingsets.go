package sql

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// GROUPING SETS, ROLLUP and CUBE.
//
// The GROUP BY clause expands to a list of grouping sets as PostgreSQL's
// expand_grouping_sets does: each item is a list of sets (a plain
// expression the one set {e}, () the empty set, ROLLUP(e1, ..., en) the n+1
// prefixes, CUBE the 2^n subsets, GROUPING SETS the concatenation of its
// items' lists), and the clause is the cartesian product of its items'
// lists, each product set the union of its parts. Duplicate sets stay (each
// gives its groups once more), as in PostgreSQL.
//
// Several sets run as one aggregation over an expanded input, DataFusion's
// way (its Expand before the hash aggregate): every input row is crossed
// with the set ids 0..n-1 (a VALUES relation), each key column is NULL in
// the copies of the sets that do not group by it, and one aggregate groups
// by the keys and the set id. So the input is read once, and the
// aggregate's spilling and partitioned execution serve grouping sets
// unchanged. Aggregate arguments read the input's own columns, not the
// nulled keys: sum(a) over ROLLUP(a) totals a in the () row.
//
// An empty set has its one group even over no rows (PostgreSQL's Agg
// emits it when the input is empty). The expansion is then a RIGHT join of
// the input, with a non-NULL marker column, to the set ids ON TRUE: over an
// empty input each set id comes once with NULL input columns. Those rows
// are dropped for the sets with keys, and for the empty ones every
// aggregate skips them by a FILTER on the marker, so count is 0 and the
// others NULL, as over no rows.

// maxGroupingSets is PostgreSQL's limit (parse_agg.c, expand_grouping_sets
// callers: "too many grouping sets present (maximum 4096)").
const maxGroupingSets = 4096

// groupingSets expands the GROUP BY clause: the keys, the SELECT-list
// item each is (-1: none), their output names, and each grouping set as
// indices into keys. multi is false for a clause without GROUPING SETS,
// ROLLUP, CUBE or ().
//
// A key is a target entry, as PostgreSQL's ressortgroupref: a position
// names its item (findTargetlistEntrySQL92), an expression the first
// item equal to it (findTargetlistEntrySQL99) or else itself (a resjunk
// target, once per expression). So SELECT c2, c2 ... GROUPING SETS ((c2),
// (2)) has two keys of one expression, and each set nulls only the item
// it lacks (difftest seed 20261229 case 73676).
func (l *lowerer) groupingSets(s *pg_query.SelectStmt, sc *scope) (keys []expr.Expression, targets []int, names []string, sets [][]int, multi bool, err error) {
	// items are the SELECT-list items lowered over the input, for
	// findTargetlistEntrySQL99 (nil: not lowerable there, so equal to no
	// GROUP BY expression), lowered when first needed.
	var items []expr.Expression
	item := func(j int) expr.Expression {
		if items == nil {
			items = make([]expr.Expression, len(s.TargetList))
			for i, t := range s.TargetList {
				n := t.GetResTarget().GetVal()
				if n == nil || n.GetColumnRef() != nil && slices.ContainsFunc(n.GetColumnRef().Fields, func(f *pg_query.Node) bool { return f.GetAStar() != nil }) {
					continue
				}
				if _, blocked := trialShape(n, false); blocked {
					continue
				}
				is := *sc
				is.noAggs = "in GROUP BY"
				v, err := l.expr(n, &is)
				if err != nil {
					continue
				}
				if items[i], err = l.settle(v); err != nil {
					items[i] = nil
				}
			}
		}
		return items[j]
	}
	key := func(n *pg_query.Node) (int, error) {
		v, t, err := l.groupKey(n, sc, s.TargetList)
		if err != nil {
			return 0, err
		}
		e, err := l.settle(v)
		if err != nil {
			return 0, err
		}
		if t < 0 {
			for j := range s.TargetList {
				if it := item(j); it != nil && sameExpr(it, e) {
					t = j
					break
				}
			}
		}
		if i := slices.IndexFunc(keys, func(k expr.Expression) bool { return sameExpr(k, e) }); i >= 0 && t < 0 {
			return i, nil // the resjunk target of this expression
		}
		if i := slices.Index(targets, t); i >= 0 && t >= 0 {
			return i, nil
		}
		name := v.name
		if name == "" {
			name = "?column?"
		}
		keys, targets, names = append(keys, e), append(targets, t), append(names, name)
		return len(keys) - 1, nil
	}
	// element is one ROLLUP or CUBE element, or one GROUPING SETS item
	// that is a plain list: an expression or a parenthesized list of them.
	element := func(n *pg_query.Node) ([]int, error) {
		if r := n.GetRowExpr(); r != nil && r.RowFormat == pg_query.CoercionForm_COERCE_IMPLICIT_CAST {
			var set []int
			for _, a := range r.Args {
				i, err := key(a)
				if err != nil {
					return nil, err
				}
				set = append(set, i)
			}
			return set, nil
		}
		i, err := key(n)
		return []int{i}, err
	}
	var expand func(n *pg_query.Node) ([][]int, error)
	expand = func(n *pg_query.Node) ([][]int, error) {
		gs := n.GetGroupingSet()
		if gs == nil {
			set, err := element(n)
			return [][]int{set}, err
		}
		multi = true
		var elems [][]int
		if gs.Kind == pg_query.GroupingSetKind_GROUPING_SET_ROLLUP || gs.Kind == pg_query.GroupingSetKind_GROUPING_SET_CUBE {
			for _, c := range gs.Content {
				e, err := element(c)
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
			}
		}
		switch gs.Kind {
		case pg_query.GroupingSetKind_GROUPING_SET_EMPTY:
			return [][]int{nil}, nil
		case pg_query.GroupingSetKind_GROUPING_SET_SIMPLE:
			var set []int
			for _, c := range gs.Content {
				e, err := element(c)
				if err != nil {
					return nil, err
				}
				set = append(set, e...)
			}
			return [][]int{set}, nil
		case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP:
			out := make([][]int, 0, len(elems)+1)
			for i := len(elems); i >= 0; i-- {
				out = append(out, slices.Concat(elems[:i]...))
			}
			return out, nil
		case pg_query.GroupingSetKind_GROUPING_SET_CUBE:
			if len(elems) > 12 {
				return nil, fmt.Errorf("%w: CUBE is limited to 12 elements%s", ErrInvalid, l.src.at(gs.Location))
			}
			// The 2^n subsets, the full set first, () last.
			out := make([][]int, 0, 1<<len(elems))
			for m := (1 << len(elems)) - 1; m >= 0; m-- {
				var set []int
				for i, e := range elems {
					if m&(1<<(len(elems)-1-i)) != 0 {
						set = append(set, e...)
					}
				}
				out = append(out, set)
			}
			return out, nil
		case pg_query.GroupingSetKind_GROUPING_SET_SETS:
			var out [][]int
			for _, c := range gs.Content {
				sub, err := expand(c)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
				if len(out) > maxGroupingSets {
					return nil, fmt.Errorf("%w: too many grouping sets present (maximum %d)%s", ErrInvalid, maxGroupingSets, l.src.at(gs.Location))
				}
			}
			return out, nil
		}
		return nil, fmt.Errorf("%w: grouping set kind %s%s", ErrUnsupported, gs.Kind, l.src.at(gs.Location))
	}
	sets = [][]int{nil}
	for _, g := range s.GroupClause {
		parts, err := expand(g)
		if err != nil {
			return nil, nil, nil, nil, false, err
		}
		if len(sets)*len(parts) > maxGroupingSets {
			return nil, nil, nil, nil, false, fmt.Errorf("%w: too many grouping sets present (maximum %d)", ErrInvalid, maxGroupingSets)
		}
		var product [][]int
		for _, a := range sets {
			for _, b := range parts {
				product = append(product, slices.Concat(a, b))
			}
		}
		sets = product
	}
	for i, set := range sets {
		// A key twice in one set groups once: (a, a) is (a).
		var dedup []int
		for _, k := range set {
			if !slices.Contains(dedup, k) {
				dedup = append(dedup, k)
			}
		}
		sets[i] = dedup
	}
	if s.GroupDistinct {
		// GROUP BY DISTINCT drops the sets equal, as sets, to one before
		// them (PostgreSQL's expand_grouping_sets with groupDistinct).
		var kept [][]int
		for _, set := range sets {
			sorted := slices.Sorted(slices.Values(set))
			if !slices.ContainsFunc(kept, func(k []int) bool { return slices.Equal(slices.Sorted(slices.Values(k)), sorted) }) {
				kept = append(kept, set)
			}
		}
		sets = kept
	}
	return keys, targets, names, sets, multi, nil
}

// expandForSets builds the aggregate's input for several grouping sets
// (see the comment at the top): the input's w columns, then, with an
// empty set, the marker (a non-NULL boolean from the input side), then the
// set id, then each key, NULL in the sets that do not hold it. It returns
// the relation, the marker's column (-1: none) and the set id's.
func (l *lowerer) expandForSets(rel plan.Rel, w int, keys []expr.Expression, sets [][]int) (plan.Rel, int, int, error) {
	rows := make([]expr.VirtualTableExpressionValue, len(sets))
	for i := range sets {
		rows[i] = expr.VirtualTableExpressionValue{expr.NewPrimitiveLiteral(int32(i), false)}
	}
	ids, err := l.b.VirtualTableFromExpr([]string{"grouping_set"}, rows...)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrInvalid, err)
	}
	marker := -1
	hasEmpty := slices.ContainsFunc(sets, func(s []int) bool { return len(s) == 0 })
	var joined plan.Rel
	if hasEmpty {
		withMarker, err := l.b.Project(rel, expr.NewPrimitiveLiteral(true, false))
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrInvalid, err)
		}
		marker = w
		joined, err = l.b.Join(withMarker, ids, expr.NewPrimitiveLiteral(true, false), plan.JoinTypeRight)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrInvalid, err)
		}
	} else if joined, err = l.b.Cross(rel, ids); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrInvalid, err)
	}
	rt := joined.RecordType()
	gid := int(rt.FieldCount()) - 1
	gidRef := func() expr.Expression {
		return expr.MustExpr(expr.NewRootFieldRef(expr.NewStructFieldRef(int32(gid)), &rt))
	}
	if hasEmpty {
		// Over an empty input the join gives every set id once with a
		// NULL marker: only the empty sets' copies stay.
		var keep []expr.Expression
		mref, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(marker)), &rt)
		if err != nil {
			return nil, 0, 0, err
		}
		isReal, err := l.call(urnComparison, "is_not_null", -1, mref)
		if err != nil {
			return nil, 0, 0, err
		}
		keep = append(keep, isReal)
		for i, s := range sets {
			if len(s) == 0 {
				eq, err := l.call(urnComparison, "equal", -1, gidRef(), expr.NewPrimitiveLiteral(int32(i), false))
				if err != nil {
					return nil, 0, 0, err
				}
				keep = append(keep, eq)
			}
		}
		cond, err := l.call(urnBoolean, "or", -1, keep...)
		if err != nil {
			return nil, 0, 0, err
		}
		if joined, err = l.b.Filter(joined, cond); err != nil {
			return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrInvalid, err)
		}
	}
	nulled := make([]expr.Expression, len(keys))
	for k, key := range keys {
		// The sets without key k null it: CASE WHEN set IN (...) THEN
		// NULL ELSE key END.
		var without []expr.Expression
		for i, s := range sets {
			if !slices.Contains(s, k) {
				eq, err := l.call(urnComparison, "equal", -1, gidRef(), expr.NewPrimitiveLiteral(int32(i), false))
				if err != nil {
					return nil, 0, 0, err
				}
				without = append(without, eq)
			}
		}
		if len(without) == 0 {
			nulled[k] = key
			continue
		}
		cond := without[0]
		if len(without) > 1 {
			if cond, err = l.call(urnBoolean, "or", -1, without...); err != nil {
				return nil, 0, 0, err
			}
		}
		t := key.GetType().WithNullability(types.NullabilityNullable)
		ite, err := expr.NewIfThen(expr.IfThenPair{If: cond, Then: expr.NewNullLiteral(t)}, nullable(key))
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrType, err)
		}
		nulled[k] = ite
	}
	if len(nulled) == 0 {
		// Only empty sets (GROUPING SETS ((), ())): no key to null,
		// and Substrait's project takes at least one expression.
		return joined, marker, gid, nil
	}
	out, err := l.b.Project(joined, nulled...)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: grouping sets: %w", ErrInvalid, err)
	}
	return out, marker, gid, nil
}

// groupingKey is the key GROUPING's argument a (lowered: e) names, -1
// for none. PostgreSQL matches the argument to a grouping clause by
// equal() on the analysed expressions, before constant folding: SELECT
// CASE WHEN TRUE THEN c END, c ... GROUPING(CASE WHEN TRUE THEN c END, c)
// has two keys and two bits, though the lowering folds the CASE to c.
// So among keys that lower alike, the one whose SELECT-list item is
// written as a is taken; else the first, as PostgreSQL takes the first
// equal target (difftest seed 20261233 case 34583).
func (g *grouping) groupingKey(a *pg_query.Node, e expr.Expression) int {
	first := -1
	for k, key := range g.keys {
		if !sameExpr(key, e) {
			continue
		}
		if first < 0 {
			first = k
		}
		if t := g.targets[k]; t >= 0 && t < len(g.items) && sameSyntax(a, g.items[t]) {
			return k
		}
	}
	return first
}

// sameSyntax: a and b are the same parse tree but for the locations.
func sameSyntax(a, b *pg_query.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	ca, cb := proto.Clone(a).(*pg_query.Node), proto.Clone(b).(*pg_query.Node)
	for _, c := range []*pg_query.Node{ca, cb} {
		walkNodes(c.ProtoReflect(), func(m protoreflect.Message) bool {
			if f := m.Descriptor().Fields().ByName("location"); f != nil && f.Kind() == protoreflect.Int32Kind {
				m.Clear(f)
			}
			return true
		})
	}
	return proto.Equal(ca, cb)
}

// groupingFunc lowers GROUPING(a, b, ...) over a grouped scope: an integer
// whose bit for each argument, the first the most significant, is 1 when
// the row's grouping set does not hold it (PostgreSQL's GroupingFunc,
// ExecEvalGroupingFunc). Each argument must be a group key.
func (l *lowerer) groupingFunc(g *pg_query.GroupingFunc, s *scope) (value, error) {
	if s.group == nil {
		where := s.noAggs
		if where == "" {
			where = "here"
		}
		return value{}, fmt.Errorf("%w: grouping operations are not allowed %s%s", ErrInvalid, where, l.src.at(g.Location))
	}
	if len(g.Args) > 31 {
		return value{}, fmt.Errorf("%w: GROUPING must have fewer than 32 arguments%s", ErrInvalid, l.src.at(g.Location))
	}
	in := *s.group.input
	in.noAggs = "in GROUPING"
	idx := make([]int, len(g.Args))
	for j, a := range g.Args {
		v, err := l.expr(a, &in)
		if err != nil {
			return value{}, err
		}
		e, err := l.settle(v)
		if err != nil {
			return value{}, err
		}
		idx[j] = s.group.groupingKey(a, e)
		if idx[j] < 0 {
			return value{}, fmt.Errorf("%w: arguments to GROUPING must be grouping expressions of the associated query level%s", ErrInvalid, l.src.at(g.Location))
		}
	}
	mask := func(set []int) int32 {
		var m int32
		for j, k := range idx {
			if !slices.Contains(set, k) {
				m |= 1 << (len(idx) - 1 - j)
			}
		}
		return m
	}
	sets := s.group.sets
	if s.group.gid < 0 || len(sets) < 2 {
		var only []int
		if len(sets) == 1 {
			only = sets[0]
		} else {
			for k := range s.group.keys {
				only = append(only, k)
			}
		}
		return value{e: expr.NewPrimitiveLiteral(mask(only), false), loc: g.Location, name: "grouping"}, nil
	}
	gidRef, err := s.ref(s.group.gid)
	if err != nil {
		return value{}, err
	}
	var pairs []expr.IfThenPair
	for i, set := range sets[:len(sets)-1] {
		eq, err := l.call(urnComparison, "equal", g.Location, gidRef, expr.NewPrimitiveLiteral(int32(i), false))
		if err != nil {
			return value{}, err
		}
		pairs = append(pairs, expr.IfThenPair{If: eq, Then: expr.NewPrimitiveLiteral(mask(set), true)})
	}
	e, err := expr.NewIfThen(pairs[0], expr.NewPrimitiveLiteral(mask(sets[len(sets)-1]), true), pairs[1:]...)
	if err != nil {
		return value{}, fmt.Errorf("%w: GROUPING: %w%s", ErrType, err, l.src.at(g.Location))
	}
	return value{e: e, loc: g.Location, name: "grouping"}, nil
}
