package sql

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The introspection relations (issue 29 item 7): information_schema.tables
// and information_schema.columns, SHOW TABLES and DESCRIBE t. They are
// built here, while lowering, from the catalog the statement reads
// (Catalog.TableSchema of each name TableLister lists), as literal rows of
// a VirtualTable: a filter, join or ORDER BY over them is then planned as
// over any relation. The engine pins every table at once for a statement
// that reads them (introspectionNames), so the rows describe one
// snapshot, as PostgreSQL's views read one snapshot of pg_class and
// pg_attribute.

// infoSchema is PostgreSQL's schema of the SQL-standard views.
const infoSchema = "information_schema"

// catalogName is table_catalog: PostgreSQL's current database; a
// stablerow database has no name of its own.
const catalogName = "stablerow"

// ErrNoTableLister: the catalog cannot list its tables, so the
// introspection relations cannot be built over it.
var errNoLister = errors.New("the catalog cannot list its tables")

// introCol is one column of an introspection relation and its type:
// PostgreSQL's sql_identifier and character_data read as text, and
// cardinal_number as integer (the domains' base types).
type introCol struct {
	name string
	k    kind
}

var (
	tablesCols = []introCol{
		{"table_catalog", kindString}, {"table_schema", kindString},
		{"table_name", kindString}, {"table_type", kindString},
	}
	columnsCols = []introCol{
		{"table_catalog", kindString}, {"table_schema", kindString},
		{"table_name", kindString}, {"column_name", kindString},
		{"ordinal_position", kindI32}, {"is_nullable", kindString},
		{"data_type", kindString}, {"character_maximum_length", kindI32},
		{"numeric_precision", kindI32}, {"numeric_scale", kindI32},
	}
	showTablesCols = []introCol{{"table_name", kindString}}
	describeCols   = []introCol{{"column_name", kindString}, {"data_type", kindString}, {"is_nullable", kindString}}
)

// userColumn is one user column of a table as information_schema.columns
// describes it.
type userColumn struct {
	name     string
	position int32
	nullable bool
	k        kind
}

// introTables lists the catalog's tables, sorted (PostgreSQL's views have
// no order; SHOW TABLES is sorted, as DuckDB's).
func (l *lowerer) introTables() ([]string, error) {
	tl, ok := l.cat.(TableLister)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnsupported, infoSchema, errNoLister)
	}
	names := slices.Clone(tl.TableNames())
	slices.Sort(names)
	return names, nil
}

// introViews lists the catalog's views, sorted (none if it holds none).
func (l *lowerer) introViews() []string {
	if vc, ok := l.cat.(ViewCatalog); ok {
		return vc.ViewNames()
	}
	return nil
}

// userColumns reads a table's user columns from the catalog, in order.
// The kinds are the declared ones (fieldKind of the catalog's fields),
// not the Substrait types a scan reads: an unbounded varchar reads as
// Substrait's string, but PostgreSQL calls it character varying.
func (l *lowerer) userColumns(name string, loc int32) ([]userColumn, error) {
	if def, ok, err := l.view(name); err != nil {
		return nil, err
	} else if ok {
		return viewColumns(def)
	}
	if _, _, err := l.tableSchema(name, loc); err != nil {
		return nil, err // unknown table, unsupported column type: as a scan's
	}
	sch, err := l.cat.TableSchema(name)
	if err != nil {
		return nil, fmt.Errorf("sql: table %q%s: %w", name, l.src.at(loc), err)
	}
	var out []userColumn
	for _, f := range sch.Fields() {
		if isSystemColumn(f.Name) {
			continue
		}
		out = append(out, userColumn{name: f.Name, position: int32(len(out) + 1), nullable: f.Nullable, k: fieldKind(f)})
	}
	return out, nil
}

// viewColumns are a view's columns as information_schema.columns
// describes them: the types CREATE VIEW recorded, every column nullable
// (PostgreSQL's is_nullable of a view column is YES).
func viewColumns(def *ViewDef) ([]userColumn, error) {
	var out []userColumn
	for i, c := range def.Columns {
		k, err := kindNamed(def.Types[i])
		if err != nil {
			return nil, fmt.Errorf("%w: view %q column %q: %w", ErrInvalid, def.Name, c, err)
		}
		out = append(out, userColumn{name: c, position: int32(i + 1), nullable: true, k: k})
	}
	return out, nil
}

// kindNamed reads a type name as kind.String spells it ("numeric(8,2)",
// "character varying(5)") with the grammar's type names.
func kindNamed(name string) (kind, error) {
	tree, err := pg_query.Parse("SELECT CAST(NULL AS " + name + ")")
	if err != nil || len(tree.Stmts) != 1 {
		return kindUnknown, fmt.Errorf("type %q", name)
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return kindUnknown, fmt.Errorf("type %q", name)
	}
	tc := sel.TargetList[0].GetResTarget().GetVal().GetTypeCast()
	if tc == nil {
		return kindUnknown, fmt.Errorf("type %q", name)
	}
	k, array, err := typeName(tc.TypeName)
	if err != nil || array {
		return kindUnknown, fmt.Errorf("type %q", name)
	}
	return k, nil
}

// dataType is PostgreSQL's information_schema.columns.data_type of k
// (format_type without its modifiers: the length, precision and scale are
// columns of their own).
func dataType(k kind) string {
	switch k.ID {
	case idVarchar:
		return "character varying"
	case idChar:
		return "character"
	case idNumeric:
		return "numeric"
	}
	return k.String()
}

// typeSizes are character_maximum_length, numeric_precision and
// numeric_scale of k, nil where PostgreSQL's are NULL
// (_pg_char_max_length, _pg_numeric_precision, _pg_numeric_scale): binary
// precision for the integers and floats, whose scale is 0 and NULL.
func typeSizes(k kind) (length, precision, scale *int32) {
	p := func(v int32) *int32 { return &v }
	switch k.ID {
	case idVarchar, idChar:
		if k.N > 0 {
			length = p(k.N)
		}
	case idI16:
		return nil, p(16), p(0)
	case idI32:
		return nil, p(32), p(0)
	case idI64:
		return nil, p(64), p(0)
	case idF32:
		return nil, p(24), nil
	case idF64:
		return nil, p(53), nil
	case idNumeric:
		return nil, p(k.N), p(k.S)
	}
	return length, nil, nil
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// introRows builds one of the relations (named by rel: "tables",
// "columns", "show tables" or the table DESCRIBE names) as literal rows.
func (l *lowerer) introRows(rel string, describe bool, loc int32) ([]introCol, [][]any, error) {
	if describe {
		cols, err := l.userColumns(rel, loc)
		if err != nil {
			return nil, nil, err
		}
		var rows [][]any
		for _, c := range cols {
			rows = append(rows, []any{c.name, dataType(c.k), yesNo(c.nullable)})
		}
		return describeCols, rows, nil
	}
	names, err := l.introTables()
	if err != nil {
		return nil, nil, err
	}
	var rows [][]any
	switch rel {
	case "show tables": // tables and views, as DuckDB's
		all := append(slices.Clone(names), l.introViews()...)
		slices.Sort(all)
		for _, n := range all {
			rows = append(rows, []any{n})
		}
		return showTablesCols, rows, nil
	case "tables":
		for _, n := range names {
			rows = append(rows, []any{catalogName, "public", n, "BASE TABLE"})
		}
		for _, n := range l.introViews() {
			rows = append(rows, []any{catalogName, "public", n, "VIEW"})
		}
		return tablesCols, rows, nil
	case "columns":
		for _, n := range append(names, l.introViews()...) {
			cols, err := l.userColumns(n, loc)
			if err != nil {
				return nil, nil, err
			}
			for _, c := range cols {
				length, precision, scale := typeSizes(c.k)
				rows = append(rows, []any{catalogName, "public", n, c.name, &c.position, yesNo(c.nullable),
					dataType(c.k), length, precision, scale})
			}
		}
		return columnsCols, rows, nil
	}
	return nil, nil, fmt.Errorf("%w: relation %s.%s does not exist%s", ErrUnknownTable, infoSchema, rel, l.src.at(loc))
}

// introRel lowers the rows to a VirtualTable (nullable literals, as VALUES
// rows are); no rows is one row of NULLs under a FALSE filter, since a
// VirtualTable of no rows has no literal to carry its types.
func (l *lowerer) introRel(cols []introCol, rows [][]any) (plan.Rel, []column, error) {
	names := make([]string, len(cols))
	sc := make([]column, len(cols))
	for i, c := range cols {
		names[i] = c.name
		sc[i] = column{name: c.name, typ: c.k.Type(true)}
	}
	vals := make([]expr.VirtualTableExpressionValue, 0, max(len(rows), 1))
	for _, r := range rows {
		row := make(expr.VirtualTableExpressionValue, len(cols))
		for i, v := range r {
			row[i] = introLiteral(cols[i].k, v)
		}
		vals = append(vals, row)
	}
	if len(rows) == 0 {
		row := make(expr.VirtualTableExpressionValue, len(cols))
		for i, c := range cols {
			row[i] = expr.NewNullLiteral(c.k.Type(true))
		}
		vals = append(vals, row)
	}
	vt, err := l.b.VirtualTableFromExpr(names, vals...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	if len(rows) > 0 {
		return vt, sc, nil
	}
	f, err := l.b.Filter(vt, expr.NewPrimitiveLiteral(false, false))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	return f, sc, nil
}

// introLiteral is a nullable literal of k: a string, or an *int32 (nil
// is NULL).
func introLiteral(k kind, v any) expr.Expression {
	switch v := v.(type) {
	case string:
		return expr.NewPrimitiveLiteral(v, true)
	case *int32:
		if v != nil {
			return expr.NewPrimitiveLiteral(*v, true)
		}
	}
	return expr.NewNullLiteral(k.Type(true))
}

// isInfoSchema reports whether rv names a relation of information_schema.
func isInfoSchema(rv *pg_query.RangeVar) bool {
	return rv.Catalogname == "" && rv.Schemaname == infoSchema
}

// infoSchemaTable lowers FROM information_schema.tables or .columns.
func (l *lowerer) infoSchemaTable(rv *pg_query.RangeVar) (plan.Rel, *scope, error) {
	name := rv.Relname
	if name != "tables" && name != "columns" {
		return nil, nil, fmt.Errorf("%w: relation %s.%s%s (tables and columns are)", ErrUnsupported, infoSchema, name, l.src.at(rv.Location))
	}
	cols, rows, err := l.introRows(name, false, rv.Location)
	if err != nil {
		return nil, nil, err
	}
	rel, sc, err := l.introRel(cols, rows)
	if err != nil {
		return nil, nil, err
	}
	for i := range sc {
		sc[i].qual = name
	}
	if err := l.alias(rv.Alias, sc); err != nil {
		return nil, nil, err
	}
	return rel, &scope{cols: sc}, nil
}

// describePrefix marks a DESCRIBE t the rewrite (params.go) turned into
// SHOW describe.t, the nearest statement PostgreSQL's grammar has.
const describePrefix = "describe."

// show lowers SHOW TABLES and DESCRIBE t (DuckDB's spellings) to queries
// over the introspection rows; PostgreSQL's SHOW of a setting is refused.
func (l *lowerer) show(s *pg_query.VariableShowStmt) (Statement, error) {
	var cols []introCol
	var rows [][]any
	var err error
	switch name := s.Name; {
	case strings.EqualFold(name, "tables"):
		cols, rows, err = l.introRows("show tables", false, -1)
	case strings.HasPrefix(name, describePrefix):
		cols, rows, err = l.introRows(strings.TrimPrefix(name, describePrefix), true, -1)
	default:
		return nil, fmt.Errorf("%w: SHOW %s (SHOW TABLES is)", ErrUnsupported, name)
	}
	if err != nil {
		return nil, err
	}
	rel, sc, err := l.introRel(cols, rows)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(sc))
	for i, c := range sc {
		names[i] = c.name
	}
	return l.query(rel, names)
}

// introspectionNames adds every table to names when the statement reads
// the introspection relations, so a TableNamer pins them all together.
func introspectionNames(n *pg_query.Node, names []string, cat Catalog) []string {
	reads := false
	if s := n.GetVariableShowStmt(); s != nil {
		reads = true
		if t, ok := strings.CutPrefix(s.Name, describePrefix); ok {
			names = append(names, t)
		}
	}
	if !reads {
		eachRangeVar(n, func(rv *pg_query.RangeVar) { reads = reads || isInfoSchema(rv) })
	}
	tl, ok := cat.(TableLister)
	if !reads || !ok {
		return names
	}
	for _, t := range tl.TableNames() {
		if !slices.Contains(names, t) {
			names = append(names, t)
		}
	}
	return names
}

// eachRangeVar calls f on every RangeVar of the tree under n.
func eachRangeVar(n *pg_query.Node, f func(*pg_query.RangeVar)) {
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg_query.RangeVar); ok {
			f(rv)
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
}
