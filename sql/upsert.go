package sql

import (
	"fmt"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// ConflictPairs names the relation ON CONFLICT DO UPDATE's action reads
// (ConflictUpdate.Action): one row per proposed row that conflicts with
// an existing one, which the engine provides while the statement runs.
// No SQL identifier holds a NUL, so no table can shadow it.
const ConflictPairs = "\x00on conflict pairs"

// ConflictUpdate is ON CONFLICT ... DO UPDATE SET ... [WHERE cond]: what
// PostgreSQL's ExecOnConflictUpdate evaluates over the existing row and
// the proposed one (EXCLUDED).
type ConflictUpdate struct {
	// Action is SELECT o, <every user column of the updated row, in table
	// order, cast to its type>, <one boolean per CHECK constraint over
	// it> FROM ConflictPairs WHERE cond. ConflictPairs has the columns
	// o (int64, the pair's number, returned as is), e0, e1, ... (the
	// existing row's user columns, typed as the table's) and x0, x1, ...
	// (the proposed row's); a pair WHERE does not hold yields no row.
	Action *Query
	// Checks name the table's CHECK constraints whose values end each row
	// of Action (as Update.Checks).
	Checks []string
	// rel and names are Action before it is wrapped as a Query, which
	// waits for the INSERT's source (finishConflictUpdate).
	rel   plan.Rel
	names []string
}

// conflictUpdate lowers DO UPDATE's SET list and WHERE over the pair of
// the existing row (named as the target table, or its alias: INSERT INTO
// t AS x) and the proposed row (EXCLUDED), as transformOnConflictClause
// puts both in the namespace: an unqualified name both have is ambiguous,
// as in PostgreSQL.
func (l *lowerer) conflictUpdate(table string, rv *pg_query.RangeVar, oc *pg_query.OnConflictClause) (*ConflictUpdate, error) {
	if oc.Infer == nil {
		// transformOnConflictArbiter: DO UPDATE must know which row it
		// updates, so it needs an arbiter named.
		return nil, fmt.Errorf("%w: ON CONFLICT DO UPDATE requires inference specification or constraint name%s", ErrSyntax, l.src.at(oc.Location))
	}
	_, tcols, err := l.tableSchema(table, rv.Location)
	if err != nil {
		return nil, err
	}
	qual := table
	if rv.Alias != nil {
		qual = rv.Alias.Aliasname
	}
	user := userColumns(tcols)
	// The pairs' record: o, the existing row, the proposed row.
	i64 := &types.Int64Type{Nullability: types.NullabilityRequired}
	ns := types.NamedStruct{Names: []string{"o"}, Struct: types.StructType{Nullability: types.NullabilityRequired, Types: []types.Type{i64}}}
	sc := &scope{cols: []column{{name: "\x00o", typ: i64, hidden: true}}}
	for side, q := range []string{qual, "excluded"} {
		for j, u := range user {
			ns.Names = append(ns.Names, []string{"e", "x"}[side]+strconv.Itoa(j))
			ns.Struct.Types = append(ns.Struct.Types, tcols[u].typ)
			sc.cols = append(sc.cols, column{qual: q, name: tcols[u].name, typ: tcols[u].typ})
		}
	}
	var rel plan.Rel = l.b.NamedScan([]string{ConflictPairs}, ns)
	if oc.WhereClause != nil {
		// A filter before the SET's projection: the SET of a pair the
		// condition rejects is never evaluated (ExecOnConflictUpdate
		// tests onConflictWhere first).
		if rel, err = l.filter(rel, sc, oc.WhereClause); err != nil {
			return nil, err
		}
	}
	set, err := l.conflictSet(sc, oc.TargetList)
	if err != nil {
		return nil, err
	}
	o, err := sc.ref(0)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	exprs := []expr.Expression{o}
	names := []string{"o"}
	row := []column{{name: "\x00o", typ: i64, hidden: true}}
	es := *sc
	es.noAggs = "in UPDATE"
	for j, u := range user {
		e, err := sc.ref(1 + j) // the existing row's value
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if n := set[j]; n != nil {
			v, err := l.expr(n, &es)
			if err != nil {
				return nil, err
			}
			if e, err = l.assign(v, kindOf(tcols[u].typ)); err != nil {
				return nil, fmt.Errorf("column %q: %w", tcols[u].name, err)
			}
		}
		exprs = append(exprs, e)
		names = append(names, tcols[u].name)
		row = append(row, column{qual: table, name: tcols[u].name, typ: e.GetType()})
	}
	remap := make([]int32, len(exprs))
	for i := range remap {
		remap[i] = int32(len(sc.cols) + i)
	}
	if rel, err = l.b.ProjectRemap(rel, remap, exprs...); err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	checks, err := l.checksOf(table) // check.go
	if err != nil {
		return nil, err
	}
	if len(checks) > 0 {
		// ExecUpdate's ExecConstraints: the checks over the new row.
		if rel, err = l.withChecks(rel, row, checks); err != nil {
			return nil, err
		}
		names = append(names, checkNames(checks)...)
	}
	return &ConflictUpdate{Checks: checkNames(checks), rel: rel, names: names}, nil
}

// finishConflictUpdate wraps the action as a Query once the INSERT's
// source is lowered: parameters are numbered across the whole statement
// (VALUES ($2) ... SET v = $1), so neither part alone has them all.
func (l *lowerer) finishConflictUpdate(oc *OnConflict) error {
	u := oc.Update
	if u == nil || u.rel == nil {
		return nil
	}
	q, err := l.query(u.rel, u.names)
	if err != nil {
		return err
	}
	u.Action, u.rel, u.names = q, nil, nil
	return nil
}

// conflictSet resolves DO UPDATE's SET items to the expression each
// assigns, by user column position (sc: o, then the existing row's user
// columns). SET (a, b) = (x, y) assigns item by item, as the grammar's
// MultiAssignRef over a row constructor; a sub-SELECT source is not
// lowered.
func (l *lowerer) conflictSet(sc *scope, targets []*pg_query.Node) (map[int]*pg_query.Node, error) {
	n := (len(sc.cols) - 1) / 2
	existing := &scope{cols: sc.cols[1 : 1+n]}
	set := map[int]*pg_query.Node{}
	for _, t := range targets {
		rt := t.GetResTarget()
		if rt == nil {
			return nil, fmt.Errorf("%w: SET item", ErrUnsupported)
		}
		val := rt.Val
		switch v := val.GetNode().(type) {
		case *pg_query.Node_MultiAssignRef:
			row := v.MultiAssignRef.Source.GetRowExpr()
			if row == nil {
				return nil, fmt.Errorf("%w: multiple-column SET from a sub-SELECT", ErrUnsupported)
			}
			if int(v.MultiAssignRef.Ncolumns) != len(row.Args) {
				// transformMultiAssignRef's check.
				return nil, fmt.Errorf("%w: number of columns does not match number of values", ErrInvalid)
			}
			val = row.Args[v.MultiAssignRef.Colno-1]
		case *pg_query.Node_SetToDefault:
			return nil, fmt.Errorf("%w: SET ... = DEFAULT", ErrUnsupported)
		}
		i, err := l.targetColumn(existing.cols, rt)
		if err != nil {
			return nil, err
		}
		if set[i] != nil {
			return nil, fmt.Errorf("%w: multiple assignments to same column %q", ErrInvalid, existing.cols[i].name)
		}
		set[i] = val
	}
	return set, nil
}
