package optimize

import (
	"math"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// The IN/EXISTS push to one FROM item (Decorrelate's filter). A filter
// conjunct x IN (S), EXISTS (S) or NOT EXISTS (S) over a tree of inner
// joins and cross products (Isthmus writes a FROM list as a filter over
// cross products), whose outer references and needles all read ONE item
// of the tree, is a filter on that item: whether a row passes depends on
// its row of the item and S alone. So the semi or anti join is applied to
// the item, after the item's own conjuncts, before the items are joined,
// instead of to the whole join:
//
//	Filter(a × b × c, b.k IN (S) AND b.x > 0 AND ...)
//	  becomes Filter((a × ((Filter(b, b.x > 0)) ⋉ S on b.k = S.y) × c), ...)
//
// TPC-H Q18 keeps 57 of 1.5M orders by o_orderkey IN (a grouped lineitem
// with HAVING): applied on top, the joins first pair all 6M lineitems
// with orders and customer; applied to orders, the hash table lineitem
// probes holds 57 rows. The SQL front end's EXISTS and IN take this rule
// too (it writes them as subquery expressions in the filter over its
// cross products), which PostgreSQL reaches by pulling the sublink up
// as a semi join (pull_up_sublinks) and joining it in any order.
//
// Left where it is:
//   - NOT IN and the set comparisons (ANY/ALL): their NULL-aware
//     anti joins are kept out of this reordering;
//   - a conjunct on the probe item (the largest estimated, the front
//     end's first): the joins with the build sides only shrink the probe
//     rows the semi join then sees (TPC-H Q21's EXISTS on lineitem l1);
//   - an uncorrelated EXISTS (it names no item), and one naming several.

// item is one relation of a tree of inner joins and cross products: its
// place in the tree (the parent's field holding it), and its columns'
// place in the tree's output.
type item struct {
	slot  **substraitpb.Rel
	off   int
	width int
}

// joinItems lists the items of the tree at *root: the relations under
// its inner joins and cross products, left to right. Nil unless there
// are two or more, and no node of the tree has an emit mapping (the
// items' columns are then the tree's, in order).
func (u *unnester) joinItems(root **substraitpb.Rel) []item {
	var out []item
	var walk func(slot **substraitpb.Rel, off int) bool
	walk = func(slot **substraitpb.Rel, off int) bool {
		r := *slot
		var left, right **substraitpb.Rel
		switch t := r.GetRelType().(type) {
		case *substraitpb.Rel_Cross:
			if t.Cross.GetCommon().GetEmit() != nil {
				return false
			}
			left, right = &t.Cross.Left, &t.Cross.Right
		case *substraitpb.Rel_Join:
			if t.Join.GetType() != substraitpb.JoinRel_JOIN_TYPE_INNER || t.Join.GetCommon().GetEmit() != nil {
				break
			}
			if substraitfn.IsLateralJoin(t.Join.GetAdvancedExtension()) {
				// A lateral join (an expand: generate_series over an
				// earlier FROM item) is one item: its right input reads
				// the left's columns, so nothing may be put between
				// them (difftest seed 20261234 case 57105).
				break
			}
			left, right = &t.Join.Left, &t.Join.Right
		}
		if left == nil {
			out = append(out, item{slot: slot, off: off, width: u.width(r)})
			return true
		}
		return walk(left, off) && walk(right, off+u.width(*left))
	}
	if !walk(root, 0) || len(out) < 2 {
		return nil
	}
	return out
}

// pushTarget returns the item (of items) the set conjunct sq may be
// applied to, or -1. Its subquery's own subqueries must be rewritten
// already (every outer reference left in it is to this query).
func (u *unnester) pushTarget(sq *substraitpb.Expression_Subquery, negated bool, items []item, probe int) int {
	var s *substraitpb.Rel
	var needles []*substraitpb.Expression
	switch t := sq.GetSubqueryType().(type) {
	case *substraitpb.Expression_Subquery_SetPredicate_:
		if t.SetPredicate.GetPredicateOp() != substraitpb.Expression_Subquery_SetPredicate_PREDICATE_OP_EXISTS {
			return -1
		}
		s = t.SetPredicate.GetTuples()
	case *substraitpb.Expression_Subquery_InPredicate_:
		if negated {
			return -1
		}
		s, needles = t.InPredicate.GetHaystack(), t.InPredicate.GetNeedles()
	default:
		return -1
	}
	lo, hi := math.MaxInt, -1
	span := func(f int) { lo, hi = min(lo, f), max(hi, f) }
	ok := true
	walkRefs(s, func(f *substraitpb.Expression_FieldReference) {
		if o := f.GetOuterReference(); o != nil {
			ok = ok && o.GetStepsOut() == 1
			span(int(f.GetDirectReference().GetStructField().GetField()))
		}
	})
	for _, n := range needles {
		if hasSubquery(n) || hasOuterRef(n) {
			return -1
		}
		walkRefs(n, func(f *substraitpb.Expression_FieldReference) {
			span(int(f.GetDirectReference().GetStructField().GetField()))
		})
	}
	if !ok || hi < 0 {
		return -1
	}
	return itemHolding(items, lo, hi, probe)
}

// moveTo shifts the references of the set conjunct sq to this query's
// columns by -off, to the columns of the item it is applied to: the
// outer references in its subquery (steps_out 1), and its needles.
func moveTo(sq *substraitpb.Expression_Subquery, off int) {
	shift := func(f *substraitpb.Expression_FieldReference) {
		if d := f.GetDirectReference().GetStructField(); d != nil {
			d.Field -= int32(off)
		}
	}
	if in := sq.GetInPredicate(); in != nil {
		for _, n := range in.GetNeedles() {
			walkRefs(n, shift)
		}
		walkRefs(in.GetHaystack(), func(f *substraitpb.Expression_FieldReference) {
			if f.GetOuterReference() != nil {
				shift(f)
			}
		})
		return
	}
	walkRefs(sq.GetSetPredicate().GetTuples(), func(f *substraitpb.Expression_FieldReference) {
		if f.GetOuterReference() != nil {
			shift(f)
		}
	})
}

// probeItem is the item the joins will probe with: the largest by
// estimated rows (a named table's rows, any other relation's
// unknownRows, a quarter kept per conjunct of own, which are in the
// tree's space, and per conjunct of the filters the item already is over
// its table: the SQL front end writes a FROM item's own conjuncts as such
// a filter, TPC-H Q20's nation), the first of equals in FROM order.
func (u *unnester) probeItem(items []item, own [][]*substraitpb.Expression, st Stats) int {
	x := estimator{st: st}
	probe, best := -1, -1.0
	for i, it := range items {
		r, keeps := *it.slot, 1.0
		for r.GetFilter() != nil {
			for range u.conjuncts(r.GetFilter().GetCondition(), "") {
				keeps *= filterKeeps
			}
			r = r.GetFilter().GetInput()
		}
		rows := float64(unknownRows)
		if nt := r.GetRead().GetNamedTable(); nt != nil {
			if n, ok := x.tableRows(nt.GetNames()); ok {
				rows = max(n, 1)
			}
		}
		rows *= keeps
		for range own[i] {
			rows *= filterKeeps
		}
		if rows > best {
			probe, best = i, rows
		}
	}
	return probe
}

// pushSets applies the set conjuncts it can (of sets, over the tree
// whose items are items) to their items, each after the item's own
// conjuncts (of plain, in the tree's space), and then the scalar-subquery
// conjuncts it can (of scalars: scalarpush.go). It returns the set,
// scalar and plain conjuncts left for the whole tree.
func (u *unnester) pushSets(items []item, sets, scalars []protoConjunct, plain []*substraitpb.Expression) ([]protoConjunct, []protoConjunct, []*substraitpb.Expression, error) {
	own := make([][]*substraitpb.Expression, len(items))
	ownOf := make([]int, len(plain)) // plain[j]'s item, or -1
	for j, c := range plain {
		ownOf[j] = -1
		for i, it := range items {
			if within(c, it.off, it.width) {
				own[i], ownOf[j] = append(own[i], c), i
				break
			}
		}
	}
	probe := u.probeItem(items, own, u.st)
	pushes := make([][]protoConjunct, len(items))
	var left []protoConjunct
	for _, c := range sets {
		sq, negated := u.setSubquery(c.e)
		// The subquery's own subqueries first, so that every outer
		// reference left in it is to this query (setJoin's rewrite of
		// it again finds none).
		var err error
		switch t := sq.GetSubqueryType().(type) {
		case *substraitpb.Expression_Subquery_SetPredicate_:
			t.SetPredicate.Tuples, err = u.rel(t.SetPredicate.GetTuples(), c.path+".subquery.set_predicate.tuples")
		case *substraitpb.Expression_Subquery_InPredicate_:
			t.InPredicate.Haystack, err = u.rel(t.InPredicate.GetHaystack(), c.path+".subquery.in_predicate.haystack")
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if i := u.pushTarget(sq, negated, items, probe); i >= 0 {
			pushes[i] = append(pushes[i], c)
			continue
		}
		left = append(left, c)
	}
	scalarPushes := make([][]protoConjunct, len(items))
	var leftScalars []protoConjunct
	for _, c := range scalars {
		if err := u.rewriteScalarInputs(c.e, c.path); err != nil {
			return nil, nil, nil, err
		}
		if i := scalarTarget(c.e, c.path, items, probe); i >= 0 {
			scalarPushes[i] = append(scalarPushes[i], c)
			continue
		}
		leftScalars = append(leftScalars, c)
	}
	var err error
	for i, it := range items {
		if len(pushes[i]) == 0 && len(scalarPushes[i]) == 0 {
			continue
		}
		rel := *it.slot
		if len(own[i]) > 0 {
			conds := make([]*substraitpb.Expression, len(own[i]))
			for j, c := range own[i] {
				conds[j] = shiftRefs(c, -it.off)
			}
			rel = u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
				Common: direct(), Input: rel, Condition: u.and(conds)}}}, it.width)
		}
		for _, c := range pushes[i] {
			sq, negated := u.setSubquery(c.e)
			moveTo(sq, it.off)
			if rel, err = u.setJoin(rel, it.width, sq, negated, c.path); err != nil {
				return nil, nil, nil, err
			}
		}
		if len(scalarPushes[i]) > 0 {
			// The item's filter of these conjuncts, decorrelated as any
			// filter is: each subquery a single (or left) join of the
			// item, the conjuncts over it, an emit of the item's columns.
			conds := make([]*substraitpb.Expression, len(scalarPushes[i]))
			for j, c := range scalarPushes[i] {
				moveScalarTo(c.e, c.path, it.off)
				conds[j] = c.e
			}
			f := &substraitpb.FilterRel{Common: direct(), Input: rel, Condition: u.and(conds)}
			r := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: f}}, it.width)
			if rel, err = u.filter(r, f, scalarPushes[i][0].path); err != nil {
				return nil, nil, nil, err
			}
		}
		*it.slot = rel
	}
	var rest []*substraitpb.Expression
	for j, c := range plain {
		if i := ownOf[j]; i < 0 || len(pushes[i]) == 0 && len(scalarPushes[i]) == 0 {
			rest = append(rest, c)
		}
	}
	return left, leftScalars, rest, nil
}

// walkRefs calls f on every field reference in m, its relations
// included.
func walkRefs(m proto.Message, f func(*substraitpb.Expression_FieldReference)) {
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if r, ok := m.Interface().(*substraitpb.Expression_FieldReference); ok {
			f(r)
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
				return true
			}
			if fd.IsList() {
				for j := range v.List().Len() {
					walk(v.List().Get(j).Message())
				}
			} else {
				walk(v.Message())
			}
			return true
		})
	}
	walk(m.ProtoReflect())
}

// itemHolding is the item of items whose columns hold the field span
// [lo, hi], -1 when none does or it is the probe item.
func itemHolding(items []item, lo, hi, probe int) int {
	for i, it := range items {
		if lo >= it.off && hi < it.off+it.width {
			if i == probe {
				return -1
			}
			return i
		}
	}
	return -1
}
