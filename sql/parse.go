package sql

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Parse parses one or more ';'-separated Postgres-dialect statements and
// lowers each to a Statement. :name parameters become $1, $2, ... per
// statement, in order of first appearance.
func Parse(sql string, cat Catalog) (stmts []Statement, err error) {
	return ParseAt(sql, cat, Pos{Line: 1, Column: 1})
}

// Pos is where a piece of text starts in the caller's script (line and
// column from 1, the column in characters).
type Pos struct{ Line, Column int }

// ParseAt is Parse of a piece of a larger script that starts at start:
// every position an error names (a syntax error, an unknown column) is
// then the position in the whole script, not in the piece.
func ParseAt(sql string, cat Catalog, start Pos) (stmts []Statement, err error) {
	start.Line, start.Column = max(start.Line, 1), max(start.Column, 1) // the zero Pos is the start
	defer func() {
		if r := recover(); r != nil {
			slog.Debug("stablerow: recovered panic", "during", "lowering SQL", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			stmts, err = nil, fmt.Errorf("%w: lowering the statement (the panic is in the debug log)", ErrInternal)
		}
	}()
	src, err := rewrite(sql, start)
	if err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(src.text)
	if err != nil {
		return nil, src.locate(src.syntaxError(err))
	}
	for _, raw := range tree.Stmts {
		l, err := newLowerer(src, cat, src.segmentAt(int(raw.StmtLocation)))
		if err != nil {
			return nil, src.locate(err)
		}
		if tn, ok := cat.(TableNamer); ok {
			tn.StatementTables(withViewReads(introspectionNames(raw.Stmt, relationNames(raw.Stmt), cat), cat)) // view.go
		}
		st, err := l.statement(raw.Stmt)
		if err != nil {
			return nil, src.locate(err)
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// CheckSyntax parses sql (a piece of a script starting at start, as in
// ParseAt) without lowering it: no catalog is asked, so a script can be
// checked whole before its first statement creates the tables the later
// ones read. Its error is ParseAt's for the same text's syntax (ErrSyntax,
// ErrTooDeep, ErrParam, located); nil means the text parses.
func CheckSyntax(sql string, start Pos) (err error) {
	start.Line, start.Column = max(start.Line, 1), max(start.Column, 1)
	defer func() {
		if r := recover(); r != nil {
			slog.Debug("stablerow: recovered panic", "during", "checking SQL syntax", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: checking the statement's syntax (the panic is in the debug log)", ErrInternal)
		}
	}()
	src, err := rewrite(sql, start)
	if err != nil {
		return err
	}
	if _, err := pg_query.Parse(src.text); err != nil {
		return src.locate(src.syntaxError(err))
	}
	return nil
}

func (l *lowerer) statement(n *pg_query.Node) (Statement, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		return l.selectQuery(x.SelectStmt)
	case *pg_query.Node_ExplainStmt:
		return l.explain(x.ExplainStmt)
	case *pg_query.Node_CreateStmt:
		return l.createTable(x.CreateStmt)
	case *pg_query.Node_AlterTableStmt:
		return l.alterTable(x.AlterTableStmt) // altercheck.go
	case *pg_query.Node_ViewStmt:
		return l.createView(x.ViewStmt) // view.go
	case *pg_query.Node_IndexStmt:
		return l.createIndex(x.IndexStmt)
	case *pg_query.Node_InsertStmt:
		return l.insert(x.InsertStmt)
	case *pg_query.Node_DeleteStmt:
		return l.delete(x.DeleteStmt)
	case *pg_query.Node_UpdateStmt:
		return l.update(x.UpdateStmt)
	case *pg_query.Node_DropStmt:
		return l.drop(x.DropStmt)
	case *pg_query.Node_VacuumStmt:
		return l.vacuum(x.VacuumStmt)
	case *pg_query.Node_ClusterStmt:
		return l.cluster(x.ClusterStmt)
	case *pg_query.Node_ReindexStmt:
		return l.reindex(x.ReindexStmt)
	case *pg_query.Node_CopyStmt:
		return l.copyStmt(x.CopyStmt)
	case *pg_query.Node_CreateTableAsStmt:
		return l.createTableAs(x.CreateTableAsStmt)
	case *pg_query.Node_VariableSetStmt:
		return l.set(x.VariableSetStmt)
	case *pg_query.Node_TransactionStmt:
		return l.transaction(x.TransactionStmt)
	case *pg_query.Node_VariableShowStmt:
		return l.show(x.VariableShowStmt) // infoschema.go
	case nil:
		return nil, fmt.Errorf("%w: empty statement", ErrSyntax)
	}
	return nil, fmt.Errorf("%w: statement %s", ErrUnsupported, nodeName(n))
}

func (l *lowerer) selectQuery(s *pg_query.SelectStmt) (*Query, error) {
	rel, names, err := l.selectStmt(s, nil)
	if err != nil {
		return nil, err
	}
	return l.query(rel, names)
}

// explain lowers EXPLAIN [ANALYZE] <select> and EXPLAIN (ANALYZE b,
// COSTS b) <select>; other options are refused. COSTS is off unless
// asked for (PostgreSQL's default is on): the plan text without
// estimates is what the tests' goldens pin, as PostgreSQL's own
// regression tests write EXPLAIN (COSTS OFF).
func (l *lowerer) explain(e *pg_query.ExplainStmt) (*Query, error) {
	analyze, costs := false, false
	for _, o := range e.Options {
		d := o.GetDefElem()
		if d == nil || (d.Defname != "analyze" && d.Defname != "costs") {
			name := "?"
			if d != nil {
				name = d.Defname
			}
			return nil, fmt.Errorf("%w: EXPLAIN option %s", ErrUnsupported, name)
		}
		on := true
		if d.Arg != nil {
			// (ANALYZE false) arrives as a string or a boolean.
			v := value{how: untypedString, str: d.Arg.GetString_().GetSval(), loc: d.Location}
			if b := d.Arg.GetBoolean(); b != nil {
				v = value{e: newLiteral(b.Boolval, false), loc: d.Location}
			}
			e, err := l.coerce(v, kindBool)
			if err != nil {
				return nil, fmt.Errorf("%w: EXPLAIN option %s: %w", ErrInvalid, d.Defname, err)
			}
			lit, _ := literalOf(e)
			on, _ = lit.(bool)
		}
		if d.Defname == "analyze" {
			analyze = on
		} else {
			costs = on
		}
	}
	s := e.Query.GetSelectStmt()
	if s == nil {
		return nil, fmt.Errorf("%w: EXPLAIN of a non-SELECT statement", ErrUnsupported)
	}
	q, err := l.selectQuery(s)
	if err != nil {
		return nil, err
	}
	q.Explain, q.Analyze, q.Costs = true, analyze, costs
	return q, nil
}
