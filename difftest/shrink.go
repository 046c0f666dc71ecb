package difftest

import (
	"context"
	"maps"
	"slices"
	"strings"
)

// Shrink makes d's case smaller while it still diverges the same way
// (same Kind, same open class, same known difference): it drops DML, tables, rows, columns, clauses, select items,
// array elements, and replaces expressions by their operands, greedily,
// until no single step keeps the divergence or budget runs are spent.
func (r *Runner) Shrink(ctx context.Context, d *Divergence, budget int) (*Divergence, error) {
	// The shrinker's runs are not cases: they do not count.
	saved := maps.Clone(r.BothRaised)
	defer func() { r.BothRaised = saved }()
	for budget > 0 {
		improved := false
		for _, c := range candidates(d.Case) {
			if budget--; budget < 0 {
				break
			}
			d2, err := r.RunCase(ctx, c, d.Opt)
			if err != nil {
				return d, err
			}
			if d2 != nil && d2.Kind == d.Kind && d2.Open == d.Open && d2.Known == d.Known {
				d, improved = d2, true
				break
			}
		}
		if !improved {
			break
		}
	}
	// Leave both sides on the shrunk case, so a reproducer can be read off.
	_, err := r.RunCase(ctx, d.Case, d.Opt)
	return d, err
}

func cloneExpr(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	c := *e
	c.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = cloneExpr(a)
	}
	return &c
}

func cloneCase(c *Case) *Case {
	out := &Case{DML: slices.Clone(c.DML), DMLExprs: slices.Clone(c.DMLExprs)}
	for _, t := range c.Tables {
		nt := *t
		nt.Cols = slices.Clone(t.Cols)
		nt.Rows = nil
		for _, row := range t.Rows {
			nt.Rows = append(nt.Rows, slices.Clone(row))
		}
		out.Tables = append(out.Tables, &nt)
	}
	q := *c.Query
	q.From.Array = slices.Clone(c.Query.From.Array)
	q.From.Many, q.From.Order = slices.Clone(c.Query.From.Many), slices.Clone(c.Query.From.Order)
	q.Where = cloneExpr(c.Query.Where)
	q.Select = nil
	for _, e := range c.Query.Select {
		q.Select = append(q.Select, cloneExpr(e))
	}
	q.OrderBy = nil
	for _, o := range c.Query.OrderBy {
		o.E = cloneExpr(o.E)
		q.OrderBy = append(q.OrderBy, o)
	}
	q.Tiebreak = slices.Clone(c.Query.Tiebreak)
	out.Query = &q
	return out
}

// slot is a place that holds an expression; top slots (select items, ORDER
// BY keys) accept an expression of any type.
type slot struct {
	p   **Expr
	top bool
}

func slots(q *Query) []slot {
	var out []slot
	var walk func(p **Expr, top bool)
	walk = func(p **Expr, top bool) {
		out = append(out, slot{p, top})
		for i := range (*p).Args {
			walk(&(*p).Args[i], false)
		}
	}
	if q.Where != nil {
		walk(&q.Where, false)
	}
	for i := range q.Select {
		walk(&q.Select[i], true)
	}
	for i := range q.OrderBy {
		walk(&q.OrderBy[i].E, true)
	}
	return out
}

// candidates are the one-step reductions of c, roughly biggest first.
func candidates(c *Case) []*Case {
	var out []*Case
	add := func(f func(n *Case) bool) {
		n := cloneCase(c)
		if f(n) {
			out = append(out, n)
		}
	}
	text := c.Query.SQL() + " " + strings.Join(c.DML, " ")
	for i := range c.Tables {
		name := c.Tables[i].Name
		if c.Query.From.T0 != name && c.Query.From.T1 != name && !slices.ContainsFunc(c.Query.From.Many, func(it ManyItem) bool { return it.Table == name }) && !strings.Contains(text, "FROM "+name+" AS s") && !strings.Contains(text, "FROM "+name+" AS a") && !strings.Contains(strings.Join(c.DML, " "), name+" ") {
			add(func(n *Case) bool { n.Tables = slices.Delete(n.Tables, i, i+1); return true })
		}
	}
	for i := range c.DML {
		add(func(n *Case) bool {
			n.DML, n.DMLExprs = slices.Delete(n.DML, i, i+1), slices.Delete(n.DMLExprs, i, i+1)
			return true
		})
	}
	q := c.Query
	if q.CTE != nil { // the table itself in place of the CTE, or the CTE unfiltered
		add(func(n *Case) bool {
			n.Query.From.T0, n.Query.From.T1, n.Query.CTE = q.CTE.Table, q.CTE.Table, nil
			return true
		})
		add(func(n *Case) bool {
			c := *q.CTE
			c.Where, n.Query.CTE = nil, &c
			return q.CTE.Where != nil
		})
		add(func(n *Case) bool { // the table in place of its VALUES
			c := *q.CTE
			c.Values, n.Query.CTE = nil, &c
			return q.CTE.Values != nil
		})
	}
	add(func(n *Case) bool { n.Query.Where = nil; return q.Where != nil })
	add(func(n *Case) bool { n.Query.Limit = -1; return q.Limit >= 0 })
	add(func(n *Case) bool { n.Query.Offset = -1; return q.Offset >= 0 })
	if q.Limit < 0 && q.Offset < 0 {
		add(func(n *Case) bool { n.Query.OrderBy = nil; return len(q.OrderBy) > 0 })
	}
	for i := range q.OrderBy {
		add(func(n *Case) bool {
			n.Query.OrderBy = slices.Delete(n.Query.OrderBy, i, i+1)
			return len(q.OrderBy) > 1
		})
	}
	for i := range q.Select {
		add(func(n *Case) bool {
			n.Query.Select = slices.Delete(n.Query.Select, i, i+1)
			return len(q.Select) > 1 || (q.Count && len(q.Select) == 1)
		})
	}
	if q.From.T1 != "" && (q.From.Kind == FromUnnest || q.From.Kind == FromSeries) && !strings.Contains(text, "a.") {
		add(func(n *Case) bool { n.Query.From.T1 = ""; n.Query.Tiebreak = n.Query.Tiebreak[:1]; return true })
	}
	add(func(n *Case) bool { n.Query.From.Left = false; return q.From.Left })
	if m := len(q.From.Many); m > 2 {
		// A FromMany without its last table (one no other item joins
		// on; a query still naming it fails differently and is not
		// kept), or with a LEFT join made INNER.
		last := q.From.Many[m-1].Alias
		add(func(n *Case) bool {
			n.Query.From.Many = n.Query.From.Many[:m-1]
			n.Query.From.Order = slices.DeleteFunc(n.Query.From.Order, func(o int) bool { return o == m-1 })
			n.Query.Tiebreak = slices.DeleteFunc(n.Query.Tiebreak, func(k string) bool { return k == last+".k" })
			return true
		})
		for i, it := range q.From.Many {
			add(func(n *Case) bool { n.Query.From.Many[i].Left = false; return it.Left })
		}
	}
	for i := range q.From.Array {
		add(func(n *Case) bool {
			n.Query.From.Array = slices.Delete(n.Query.From.Array, i, i+1)
			return len(q.From.Array) > 1
		})
	}
	if q.From.Kind == FromSeries && q.From.Hi > q.From.Lo {
		add(func(n *Case) bool { n.Query.From.Hi = n.Query.From.Lo + (q.From.Hi-q.From.Lo)/2; return true })
	}
	for i, s := range slots(q) {
		for j, child := range (*s.p).Args {
			if !s.top && child.Type != (*s.p).Type {
				continue
			}
			add(func(n *Case) bool {
				ns := slots(n.Query)[i]
				*ns.p = (*ns.p).Args[j]
				return true
			})
		}
	}
	for ti, t := range c.Tables {
		for ri := range t.Rows {
			add(func(n *Case) bool { n.Tables[ti].Rows = slices.Delete(n.Tables[ti].Rows, ri, ri+1); return true })
		}
		add(func(n *Case) bool { n.Tables[ti].Index = false; return t.Index })
		add(func(n *Case) bool { n.Tables[ti].Batches = 1; return t.Batches > 1 })
		for ci := 1; ci < len(t.Cols); ci++ {
			if strings.Contains(text, "."+t.Cols[ci].Name) || strings.Contains(text, " "+t.Cols[ci].Name+" ") {
				continue
			}
			add(func(n *Case) bool {
				nt := n.Tables[ti]
				nt.Cols = slices.Delete(nt.Cols, ci, ci+1)
				for k := range nt.Rows {
					nt.Rows[k] = slices.Delete(nt.Rows[k], ci, ci+1)
				}
				return true
			})
		}
	}
	return out
}
