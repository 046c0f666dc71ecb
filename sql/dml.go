package sql

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// dmlTable resolves the target of INSERT/UPDATE/DELETE and rejects the
// clauses we do not lower.
func (l *lowerer) dmlTable(rv *pg_query.RangeVar, with *pg_query.WithClause, returning []*pg_query.Node) (string, error) {
	if with != nil {
		return "", fmt.Errorf("%w: WITH", ErrUnsupported)
	}
	if len(returning) > 0 {
		return "", fmt.Errorf("%w: RETURNING", ErrUnsupported)
	}
	if rv == nil {
		return "", fmt.Errorf("%w: missing table", ErrSyntax)
	}
	name, err := l.tableName(rv)
	if err != nil {
		return "", err
	}
	// Views are read only here (PostgreSQL writes through a simple view
	// to its table; stablerow refuses the write by name).
	if _, ok, err := l.view(name); err != nil {
		return "", err
	} else if ok {
		return "", fmt.Errorf("%w: cannot change view %q: INSERT, UPDATE and DELETE of a view%s", ErrUnsupported, name, l.src.at(rv.Location))
	}
	return name, nil
}

// userColumns returns the indices of the non-system columns of cols.
func userColumns(cols []column) []int {
	var out []int
	for i, c := range cols {
		if !c.hidden {
			out = append(out, i)
		}
	}
	return out
}

// targetColumn resolves an INSERT/UPDATE target column name.
func (l *lowerer) targetColumn(cols []column, rt *pg_query.ResTarget) (int, error) {
	if len(rt.Indirection) > 0 {
		return 0, fmt.Errorf("%w: subscripted or field target column%s", ErrUnsupported, l.src.at(rt.Location))
	}
	i, err := l.lookup(&scope{cols: cols}, "", rt.Name, rt.Location)
	if err != nil {
		return 0, err
	}
	if cols[i].hidden {
		return 0, fmt.Errorf("%w: cannot assign to system column %q%s", ErrInvalid, cols[i].name, l.src.at(rt.Location))
	}
	return i, nil
}

// onConflict lowers ON CONFLICT [(col, ...) | ON CONSTRAINT name] DO
// NOTHING | DO UPDATE (upsert.go); the arbiter indexes are the engine's
// to find (infer_arbiter_indexes), which knows the table's indexes.
func (l *lowerer) onConflict(table string, rv *pg_query.RangeVar, oc *pg_query.OnConflictClause) (*OnConflict, error) {
	out := &OnConflict{}
	switch oc.Action {
	case pg_query.OnConflictAction_ONCONFLICT_NOTHING:
	case pg_query.OnConflictAction_ONCONFLICT_UPDATE:
		var err error
		if out.Update, err = l.conflictUpdate(table, rv, oc); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: ON CONFLICT action %v", ErrUnsupported, oc.Action)
	}
	loc := rv.Location
	inf := oc.Infer
	if inf == nil {
		return out, nil
	}
	if inf.WhereClause != nil {
		return nil, fmt.Errorf("%w: ON CONFLICT (...) WHERE", ErrUnsupported)
	}
	out.Constraint = inf.Conname
	if len(inf.IndexElems) == 0 {
		return out, nil
	}
	_, cols, err := l.tableSchema(table, loc)
	if err != nil {
		return nil, err
	}
	for _, n := range inf.IndexElems {
		el := n.GetIndexElem()
		if el == nil || el.Name == "" || el.Expr != nil || len(el.Opclass) > 0 || len(el.Collation) > 0 {
			return nil, fmt.Errorf("%w: ON CONFLICT on an expression, operator class or collation", ErrUnsupported)
		}
		i, err := l.lookup(&scope{cols: cols}, "", el.Name, -1)
		if err != nil {
			return nil, err
		}
		out.Columns = append(out.Columns, cols[i].name)
	}
	return out, nil
}

// insert lowers INSERT INTO t [(cols)] VALUES ... | SELECT ...; the source
// yields the target columns, each cast to its column type.
func (l *lowerer) insert(ins *pg_query.InsertStmt) (*Insert, error) {
	table, err := l.dmlTable(ins.Relation, ins.WithClause, ins.ReturningList)
	if err != nil {
		return nil, err
	}
	var onConflict *OnConflict
	if oc := ins.OnConflictClause; oc != nil {
		if onConflict, err = l.onConflict(table, ins.Relation, oc); err != nil {
			return nil, err
		}
	}
	if ins.Override != pg_query.OverridingKind_OVERRIDING_NOT_SET && ins.Override != pg_query.OverridingKind_OVERRIDING_KIND_UNDEFINED {
		return nil, fmt.Errorf("%w: OVERRIDING", ErrUnsupported)
	}
	_, cols, err := l.tableSchema(table, ins.Relation.Location)
	if err != nil {
		return nil, err
	}
	targets := userColumns(cols)
	explicit := len(ins.Cols) > 0
	if explicit {
		targets = targets[:0:0]
		seen := map[int]bool{}
		for _, n := range ins.Cols {
			i, err := l.targetColumn(cols, n.GetResTarget())
			if err != nil {
				return nil, err
			}
			if seen[i] {
				return nil, fmt.Errorf("%w: column %q specified more than once", ErrInvalid, cols[i].name)
			}
			seen[i] = true
			targets = append(targets, i)
		}
	}
	sel := ins.SelectStmt.GetSelectStmt()
	if sel == nil {
		return nil, fmt.Errorf("%w: INSERT ... DEFAULT VALUES", ErrUnsupported)
	}
	var rel plan.Rel
	var width int
	if len(sel.ValuesLists) > 0 {
		rel, width, err = l.values(sel, cols, targets, explicit)
	} else {
		rel, width, err = l.insertSelect(sel, cols, targets, explicit)
	}
	if err != nil {
		return nil, err
	}
	targets = targets[:width]
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = cols[t].name
	}
	checks, err := l.checksOf(table) // check.go
	if err != nil {
		return nil, err
	}
	if len(checks) > 0 {
		if rel, err = l.insertChecks(rel, cols, targets, checks); err != nil {
			return nil, err
		}
		names = names[:0]
		for _, u := range userColumns(cols) {
			names = append(names, cols[u].name)
		}
		names = append(names, checkNames(checks)...)
		explicit, targets = false, userColumns(cols)
	}
	q, err := l.query(rel, names)
	if err != nil {
		return nil, err
	}
	if onConflict != nil {
		if err := l.finishConflictUpdate(onConflict); err != nil { // upsert.go
			return nil, err
		}
		// The source's parameters are the statement's, the action's
		// included.
		if onConflict.Update != nil && len(onConflict.Update.Action.ParamNames) > len(q.ParamNames) {
			q.ParamNames = onConflict.Update.Action.ParamNames
		}
	}
	out := &Insert{Table: table, Source: q, OnConflict: onConflict, Checks: checkNames(checks)}
	if explicit || len(targets) < len(userColumns(cols)) {
		out.Columns = names
	}
	return out, nil
}

// insertChecks widens an INSERT's source rel (one column per target) to
// the table's row, a column not targeted NULL (stablerow has no
// DEFAULT), and appends the checks' values over that row, as
// PostgreSQL's ExecConstraints tests the whole new tuple.
func (l *lowerer) insertChecks(rel plan.Rel, cols []column, targets []int, checks []Check) (plan.Rel, error) {
	rt := rel.RecordType()
	in := &scope{}
	for i := range int(rt.FieldCount()) {
		in.cols = append(in.cols, column{typ: rt.GetFieldRef(int32(i))})
	}
	user := userColumns(cols)
	exprs := make([]expr.Expression, len(user))
	remap := make([]int32, len(user))
	for i, u := range user {
		remap[i] = int32(len(in.cols) + i)
		j := slices.Index(targets, u)
		if j < 0 {
			exprs[i] = expr.NewNullLiteral(kindOf(cols[u].typ).Type(true))
			continue
		}
		ref, err := in.ref(j)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		exprs[i] = ref
	}
	full, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	row := make([]column, len(user))
	for i, u := range user {
		row[i] = column{qual: cols[u].qual, name: cols[u].name, typ: exprs[i].GetType()}
	}
	return l.withChecks(full, row, checks)
}

// checkWidth compares a source's column count with the targets. Without a
// column list Postgres fills the trailing columns with NULL.
func checkWidth(n, targets int, explicit bool) error {
	switch {
	case n > targets:
		return fmt.Errorf("%w: INSERT has more expressions than target columns", ErrInvalid)
	case n < targets && explicit:
		return fmt.Errorf("%w: INSERT has more target columns than expressions", ErrInvalid)
	}
	return nil
}

// values lowers VALUES rows to a VirtualTable whose cells are literals (or
// expressions, for parameters and arithmetic) of the nullable target types.
func (l *lowerer) values(sel *pg_query.SelectStmt, cols []column, targets []int, explicit bool) (plan.Rel, int, error) {
	if len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil || sel.WithClause != nil {
		return nil, 0, fmt.Errorf("%w: ORDER BY, LIMIT or WITH on VALUES", ErrUnsupported)
	}
	width := len(sel.ValuesLists[0].GetList().GetItems())
	if err := checkWidth(width, len(targets), explicit); err != nil {
		return nil, 0, err
	}
	rows := make([]expr.VirtualTableExpressionValue, len(sel.ValuesLists))
	subs := false
	for r, vl := range sel.ValuesLists {
		items := vl.GetList().GetItems()
		if len(items) != width {
			return nil, 0, fmt.Errorf("%w: VALUES lists must all be the same length", ErrInvalid)
		}
		l.markScalars(items...)
		subs = subs || hasSubLink(vl.GetList()) // values_sub.go
		row := make(expr.VirtualTableExpressionValue, width)
		for i, n := range items {
			if _, ok := n.Node.(*pg_query.Node_SetToDefault); ok {
				return nil, 0, fmt.Errorf("%w: DEFAULT in VALUES", ErrUnsupported)
			}
			v, err := l.expr(n, &scope{noAggs: "in VALUES"})
			if err != nil {
				return nil, 0, err
			}
			k := kindOf(cols[targets[i]].typ)
			e, err := l.assign(v, k)
			if err != nil {
				return nil, 0, fmt.Errorf("column %q: %w", cols[targets[i]].name, err)
			}
			row[i] = nullable(e)
		}
		rows[r] = row
	}
	names := make([]string, width)
	for i := range names {
		names[i] = cols[targets[i]].name
	}
	var rel plan.Rel
	var err error
	if subs {
		rel, err = l.valuesRows(rows)
	} else {
		rel, err = l.b.VirtualTableFromExpr(names, rows...)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: VALUES: %w", ErrInvalid, err)
	}
	return rel, width, nil
}

// nullable gives e a nullable type so every VALUES row has the same types.
func nullable(e expr.Expression) expr.Expression {
	t := e.GetType()
	if isNullable(t) {
		return e
	}
	if lit, ok := literalOf(e); ok && lit != nil {
		return newLiteral(lit, true)
	}
	return &expr.Cast{Type: t.WithNullability(types.NullabilityNullable), Input: e, FailureBehavior: types.BehaviorThrowException}
}

// insertSelect lowers the SELECT of INSERT ... SELECT and casts its columns
// to the target types with a projection when they differ.
func (l *lowerer) insertSelect(sel *pg_query.SelectStmt, cols []column, targets []int, explicit bool) (plan.Rel, int, error) {
	want := make([]kind, len(targets))
	for i, t := range targets {
		want[i] = kindOf(cols[t].typ)
	}
	rel, _, err := l.selectStmt(sel, want)
	if err != nil {
		return nil, 0, err
	}
	rt := rel.RecordType()
	width := int(rt.FieldCount())
	if err := checkWidth(width, len(targets), explicit); err != nil {
		return nil, 0, err
	}
	in := &scope{}
	for i := range width {
		in.cols = append(in.cols, column{typ: rt.GetFieldRef(int32(i))})
	}
	exprs := make([]expr.Expression, width)
	remap := make([]int32, width)
	same := true
	for i := range width {
		ref, err := in.ref(i)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		k := kindOf(cols[targets[i]].typ)
		e, err := l.assign(value{e: ref}, k)
		if err != nil {
			return nil, 0, fmt.Errorf("column %q: %w", cols[targets[i]].name, err)
		}
		if err := l.assignedConstant(sel, rel, i, k); err != nil {
			return nil, 0, fmt.Errorf("column %q: %w", cols[targets[i]].name, err)
		}
		same = same && e == expr.Expression(ref)
		exprs[i] = e
		remap[i] = int32(width + i)
	}
	if same {
		return rel, width, nil
	}
	proj, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	return proj, width, nil
}

// delete lowers DELETE FROM t [WHERE c] to SELECT _rowid FROM t [WHERE c].
func (l *lowerer) delete(d *pg_query.DeleteStmt) (*Delete, error) {
	table, err := l.dmlTable(d.Relation, d.WithClause, d.ReturningList)
	if err != nil {
		return nil, err
	}
	if len(d.UsingClause) > 0 {
		return nil, fmt.Errorf("%w: DELETE ... USING", ErrUnsupported)
	}
	rel, sc, err := l.table(d.Relation)
	if err != nil {
		return nil, err
	}
	if d.WhereClause != nil {
		if rel, err = l.filter(rel, sc, d.WhereClause); err != nil {
			return nil, err
		}
	}
	id, err := l.rowIDRef(sc)
	if err != nil {
		return nil, err
	}
	rel, err = l.b.ProjectRemap(rel, []int32{int32(len(sc.cols))}, id)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	q, err := l.query(rel, []string{colRowID})
	if err != nil {
		return nil, err
	}
	return &Delete{Table: table, Rows: q}, nil
}

func (l *lowerer) rowIDRef(sc *scope) (expr.Expression, error) {
	for i, c := range sc.cols {
		if c.hidden && strings.EqualFold(c.name, colRowID) {
			return sc.ref(i)
		}
	}
	return nil, fmt.Errorf("%w: table has no %s column", ErrInvalid, colRowID)
}

// update lowers UPDATE t SET c = e, ... [WHERE cond] to SELECT _rowid,
// <every user column, assigned ones replaced and cast> FROM t [WHERE cond].
func (l *lowerer) update(u *pg_query.UpdateStmt) (*Update, error) {
	table, err := l.dmlTable(u.Relation, u.WithClause, u.ReturningList)
	if err != nil {
		return nil, err
	}
	if len(u.FromClause) > 0 {
		return nil, fmt.Errorf("%w: UPDATE ... FROM", ErrUnsupported)
	}
	rel, sc, err := l.table(u.Relation)
	if err != nil {
		return nil, err
	}
	set := map[int]*pg_query.Node{}
	for _, n := range u.TargetList {
		rt := n.GetResTarget()
		if rt == nil {
			return nil, fmt.Errorf("%w: SET item", ErrUnsupported)
		}
		switch rt.Val.GetNode().(type) {
		case *pg_query.Node_MultiAssignRef:
			return nil, fmt.Errorf("%w: multiple-column SET", ErrUnsupported)
		case *pg_query.Node_SetToDefault:
			return nil, fmt.Errorf("%w: SET ... = DEFAULT", ErrUnsupported)
		}
		i, err := l.targetColumn(sc.cols, rt)
		if err != nil {
			return nil, err
		}
		if set[i] != nil {
			return nil, fmt.Errorf("%w: multiple assignments to column %q", ErrInvalid, sc.cols[i].name)
		}
		set[i] = rt.Val
	}
	// The filter keeps the scan's record, so the SET expressions and the
	// _rowid reference are lowered over sc either way.
	if u.WhereClause != nil {
		if rel, err = l.filter(rel, sc, u.WhereClause); err != nil {
			return nil, err
		}
	}
	id, err := l.rowIDRef(sc)
	if err != nil {
		return nil, err
	}
	exprs := []expr.Expression{id}
	names := []string{colRowID}
	es := *sc
	es.noAggs = "in UPDATE"
	for _, i := range userColumns(sc.cols) {
		e, err := sc.ref(i)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if n := set[i]; n != nil {
			// A scalar subquery is a value of the row, correlated or
			// not: the optimizer joins it to the scan (a LEFT SINGLE
			// join keeps each row once, and its _rowid).
			l.markScalars(n)
			v, err := l.expr(n, &es)
			if err != nil {
				return nil, err
			}
			if e, err = l.assign(v, kindOf(sc.cols[i].typ)); err != nil {
				return nil, fmt.Errorf("column %q: %w", sc.cols[i].name, err)
			}
		}
		exprs = append(exprs, e)
		names = append(names, sc.cols[i].name)
	}
	remap := make([]int32, len(exprs))
	for i := range remap {
		remap[i] = int32(len(sc.cols) + i)
	}
	rel, err = l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	checks, err := l.checksOf(table) // check.go
	if err != nil {
		return nil, err
	}
	if len(checks) > 0 {
		// The checks read the new row: _rowid (hidden), then the user
		// columns as assigned.
		row := []column{{name: colRowID, typ: exprs[0].GetType(), hidden: true}}
		for i, n := range names[1:] {
			row = append(row, column{qual: table, name: n, typ: exprs[i+1].GetType()})
		}
		if rel, err = l.withChecks(rel, row, checks); err != nil {
			return nil, err
		}
		names = append(names, checkNames(checks)...)
	}
	q, err := l.query(rel, names)
	if err != nil {
		return nil, err
	}
	return &Update{Table: table, Rows: q, Checks: checkNames(checks)}, nil
}

// assignedConstant is the error PostgreSQL raises while planning the
// assignment cast of INSERT ... SELECT's item i to kind k, when the item
// is a constant: it pulls a simple SELECT (simpleSubquery) up into the
// INSERT (pull_up_subqueries), so the cast applies to the
// constant and eval_const_expressions folds it, raising also when no row
// is selected (INSERT INTO t (n) SELECT 1009999.99 FROM
// generate_series(2, -2) raises numeric field overflow for a
// numeric(8,2) n; seed 20261206 case 12082). The item is any constant
// expression, not only a literal: PostgreSQL folds it bottom-up before
// the cast over it (round(123456.78, 2) - 2147483647 is a constant whose
// cast to numeric(8,2) overflows; seed 1 case 2780), and the cast over a
// call the lowering left unfolded is evaluated as one (raisingConstant).
// nil otherwise.
func (l *lowerer) assignedConstant(sel *pg_query.SelectStmt, rel plan.Rel, i int, k kind) error {
	if !simpleSubquery(sel) {
		return nil
	}
	item, ok := projectItem(rel, i)
	if !ok {
		return nil
	}
	if lit, ok := literalOf(item); ok && lit == nil {
		return nil // NULL casts to NULL
	}
	e, err := l.assign(value{e: item}, k)
	if err != nil {
		return err
	}
	return raisingConstant(e)
}
