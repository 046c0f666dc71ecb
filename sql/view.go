package sql

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Views (issue 29 item 4): CREATE [OR REPLACE] VIEW v [(cols)] AS SELECT
// and DROP VIEW [IF EXISTS] v. The catalog keeps a view's SELECT as text
// (PostgreSQL's deparsed form: pg_query's deparser), its column names and
// types, and the relations it reads; a query naming the view lowers that
// SELECT again in its place, against the tables' current versions, as
// PostgreSQL's rewriter expands a view's rule into the query
// (fireRIRrules). The SELECT sees none of the query's WITH queries nor
// its columns, and its errors name the view.

// ViewDef is a stored view.
type ViewDef struct {
	Name string
	// SQL is the view's SELECT.
	SQL string
	// Columns are the output column names (the column list's, then the
	// SELECT's); Types their PostgreSQL type names, as CREATE found them.
	Columns, Types []string
	// Reads are the relation names the SELECT names (tables, views, its
	// own WITH queries): what a DROP TABLE must not take from it.
	Reads []string
}

// ViewCatalog is a Catalog that holds views beside its tables; a name
// is a table or a view, never both.
type ViewCatalog interface {
	// View returns the view named name (any case), ok false if none.
	View(name string) (def *ViewDef, ok bool, err error)
	// ViewNames lists the views, sorted.
	ViewNames() []string
}

// CreateView is CREATE [OR REPLACE] VIEW. The engine checks the name is
// free (or, with Replace, a view whose columns the new one keeps:
// PostgreSQL's checkViewColumns).
type CreateView struct {
	Def     ViewDef
	Replace bool
}

// DropView is DROP VIEW [IF EXISTS] name.
type DropView struct {
	Name     string
	IfExists bool
}

func (*CreateView) statement() {}
func (*DropView) statement()   {}

// parseTreeVersion is the parser's tree version, which the deparser
// checks a tree against.
var parseTreeVersion = sync.OnceValue(func() int32 {
	tree, err := pg_query.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return tree.Version
})

// maxViewDepth bounds views over views: a cycle (CREATE OR REPLACE made
// a view read itself through another) is PostgreSQL's "infinite recursion
// detected in rules", not a stack overflow.
const maxViewDepth = 64

// createView lowers CREATE [OR REPLACE] VIEW name [(cols)] AS SELECT: the
// SELECT is lowered once to check it (unknown tables and columns, types)
// and to find its columns.
func (l *lowerer) createView(v *pg_query.ViewStmt) (*CreateView, error) {
	switch {
	case v.View == nil:
		return nil, fmt.Errorf("%w: CREATE VIEW without a name", ErrSyntax)
	case v.View.Relpersistence != "" && v.View.Relpersistence != "p":
		return nil, fmt.Errorf("%w: TEMPORARY views", ErrUnsupported)
	case len(v.Options) > 0 || v.WithCheckOption != pg_query.ViewCheckOption_NO_CHECK_OPTION && v.WithCheckOption != pg_query.ViewCheckOption_VIEW_CHECK_OPTION_UNDEFINED:
		return nil, fmt.Errorf("%w: view options (WITH ..., CHECK OPTION)", ErrUnsupported)
	}
	name, err := l.tableName(v.View)
	if err != nil {
		return nil, err
	}
	sel := v.Query.GetSelectStmt()
	if sel == nil {
		return nil, fmt.Errorf("%w: CREATE VIEW AS %s", ErrUnsupported, nodeName(v.Query))
	}
	text, err := pg_query.Deparse(&pg_query.ParseResult{Version: parseTreeVersion(), Stmts: []*pg_query.RawStmt{{Stmt: v.Query}}})
	if err != nil {
		return nil, fmt.Errorf("%w: CREATE VIEW: %w", ErrInvalid, err)
	}
	rel, names, err := l.selectStmt(sel, nil)
	if err != nil {
		return nil, err
	}
	if len(l.params) > 0 {
		// A view has no parameters (PostgreSQL: there is no parameter
		// $1); a list of 64 or more constants is one here (constlist.go).
		return nil, fmt.Errorf("%w: a view's SELECT cannot hold parameters (nor an IN list of 64 or more constants)", ErrParam)
	}
	if len(v.Aliases) > len(names) {
		return nil, fmt.Errorf("%w: CREATE VIEW specifies more column names than columns", ErrInvalid)
	}
	for i, a := range v.Aliases {
		names[i] = a.GetString_().GetSval()
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("%w: column %q specified more than once", ErrInvalid, n)
		}
		seen[n] = true
	}
	def := ViewDef{Name: strings.ToLower(name), SQL: text, Columns: names, Reads: viewReads(v.Query)}
	for _, t := range rel.RecordType().Types() {
		def.Types = append(def.Types, kindOf(t).String())
	}
	return &CreateView{Def: def, Replace: v.Replace}, nil
}

// view returns the catalog's view named name, if the catalog holds views.
func (l *lowerer) view(name string) (*ViewDef, bool, error) {
	vc, ok := l.cat.(ViewCatalog)
	if !ok {
		return nil, false, nil
	}
	return vc.View(name)
}

// viewRef lowers a FROM reference to a view: its SELECT, parsed and
// lowered here as a subquery of its own (no WITH queries, no outer
// columns; error positions in the view's text), under the view's column
// names and then the reference's alias.
func (l *lowerer) viewRef(def *ViewDef, rv *pg_query.RangeVar) (plan.Rel, *scope, error) {
	if l.viewDepth >= maxViewDepth {
		return nil, nil, fmt.Errorf("%w: infinite recursion detected in rules for relation %q", ErrInvalid, def.Name)
	}
	src, err := rewrite(def.SQL, Pos{Line: 1, Column: 1})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: view %q: %w", ErrInvalid, def.Name, err)
	}
	tree, err := pg_query.Parse(src.text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, nil, fmt.Errorf("%w: view %q: its SELECT does not parse", ErrInvalid, def.Name)
	}
	saved := *l
	l.src, l.ctes, l.outer, l.corrNext, l.unpulled = src, nil, nil, false, 0
	l.viewDepth++
	rel, names, err := l.selectStmt(tree.Stmts[0].Stmt.GetSelectStmt(), nil)
	params := len(l.params)
	l.src, l.ctes, l.outer, l.corrNext, l.unpulled, l.viewDepth = saved.src, saved.ctes, saved.outer, saved.corrNext, saved.unpulled, saved.viewDepth
	if err != nil {
		return nil, nil, fmt.Errorf("view %q: %w", def.Name, err)
	}
	if params != len(saved.params) || len(names) != len(def.Columns) {
		return nil, nil, fmt.Errorf("%w: view %q no longer matches its definition", ErrInvalid, def.Name)
	}
	return l.derivedScope(rel, slices.Clone(def.Columns), rv.Relname, rv.Alias)
}

// withViewReads adds to names the relations of the views among them
// (and of the views those read), so a TableNamer pins a view's tables
// with the statement's.
func withViewReads(names []string, cat Catalog) []string {
	vc, ok := cat.(ViewCatalog)
	if !ok {
		return names
	}
	for i := 0; i < len(names) && i < 10_000; i++ {
		def, ok, err := vc.View(names[i])
		if err != nil || !ok {
			continue
		}
		for _, r := range def.Reads {
			if !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
	}
	return names
}

// viewReads are the relations a view's SELECT names, less the names of
// its own WITH queries (a DROP TABLE of a table that only shares a WITH
// query's name takes nothing from the view).
func viewReads(q *pg_query.Node) []string {
	ctes := map[string]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if c, ok := m.Interface().(*pg_query.CommonTableExpr); ok {
			ctes[c.Ctename] = true
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	walk(q.ProtoReflect())
	var out []string
	for _, n := range relationNames(q) {
		if !ctes[n] {
			out = append(out, n)
		}
	}
	return out
}
