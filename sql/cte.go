package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// cteDef is one WITH query in scope. It is lowered again at each
// reference (Substrait has no CTE): the lowerings are byte-equal
// Substrait, which the planner compiles once and runs once per execution
// (plan/shared.go), as PostgreSQL materializes a CTE read twice.
type cteDef struct {
	name    string
	cols    []string // column aliases, may be fewer than the columns
	query   *pg_query.SelectStmt
	visible int // how many of lowerer.ctes its body sees (the earlier ones)
	loc     int32
}

// with brings a WITH clause's queries into scope for the statement; the
// returned func takes them out again.
func (l *lowerer) with(w *pg_query.WithClause) (func(), error) {
	n := len(l.ctes)
	pop := func() { l.ctes = l.ctes[:n] }
	if w == nil {
		return pop, nil
	}
	if w.Recursive {
		return pop, fmt.Errorf("%w: WITH RECURSIVE%s", ErrUnsupported, l.src.at(w.Location))
	}
	for _, item := range w.Ctes {
		c := item.GetCommonTableExpr()
		if c == nil {
			return pop, fmt.Errorf("%w: WITH item%s", ErrUnsupported, l.src.at(w.Location))
		}
		q := c.Ctequery.GetSelectStmt()
		if q == nil {
			return pop, fmt.Errorf("%w: data-modifying statement in WITH%s", ErrUnsupported, l.src.at(c.Location))
		}
		if c.SearchClause != nil || c.CycleClause != nil {
			return pop, fmt.Errorf("%w: SEARCH or CYCLE in WITH%s", ErrUnsupported, l.src.at(c.Location))
		}
		for _, d := range l.ctes[n:] {
			if d.name == c.Ctename {
				return pop, fmt.Errorf("%w: WITH query name %q specified more than once%s", ErrInvalid, c.Ctename, l.src.at(c.Location))
			}
		}
		def := cteDef{name: c.Ctename, query: q, visible: len(l.ctes), loc: c.Location}
		for _, a := range c.Aliascolnames {
			def.cols = append(def.cols, a.GetString_().GetSval())
		}
		l.ctes = append(l.ctes, def)
	}
	return pop, nil
}

// cte returns the innermost WITH query named name, if any.
func (l *lowerer) cte(name string) (cteDef, bool) {
	for i := len(l.ctes) - 1; i >= 0; i-- {
		if l.ctes[i].name == name {
			return l.ctes[i], true
		}
	}
	return cteDef{}, false
}

// cteRef lowers a FROM reference to a WITH query: its body, with the WITH
// queries it could see where it was defined.
func (l *lowerer) cteRef(def cteDef, rv *pg_query.RangeVar) (plan.Rel, *scope, error) {
	saved := l.ctes
	l.ctes = l.ctes[:def.visible:def.visible]
	rel, names, err := l.selectStmt(def.query, nil)
	l.ctes = saved
	if err != nil {
		return nil, nil, err
	}
	if len(def.cols) > len(names) {
		return nil, nil, fmt.Errorf("%w: WITH query %q has %d columns available but %d columns specified%s", ErrInvalid, def.name, len(names), len(def.cols), l.src.at(def.loc))
	}
	copy(names, def.cols)
	return l.derivedScope(rel, names, def.name, rv.Alias)
}

// derived lowers a subquery in FROM.
func (l *lowerer) derived(rs *pg_query.RangeSubselect) (plan.Rel, *scope, error) {
	// LATERAL with no FROM item before it to name (the first item, a
	// join's left side) is a plain subquery; after one it is lowered by
	// lateralItem (lateral.go).
	q := rs.Subquery.GetSelectStmt()
	if q == nil {
		return nil, nil, fmt.Errorf("%w: subquery in FROM", ErrUnsupported)
	}
	// Inside a subquery it may name the enclosing queries, as its WHERE
	// may (outer references; the optimizer unnests them).
	l.corrNext = l.outer != nil
	rel, names, err := l.selectStmt(q, nil)
	if err != nil {
		return nil, nil, err
	}
	rel, sc, err := l.derivedScope(rel, names, "", rs.Alias)
	if err == nil {
		pulledConstants(q, rel, sc)
	}
	return rel, sc, err
}

// derivedScope is the scope of a FROM item that is a query: its output
// columns under qual, then the alias applied.
func (l *lowerer) derivedScope(rel plan.Rel, names []string, qual string, a *pg_query.Alias) (plan.Rel, *scope, error) {
	ts := rel.RecordType().Types()
	cols := make([]column, len(names))
	for i := range cols {
		cols[i] = column{qual: qual, name: names[i], typ: ts[i]}
	}
	if a != nil && len(a.Colnames) > len(cols) {
		return nil, nil, fmt.Errorf("%w: %q has %d columns available but %d columns specified", ErrInvalid, a.Aliasname, len(cols), len(a.Colnames))
	}
	if err := l.alias(a, cols); err != nil {
		return nil, nil, err
	}
	return rel, &scope{cols: cols}, nil
}
