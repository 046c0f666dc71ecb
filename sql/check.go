package sql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Check is one CHECK constraint of a table: its name and its boolean
// expression as SQL text over the table's columns (deparsed from the
// CREATE TABLE that declared it, and parsed again where rows are
// written).
type Check struct {
	Name string
	Expr string
}

// CheckCatalog is a Catalog whose tables may have CHECK constraints:
// INSERT and UPDATE then compute each constraint over every written row
// (Insert.Checks, Update.Checks) for the engine to enforce.
type CheckCatalog interface {
	TableChecks(name string) ([]Check, error)
}

// checkDecl is a CHECK constraint as CREATE TABLE wrote it.
type checkDecl struct {
	name string
	raw  *pg_query.Node
}

// checkDecl records cn, a CHECK column or table constraint.
func newCheckDecl(cn *pg_query.Constraint) (checkDecl, error) {
	switch {
	case cn.SkipValidation:
		return checkDecl{}, fmt.Errorf("%w: CHECK ... NOT VALID", ErrUnsupported)
	case cn.RawExpr == nil:
		return checkDecl{}, fmt.Errorf("%w: CHECK without an expression", ErrSyntax)
	}
	// NO INHERIT is accepted: stablerow has no inheritance for it to
	// limit.
	return checkDecl{name: cn.Conname, raw: cn.RawExpr}, nil
}

// tableChecks validates CREATE TABLE's CHECK constraints over the new
// table's fields and names the unnamed ones, as PostgreSQL's
// AddRelationNewConstraints does: the expression is analysed as
// transformExpr does for EXPR_KIND_CHECK_CONSTRAINT (no subquery, no
// aggregate, no window function, a boolean result), a name given twice
// is refused, and an unnamed constraint is ChooseConstraintName's
// <table>_<column>_check when the expression reads one column, else
// <table>_check, a number appended to a name taken.
func (l *lowerer) tableChecks(table string, fields []arrow.Field, decls []checkDecl) ([]Check, error) {
	return l.tableChecksTaken(table, fields, decls, map[string]bool{})
}

// tableChecksTaken is tableChecks with the names in taken already used
// (ALTER TABLE ... ADD CHECK: the table's checks).
func (l *lowerer) tableChecksTaken(table string, fields []arrow.Field, decls []checkDecl, taken map[string]bool) ([]Check, error) {
	sc := &scope{noAggs: "in check constraints"}
	for _, f := range fields {
		sc.cols = append(sc.cols, column{qual: table, name: f.Name, typ: fieldKind(f).Type(true)})
	}
	for _, d := range decls {
		if d.name == "" {
			continue
		}
		if taken[d.name] {
			return nil, fmt.Errorf("%w: check constraint %q already exists", ErrInvalid, d.name)
		}
		taken[d.name] = true
	}
	var out []Check
	for _, d := range decls {
		if err := l.checkExpr(d.raw, sc); err != nil {
			return nil, err
		}
		text, err := deparseExpr(d.raw)
		if err != nil {
			return nil, err
		}
		name := d.name
		if name == "" {
			base := table + "_check"
			if cols := referencedColumns(d.raw, sc); len(cols) == 1 {
				base = table + "_" + cols[0] + "_check"
			}
			name = chooseName(base, taken)
			taken[name] = true
		}
		out = append(out, Check{Name: name, Expr: text})
	}
	return out, nil
}

// checkExpr lowers a CHECK expression over sc and refuses what
// PostgreSQL refuses in one.
func (l *lowerer) checkExpr(raw *pg_query.Node, sc *scope) error {
	if loc, ok := findSubLink(raw); ok {
		return fmt.Errorf("%w: cannot use subquery in check constraint%s", ErrUnsupported, l.src.at(loc))
	}
	v, err := l.expr(raw, sc)
	if err != nil {
		return err
	}
	if v.how == untypedNull || v.how == untypedString || v.how == untypedParam {
		_, err = l.coerce(v, kindBool)
		return err
	}
	if k := kindOf(v.e.GetType()); k != kindBool {
		return fmt.Errorf("%w: argument of CHECK must be type boolean, not type %s%s", ErrType, k, l.src.at(v.loc))
	}
	return nil
}

// findSubLink reports the location of a subquery anywhere in n.
func findSubLink(n *pg_query.Node) (int32, bool) {
	var loc int32
	found := false
	walkNodes(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if s, ok := m.Interface().(*pg_query.SubLink); ok {
			loc, found = s.Location, true
		}
		return !found
	})
	return loc, found
}

// referencedColumns are the distinct columns of sc that n's column
// references name (pull_var_clause then list_union in
// AddRelationNewConstraints), spelled as the table spells them.
func referencedColumns(n *pg_query.Node, sc *scope) []string {
	var out []string
	walkNodes(n.ProtoReflect(), func(m protoreflect.Message) bool {
		c, ok := m.Interface().(*pg_query.ColumnRef)
		if !ok || len(c.Fields) == 0 {
			return true
		}
		name := c.Fields[len(c.Fields)-1].GetString_().GetSval()
		for _, col := range sc.cols {
			if strings.EqualFold(col.name, name) && !slices.Contains(out, col.name) {
				out = append(out, col.name)
			}
		}
		return true
	})
	return out
}

// deparseExpr is n as SQL text, PostgreSQL's deparser's spelling.
func deparseExpr(n *pg_query.Node) (string, error) {
	// A parsed SELECT carries the parse tree version the deparser wants;
	// its one target becomes n.
	tree, err := pg_query.Parse("SELECT NULL")
	if err == nil {
		tree.Stmts[0].GetStmt().GetSelectStmt().TargetList = []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(proto.Clone(n).(*pg_query.Node), 0)}
		var text string
		if text, err = pg_query.Deparse(tree); err == nil {
			return strings.TrimPrefix(text, "SELECT "), nil
		}
	}
	return "", fmt.Errorf("%w: CHECK expression: %w", ErrUnsupported, err)
}

// parseCheck parses a stored CHECK expression.
func parseCheck(c Check) (*pg_query.Node, string, error) {
	text := "SELECT " + c.Expr
	tree, err := pg_query.Parse(text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, "", fmt.Errorf("%w: stored CHECK constraint %q does not parse: %v", ErrInvalid, c.Name, err)
	}
	tl := tree.Stmts[0].GetStmt().GetSelectStmt().GetTargetList()
	if len(tl) != 1 {
		return nil, "", fmt.Errorf("%w: stored CHECK constraint %q is not one expression", ErrInvalid, c.Name)
	}
	return tl[0].GetResTarget().GetVal(), text, nil
}

// checksOf returns table's CHECK constraints in name order, the order
// PostgreSQL's ExecRelCheck tests them in (CheckConstraintFetch sorts
// them by name), so a row breaking two reports the same one.
func (l *lowerer) checksOf(table string) ([]Check, error) {
	cc, ok := l.cat.(CheckCatalog)
	if !ok {
		return nil, nil
	}
	cs, err := cc.TableChecks(table)
	if err != nil {
		return nil, err
	}
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b Check) int { return strings.Compare(a.Name, b.Name) })
	return cs, nil
}

// withChecks appends to rel one boolean column per check, each the
// check's expression over rel's columns cols (named as the table's), for
// the engine to enforce: a row fails a check only when its value is
// FALSE (ExecRelCheck: NULL passes).
func (l *lowerer) withChecks(rel plan.Rel, cols []column, checks []Check) (plan.Rel, error) {
	sc := &scope{cols: cols, noAggs: "in check constraints"}
	var exprs []expr.Expression
	for _, c := range checks {
		raw, text, err := parseCheck(c)
		if err != nil {
			return nil, err
		}
		// The stored text is the source positions refer to.
		saved := l.src
		l.src = &source{orig: text, text: text}
		v, err := l.expr(raw, sc)
		var e expr.Expression
		if err == nil {
			e, err = l.coerce(v, kindBool)
		}
		l.src = saved
		if err != nil {
			return nil, fmt.Errorf("check constraint %q: %w", c.Name, err)
		}
		exprs = append(exprs, e)
	}
	remap := make([]int32, len(cols)+len(exprs))
	for i := range remap {
		remap[i] = int32(i)
	}
	out, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	return out, nil
}

// checkNames are the names of checks, in order.
func checkNames(checks []Check) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.Name
	}
	return out
}
