package difftest

import (
	"fmt"
	"strings"
)

// Expr is a generated expression. It is kept as a tree (not text) so the
// shrinker can replace a node by one of its children.
type Expr struct {
	Op   string // col lit bin neg not and or cmp isnull isnotnull in notin cast row items exists notexists insub notinsub scalar agg aggdistinct
	Type Type
	Text string // column name, literal text, operator, or cast target
	Args []*Expr
	// Sub is the subquery of exists, notexists, insub, notinsub (x [NOT]
	// IN (Sub), x is Args[0]) and scalar.
	Sub *Sub
	// Raises: evaluating it can raise (overflow, division by zero, a
	// failed cast). Such nodes are kept out of the operands of AND, OR and
	// IN lists, whose evaluation PostgreSQL may cut short (its documented
	// "expression evaluation rules": the order is not defined), and out of
	// join WHERE clauses PostgreSQL may push below the join.
	Raises bool
}

// SQL renders the expression, fully parenthesized: the same text runs on
// both sides, so precedence can never differ.
func (e *Expr) SQL() string {
	a := func(i int) string { return e.Args[i].SQL() }
	switch e.Op {
	case "col", "lit":
		return e.Text
	case "bin", "cmp":
		return "(" + a(0) + " " + e.Text + " " + a(1) + ")"
	case "neg":
		return "(-" + a(0) + ")"
	case "not":
		return "(NOT " + a(0) + ")"
	case "and":
		return "(" + a(0) + " AND " + a(1) + ")"
	case "or":
		return "(" + a(0) + " OR " + a(1) + ")"
	case "isnull":
		return "(" + a(0) + " IS NULL)"
	case "isnotnull":
		return "(" + a(0) + " IS NOT NULL)"
	case "in", "notin":
		var xs []string
		for _, x := range e.Args[1:] {
			xs = append(xs, x.SQL())
		}
		kw := " IN ("
		if e.Op == "notin" {
			kw = " NOT IN ("
		}
		return "(" + a(0) + kw + strings.Join(xs, ", ") + "))"
	case "cast":
		return "CAST(" + a(0) + " AS " + e.Text + ")"
	case "row", "items": // a row and a subquery's select list (genrowin.go)
		xs := make([]string, len(e.Args))
		for i, x := range e.Args {
			xs[i] = x.SQL()
		}
		if e.Op == "items" {
			return strings.Join(xs, ", ")
		}
		return "(" + strings.Join(xs, ", ") + ")"
	case "exists":
		return "EXISTS (" + e.Sub.SQL() + ")"
	case "notexists":
		return "(NOT EXISTS (" + e.Sub.SQL() + "))"
	case "insub":
		return "(" + a(0) + " IN (" + e.Sub.SQL() + "))"
	case "notinsub":
		return "(" + a(0) + " NOT IN (" + e.Sub.SQL() + "))"
	case "scalar":
		return "(" + e.Sub.SQL() + ")"
	case "agg": // Text is the function; no argument: count(*)
		if len(e.Args) == 0 {
			return e.Text + "(*)"
		}
		return e.Text + "(" + a(0) + ")"
	case "aggdistinct":
		return e.Text + "(DISTINCT " + a(0) + ")"
	case "aggfilter": // gengrouping.go
		return aggFilterSQL(e)
	case "grouping": // gengrouping.go
		return groupingSQL(e)
	case "orderedset": // gengrouping.go
		return orderedSetSQL(e)
	case "window": // genwindow.go: the whole call
		return e.Text
	case "between", "notbetween":
		kw := " BETWEEN "
		if e.Op == "notbetween" {
			kw = " NOT BETWEEN "
		}
		return "(" + a(0) + kw + a(1) + " AND " + a(2) + ")"
	}
	if s, ok := e.scalarSQL(); ok {
		return s
	}
	panic("difftest: unknown expression op " + e.Op)
}

// Sub is a subquery: SELECT Item FROM Table AS s [WHERE Where]. Where may
// name the outer query's columns (a correlated subquery).
type Sub struct {
	Table string
	Item  *Expr // nil: SELECT 1
	Where *Expr
	Alias string   // the table's alias ("": s); nested subqueries need their own (gendeep.go)
	Join  *SubJoin // a second FROM item joined to the first (gen_sub28c.go)
}

// SQL renders the subquery.
func (s *Sub) SQL() string {
	item := "1"
	if s.Item != nil {
		item = s.Item.SQL()
	}
	alias := s.Alias
	if alias == "" {
		alias = "s"
	}
	q := "SELECT " + item + " FROM " + s.Table + " AS " + alias
	if j := s.Join; j != nil {
		q += " " + j.Kind + " JOIN " + j.Table + " AS " + j.Alias + " ON " + j.On.SQL()
	}
	if s.Where != nil {
		q += " WHERE " + s.Where.SQL()
	}
	return q
}

// FromKind is the shape of a FROM clause.
type FromKind int

const (
	FromTable   FromKind = iota // t AS a
	FromJoin                    // t AS a [LEFT|RIGHT|FULL] JOIN u AS b ON a.x op b.y [AND e], CROSS JOIN, or t AS a, u AS b WHERE a.x op b.y [AND e]
	FromUnnest                  // UNNEST(ARRAY[...]) WITH ORDINALITY AS v(x, o) [LEFT JOIN t AS a ON a.k = v.x]
	FromSeries                  // generate_series(lo, hi) AS g(g) [JOIN t AS a ON a.k = g.g]
	FromMany                    // 3 to 12 tables: t AS a JOIN u AS b ON ... [LEFT] JOIN ..., or t AS a, u AS b, ... WHERE ... (genjoins.go)
	FromLateral                 // t AS a, LATERAL (...) AS x, or a JOIN LATERAL: T1 is the rendered item (genlateral.go)
)

// From is a FROM clause.
type From struct {
	Kind   FromKind
	T0, T1 string // table names (T1: the joined one)
	Left   bool   // LEFT JOIN
	Join   string // FromJoin's type: "", "LEFT", "RIGHT", "FULL", "CROSS" (then no ON) or "LIST" (ON in WHERE)
	On     [2]string
	OnOp   string     // FromJoin's ON comparison; "": =
	OnAnd  *Expr      // FromJoin: a further ON conjunct, or nil
	Using  []string   // FromJoin: JOIN ... USING (these) in place of ON (genusing.go)
	Array  []string   // UNNEST's literal elements
	Lo, Hi int64      // generate_series bounds
	Step   int64      // generate_series step; 0: none (two arguments)
	Many   []ManyItem // FromMany's tables, in join order (item 0 has no ON)
	List   bool       // FromMany as a FROM list: the ONs are in WHERE
	Order  []int      // FromMany as a FROM list: the order the items are written in
}

// ManyItem is one table of a FromMany: it joins an earlier item on
// OnL = OnR (a column of an earlier alias, one of its own).
type ManyItem struct {
	Table, Alias string
	Left         bool // LEFT JOIN (not in a FROM list)
	OnL, OnR     string
}

// SQL renders the FROM clause.
func (f *From) SQL() string {
	join := " JOIN "
	if f.Left {
		join = " LEFT JOIN "
	}
	switch f.Kind {
	case FromTable:
		return f.T0 + " AS a"
	case FromLateral:
		return f.T0 + " AS a" + f.T1
	case FromJoin:
		switch f.Join {
		case "CROSS":
			return f.T0 + " AS a CROSS JOIN " + f.T1 + " AS b"
		case "LEFT", "RIGHT", "FULL":
			join = " " + f.Join + " JOIN "
		case "LIST": // the condition is in WHERE (listCond)
			return f.T0 + " AS a, " + f.T1 + " AS b"
		}
		if len(f.Using) > 0 {
			return f.T0 + " AS a" + join + f.T1 + " AS b USING (" + strings.Join(f.Using, ", ") + ")"
		}
		op := f.OnOp
		if op == "" {
			op = "="
		}
		on := f.On[0] + " " + op + " " + f.On[1]
		if f.OnAnd != nil {
			on = "(" + on + ") AND " + f.OnAnd.SQL()
		}
		return f.T0 + " AS a" + join + f.T1 + " AS b ON " + on
	case FromMany:
		if f.List {
			items := make([]string, len(f.Order))
			for i, o := range f.Order {
				items[i] = f.Many[o].Table + " AS " + f.Many[o].Alias
			}
			return strings.Join(items, ", ")
		}
		s := f.Many[0].Table + " AS " + f.Many[0].Alias
		for _, it := range f.Many[1:] {
			j := " JOIN "
			if it.Left {
				j = " LEFT JOIN "
			}
			s += j + it.Table + " AS " + it.Alias + " ON " + it.OnL + " = " + it.OnR
		}
		return s
	case FromUnnest:
		s := "UNNEST(ARRAY[" + strings.Join(f.Array, ", ") + "]) WITH ORDINALITY AS v(x, o)"
		if f.T1 != "" {
			s += join + f.T1 + " AS a ON a.k = v.x"
		}
		return s
	default:
		s := fmt.Sprintf("generate_series(%d, %d) AS g(g)", f.Lo, f.Hi)
		if f.Step != 0 {
			s = fmt.Sprintf("generate_series(%d, %d, %d) AS g(g)", f.Lo, f.Hi, f.Step)
		}
		if f.T1 != "" {
			s += join + f.T1 + " AS a ON a.k = g.g"
		}
		return s
	}
}

// listCond is a FROM list's join condition (FROM a, b WHERE a.x op b.y
// [AND e]): the ON condition of the other joins, written in WHERE.
func (f *From) listCond() string {
	if f.Kind == FromMany && f.List {
		var cs []string
		for _, it := range f.Many[1:] {
			cs = append(cs, "("+it.OnL+" = "+it.OnR+")")
		}
		return strings.Join(cs, " AND ")
	}
	if f.Kind != FromJoin || f.Join != "LIST" {
		return ""
	}
	op := f.OnOp
	if op == "" {
		op = "="
	}
	c := "(" + f.On[0] + " " + op + " " + f.On[1] + ")"
	if f.OnAnd != nil {
		c += " AND " + f.OnAnd.SQL()
	}
	return c
}

// Order is one ORDER BY key.
type Order struct {
	E     *Expr
	Desc  bool
	Nulls string // "", "FIRST" or "LAST"
}

// Query is a generated SELECT.
type Query struct {
	From    From
	Select  []*Expr
	Count   bool  // SELECT count(*)[, count(e)]: Select holds e, if any
	Where   *Expr // nil: none
	OrderBy []Order
	// Tiebreak are the keys that make the order total (unique per row);
	// they follow OrderBy whenever it is not empty.
	Tiebreak      []string
	Limit, Offset int64 // -1: none
	// Grouped queries (genagg.go): GROUP BY items as text (an ordinal or
	// an expression), HAVING, SELECT DISTINCT, and ORDER BY every output
	// column by position (OrderAll; the output rows are then in a total
	// order up to equal rows, and Tiebreak is empty).
	GroupBy  []string
	Having   *Expr
	Distinct bool
	OrderAll bool
	// DistinctOn: SELECT DISTINCT ON the first DistinctOn ORDER BY keys
	// (gendistincton.go); 0: none.
	DistinctOn int
	// Set: this query OP [ALL] Set.Right; ORDER BY (OrderAll), LIMIT and
	// OFFSET apply to the result.
	Set *SetQuery
	// CTE: WITH CTE.Name AS (...) before the query, read by both sides of
	// a self join in place of the table (nil: none).
	CTE *CTE
}

// CTE is WITH Name AS (SELECT DISTINCT * FROM Table AS a [WHERE Where]):
// the table's rows (its key k makes every row distinct), through an
// aggregation, so a plan that reads it twice shares one run of it
// (exec.SharedExec) where PostgreSQL materializes it or inlines it.
type CTE struct {
	Name, Table string
	Where       *Expr // over the table's columns as a.*; nil: none
	// Values: read the table's rows as a VALUES list (genvalues.go).
	Values *Table
}

func (c *CTE) SQL() string {
	from := c.Table + " AS a"
	if c.Values != nil {
		from = valuesItem(c.Values)
	}
	s := "WITH " + c.Name + " AS (SELECT DISTINCT * FROM " + from
	if c.Where != nil {
		s += " WHERE " + c.Where.SQL()
	}
	return s + ") "
}

// SetQuery is the right side of UNION, INTERSECT or EXCEPT [ALL].
type SetQuery struct {
	Op    string // UNION, INTERSECT, EXCEPT
	All   bool
	Right *Query
}

// Ordered reports whether the result order is defined (compare as lists);
// otherwise results compare as multisets.
func (q *Query) Ordered() bool { return len(q.OrderBy) > 0 || q.OrderAll }

// tail renders ORDER BY every column by position, LIMIT and OFFSET.
func (q *Query) tail(b *strings.Builder) {
	if q.OrderAll {
		keys := make([]string, len(q.Select))
		for i := range keys {
			keys[i] = fmt.Sprint(i + 1)
		}
		b.WriteString(" ORDER BY " + strings.Join(keys, ", "))
	}
	if q.Limit >= 0 {
		fmt.Fprintf(b, " LIMIT %d", q.Limit)
	}
	if q.Offset >= 0 {
		fmt.Fprintf(b, " OFFSET %d", q.Offset)
	}
}

// SQL renders the query.
func (q *Query) SQL() string {
	var b strings.Builder
	if q.CTE != nil {
		b.WriteString(q.CTE.SQL())
	}
	if q.Set != nil {
		left := *q
		left.Set, left.OrderAll, left.OrderBy, left.Limit, left.Offset = nil, false, nil, -1, -1
		left.CTE = nil // the WITH above covers both sides
		op := q.Set.Op
		if q.Set.All {
			op += " ALL"
		}
		b.WriteString("(" + left.SQL() + ") " + op + " (" + q.Set.Right.SQL() + ")")
		q.tail(&b)
		return b.String()
	}
	b.WriteString("SELECT ")
	if q.Distinct {
		b.WriteString("DISTINCT ")
	}
	if n := min(q.DistinctOn, len(q.OrderBy)); n > 0 {
		var keys []string
		for _, o := range q.OrderBy[:n] {
			keys = append(keys, o.E.SQL())
		}
		b.WriteString("DISTINCT ON (" + strings.Join(keys, ", ") + ") ")
	}
	var items []string
	if q.Count {
		items = append(items, "count(*)")
		for _, e := range q.Select {
			items = append(items, "count("+e.SQL()+")")
		}
	} else {
		for _, e := range q.Select {
			items = append(items, e.SQL())
		}
	}
	b.WriteString(strings.Join(items, ", "))
	b.WriteString(" FROM " + q.From.SQL())
	var where []string
	if c := q.From.listCond(); c != "" {
		where = append(where, c)
	}
	if q.Where != nil {
		where = append(where, q.Where.SQL())
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if len(q.GroupBy) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(q.GroupBy, ", "))
	}
	if q.Having != nil {
		b.WriteString(" HAVING " + q.Having.SQL())
	}
	if q.OrderAll {
		q.tail(&b)
		return b.String()
	}
	if len(q.OrderBy) > 0 {
		var keys []string
		for _, o := range q.OrderBy {
			k := o.E.SQL()
			if o.Desc {
				k += " DESC"
			}
			if o.Nulls != "" {
				k += " NULLS " + o.Nulls
			}
			keys = append(keys, k)
		}
		keys = append(keys, q.Tiebreak...)
		b.WriteString(" ORDER BY " + strings.Join(keys, ", "))
	}
	if q.Limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", q.Limit)
	}
	if q.Offset >= 0 {
		fmt.Fprintf(&b, " OFFSET %d", q.Offset)
	}
	return b.String()
}

// Case is one differential test case: tables, setup DML, one query.
type Case struct {
	Tables []*Table
	DML    []string // INSERT ... SELECT, DELETE, UPDATE run after the inserts
	// DMLExprs are the expressions of each DML statement (the known
	// divergence matchers look at them; the shrinker does not edit them).
	DMLExprs [][]*Expr
	Query    *Query
}

// Setup is the statements that build the case's tables, in order; both
// sides run exactly these texts.
func (c *Case) Setup() []string {
	var out []string
	for _, t := range c.Tables {
		var cols []string
		for _, col := range t.Cols {
			s := col.Name + " " + col.Type.SQL()
			if col.NotNull {
				s += " NOT NULL"
			}
			cols = append(cols, s)
		}
		out = append(out, "CREATE TABLE "+t.Name+" ("+strings.Join(cols, ", ")+")")
		parts := splitRows(t.Rows, t.Batches)
		for i, rows := range parts {
			if len(rows) > 0 {
				var vals []string
				for _, r := range rows {
					vals = append(vals, "("+strings.Join(r, ", ")+")")
				}
				out = append(out, "INSERT INTO "+t.Name+" VALUES "+strings.Join(vals, ", "))
			}
			if i == 0 && t.Index {
				out = append(out, "CREATE INDEX "+t.Name+"_k ON "+t.Name+" USING btree (k)")
			}
		}
	}
	return append(out, c.DML...)
}

func splitRows(rows [][]string, n int) [][][]string {
	if n <= 1 || len(rows) < 2 {
		return [][][]string{rows}
	}
	h := len(rows) / 2
	return [][][]string{rows[:h], rows[h:]}
}

// SubJoin is a subquery's second FROM item, joined to its first
// (gen_sub28c.go).
type SubJoin struct {
	Kind  string // INNER, LEFT, RIGHT, FULL
	Table string
	Alias string
	On    *Expr
}
