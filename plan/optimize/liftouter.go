package optimize

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// A LEFT JOIN inside an inner-join region is one of the region's nodes, a
// barrier: the region's joins run above it. When nothing in the region
// reads the LEFT JOIN's nullable side, the inner joins commute with it
// (PostgreSQL's outer-join identity 1, which its join search uses:
// (A ⟕ B on Pab) ⋈ C on Pac = (A ⋈ C on Pac) ⟕ B on Pab when Pac reads
// no column of B), so the LEFT JOIN is lifted above the region and its
// preserved side A takes its place:
//
//	Filter(Pac, Pcd)                 Project (the region's column order)
//	└─ Cross                         └─ LEFT JOIN B on Pab
//	   ├─ Cross            ==▶          └─ Filter(Pac, Pcd)
//	   │  ├─ A ⟕ B                          └─ Cross(Cross(A, C), D)
//	   │  └─ C
//	   └─ D
//
// TPC-DS Q80 joined 2.88M store sales with their returns before the
// 31-day date_dim filter met them (143 ms of its 150 in that join); the
// region now filters the sales to 47,867 rows first. Every preserved row
// the region keeps is extended as before, and none it drops was: the
// region's conditions read only A's columns of the two.

// regionPart is a node of a region tree found by liftOuter: its relation
// and its first column in the region.
type regionPart struct {
	rel splan.Rel
	off int
}

// liftOuter is the region at r with one LEFT JOIN node that nothing in
// the region reads the nullable side of lifted above it (and its columns
// put back in order); ok is false when there is none.
func (o *optimizer) liftOuter(r splan.Rel) (out splan.Rel, ok bool, err error) {
	var parts []regionPart
	var conds []expr.Expression // the region's conjuncts, over its columns
	var walk func(r splan.Rel, off int)
	walk = func(r splan.Rel, off int) {
		switch j := r.(type) {
		case *splan.FilterRel:
			if j.OutputMapping() == nil && isRegionJoin(j.Input()) {
				walk(j.Input(), off)
				conds = append(conds, remap(j.Condition(), func(i int) int { return i + off }))
				return
			}
		case *splan.CrossRel:
			if isRegionJoin(j) {
				walk(j.Left(), off)
				walk(j.Right(), off+width(j.Left()))
				return
			}
		case *splan.JoinRel:
			if isRegionJoin(j) {
				walk(j.Left(), off)
				walk(j.Right(), off+width(j.Left()))
				for _, e := range []expr.Expression{j.Expr(), j.PostJoinFilter()} {
					if e != nil {
						conds = append(conds, remap(e, func(i int) int { return i + off }))
					}
				}
				return
			}
		}
		parts = append(parts, regionPart{rel: r, off: off})
	}
	walk(r, 0)
	for _, p := range parts {
		lj, isJoin := p.rel.(*splan.JoinRel)
		if !isJoin || lj.Type() != splan.JoinTypeLeft || lj.OutputMapping() != nil ||
			(lj.PostJoinFilter() != nil && !isTrue(lj.PostJoinFilter())) ||
			substraitfn.IsLateralJoin(lj.GetAdvancedExtension()) {
			continue
		}
		na, nb := width(lj.Left()), width(lj.Right())
		from, to := p.off+na, p.off+na+nb // B's columns in the region
		read := false
		for _, c := range conds {
			if !columns(c, func(i int) { read = read || (i >= from && i < to) }) {
				read = true // an outer column or a subquery: leave it
			}
		}
		if read {
			continue
		}
		out, err := o.lift(r, lj, from, nb)
		return out, err == nil, err
	}
	return nil, false, nil
}

// lift rebuilds the region r with the LEFT JOIN lj (its nullable side's
// nb columns at from in the region) replaced by its preserved side, the
// join above it, and a projection putting the columns back in order.
func (o *optimizer) lift(r splan.Rel, lj *splan.JoinRel, from, nb int) (splan.Rel, error) {
	// down maps a region column to the rebuilt region's (B's are gone).
	down := func(i int) int {
		if i >= from+nb {
			return i - nb
		}
		return i
	}
	var rebuild func(r splan.Rel, off int) (splan.Rel, error)
	// both rebuilds a join's two inputs, the left one's columns at off.
	both := func(l, r splan.Rel, off int) (splan.Rel, splan.Rel, error) {
		nl, err := rebuild(l, off)
		if err != nil {
			return nil, nil, err
		}
		nr, err := rebuild(r, off+width(l))
		return nl, nr, err
	}
	rebuild = func(r splan.Rel, off int) (splan.Rel, error) {
		if r == splan.Rel(lj) {
			return lj.Left(), nil
		}
		// local maps r's column i to the rebuilt r's.
		local := func(i int) int { return down(i+off) - down(off) }
		switch j := r.(type) {
		case *splan.FilterRel:
			if j.OutputMapping() == nil && isRegionJoin(j.Input()) {
				in, err := rebuild(j.Input(), off)
				if err != nil {
					return nil, err
				}
				out, err := o.b.Filter(in, remap(j.Condition(), local))
				return out, wrapInternal(err)
			}
		case *splan.CrossRel:
			if isRegionJoin(j) {
				l, rr, err := both(j.Left(), j.Right(), off)
				if err != nil {
					return nil, err
				}
				out, err := o.b.Cross(l, rr)
				return out, wrapInternal(err)
			}
		case *splan.JoinRel:
			if isRegionJoin(j) {
				l, rr, err := both(j.Left(), j.Right(), off)
				if err != nil {
					return nil, err
				}
				nj, err := o.b.Join(l, rr, remap(j.Expr(), local), splan.JoinTypeInner)
				if err != nil {
					return nil, wrapInternal(err)
				}
				if pf := j.PostJoinFilter(); pf != nil && !isTrue(pf) {
					out, err := o.b.Filter(nj, remap(pf, local))
					return out, wrapInternal(err)
				}
				return nj, nil
			}
		}
		return r, nil
	}
	inner, err := rebuild(r, 0)
	if err != nil {
		return nil, err
	}
	w := width(inner)
	na := width(lj.Left())
	aOff := from - na
	cond := remap(lj.Expr(), func(i int) int {
		if i < na {
			return aOff + i
		}
		return w + i - na
	})
	joined, err := o.b.Join(inner, lj.Right(), cond, splan.JoinTypeLeft)
	if err != nil {
		return nil, wrapInternal(err)
	}
	emit := make([]int32, w+nb)
	for c := range emit {
		switch {
		case c < from:
			emit[c] = int32(c)
		case c < from+nb:
			emit[c] = int32(w + c - from)
		default:
			emit[c] = int32(c - nb)
		}
	}
	out, err := o.b.ProjectRemap(joined, emit, expr.NewPrimitiveLiteral(true, false))
	return out, wrapInternal(err)
}
