package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// createTable lowers CREATE TABLE [IF NOT EXISTS] t (col type [NOT NULL | NULL], ...).
func (l *lowerer) createTable(c *pg_query.CreateStmt) (*CreateTable, error) {
	if c.Relation == nil {
		return nil, fmt.Errorf("%w: CREATE TABLE without a name", ErrSyntax)
	}
	switch {
	case len(c.InhRelations) > 0:
		return nil, fmt.Errorf("%w: INHERITS", ErrUnsupported)
	case c.Partspec != nil || c.Partbound != nil:
		return nil, fmt.Errorf("%w: partitioned tables", ErrUnsupported)
	case c.OfTypename != nil:
		return nil, fmt.Errorf("%w: CREATE TABLE OF type", ErrUnsupported)
	case c.Relation.Relpersistence != "" && c.Relation.Relpersistence != "p":
		return nil, fmt.Errorf("%w: TEMPORARY or UNLOGGED tables", ErrUnsupported)
	case len(c.Options) > 0 || c.Tablespacename != "" || c.AccessMethod != "":
		return nil, fmt.Errorf("%w: table options", ErrUnsupported)
	}
	name, err := l.tableName(c.Relation)
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	seen := map[string]bool{}
	cons := &constraints{table: name}
	var checks []checkDecl
	for _, elt := range c.TableElts {
		cd := elt.GetColumnDef()
		if cd == nil {
			if cn := elt.GetConstraint(); cn != nil {
				if cn.Contype == pg_query.ConstrType_CONSTR_CHECK {
					d, err := newCheckDecl(cn)
					if err != nil {
						return nil, err
					}
					checks = append(checks, d)
					continue
				}
				if err := cons.add(cn, nil); err != nil {
					return nil, err
				}
				continue
			}
			return nil, fmt.Errorf("%w: table element %s", ErrUnsupported, nodeName(elt))
		}
		if isSystemColumn(cd.Colname) {
			return nil, fmt.Errorf("%w: column name %q is reserved", ErrInvalid, cd.Colname)
		}
		if seen[strings.ToLower(cd.Colname)] {
			return nil, fmt.Errorf("%w: column %q specified more than once", ErrInvalid, cd.Colname)
		}
		seen[strings.ToLower(cd.Colname)] = true
		k, array, err := typeName(cd.TypeName)
		if err != nil {
			return nil, err
		}
		if array {
			return nil, fmt.Errorf("%w: array column %q", ErrUnsupported, cd.Colname)
		}
		if cd.CollClause != nil || cd.RawDefault != nil || cd.Generated != "" || cd.Identity != "" {
			return nil, fmt.Errorf("%w: COLLATE, DEFAULT, GENERATED or IDENTITY on column %q", ErrUnsupported, cd.Colname)
		}
		nullable := !cd.IsNotNull
		for _, cn := range cd.Constraints {
			switch cn.GetConstraint().GetContype() {
			case pg_query.ConstrType_CONSTR_NOTNULL:
				nullable = false
			case pg_query.ConstrType_CONSTR_NULL:
				nullable = true
			case pg_query.ConstrType_CONSTR_CHECK:
				d, err := newCheckDecl(cn.GetConstraint())
				if err != nil {
					return nil, err
				}
				checks = append(checks, d)
			case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE:
				if err := cons.add(cn.GetConstraint(), []string{cd.Colname}); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("%w: column constraint %s on %q", ErrUnsupported,
					strings.TrimPrefix(cn.GetConstraint().GetContype().String(), "CONSTR_"), cd.Colname)
			}
		}
		t, decl := k.Arrow()
		f := arrow.Field{Name: cd.Colname, Type: t, Nullable: nullable}
		if decl != "" {
			f.Metadata = arrow.NewMetadata([]string{sqlvalue.SQLTypeKey}, []string{decl})
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: a table needs at least one column", ErrUnsupported)
	}
	indexes, primary, err := cons.indexes(fields)
	if err != nil {
		return nil, err
	}
	checkList, err := l.tableChecks(name, fields, checks) // check.go
	if err != nil {
		return nil, err
	}
	return &CreateTable{Name: name, Schema: arrow.NewSchema(fields, nil), IfNotExists: c.IfNotExists, Indexes: indexes,
		PrimaryKey: primary, Checks: checkList}, nil
}

// createIndex lowers CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON t
// [USING btree] (col [ASC|DESC] [NULLS FIRST|LAST], ...). The table and
// columns must exist; system columns may be indexed. Each column's NULLs
// placement defaults as PostgreSQL's (transformIndexStmt / index_create:
// NULLS FIRST exactly when DESC), and the default name joins the column
// names as ChooseIndexColumnNames does.
func (l *lowerer) createIndex(ix *pg_query.IndexStmt) (*CreateIndex, error) {
	switch {
	case ix.Primary || ix.Isconstraint:
		return nil, fmt.Errorf("%w: PRIMARY KEY or constraint index", ErrUnsupported)
	case ix.WhereClause != nil:
		return nil, fmt.Errorf("%w: partial index", ErrUnsupported)
	case len(ix.IndexIncludingParams) > 0:
		return nil, fmt.Errorf("%w: INCLUDE", ErrUnsupported)
	case ix.Concurrent:
		return nil, fmt.Errorf("%w: CONCURRENTLY", ErrUnsupported)
	case len(ix.Options) > 0 || ix.TableSpace != "":
		return nil, fmt.Errorf("%w: index options", ErrUnsupported)
	case len(ix.IndexParams) == 0:
		return nil, fmt.Errorf("%w: index without columns", ErrSyntax)
	case len(ix.IndexParams) > 32:
		// PostgreSQL's INDEX_MAX_KEYS.
		return nil, fmt.Errorf("%w: cannot use more than 32 columns in an index", ErrInvalid)
	}
	method := strings.ToLower(ix.AccessMethod)
	if method == "" {
		method = "btree"
	}
	if method != "btree" {
		return nil, fmt.Errorf("%w: index method %s", ErrUnsupported, method)
	}
	table, err := l.tableName(ix.Relation)
	if err != nil {
		return nil, err
	}
	_, cols, err := l.tableSchema(table, ix.Relation.Location)
	if err != nil {
		return nil, err
	}
	keys := make([]IndexKey, len(ix.IndexParams))
	names := make([]string, len(keys))
	for j, p := range ix.IndexParams {
		el := p.GetIndexElem()
		if el == nil || el.Name == "" || el.Expr != nil {
			return nil, fmt.Errorf("%w: expression index", ErrUnsupported)
		}
		if len(el.Opclass) > 0 || len(el.Collation) > 0 || el.Ordering == pg_query.SortByDir_SORTBY_USING {
			return nil, fmt.Errorf("%w: index column operator class, collation or USING", ErrUnsupported)
		}
		i, err := l.lookup(&scope{cols: cols}, "", el.Name, -1)
		if err != nil {
			return nil, err
		}
		k := IndexKey{Column: cols[i].name, Desc: el.Ordering == pg_query.SortByDir_SORTBY_DESC}
		switch el.NullsOrdering {
		case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
			k.NullsFirst = true
		case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		default:
			k.NullsFirst = k.Desc
		}
		keys[j], names[j] = k, k.Column
	}
	name := ix.Idxname
	if name == "" {
		name = table + "_" + strings.Join(names, "_") + "_idx"
	}
	return &CreateIndex{Name: name, Table: table, Column: keys[0].Column, Keys: keys, Unique: ix.Unique, Method: method, IfNotExists: ix.IfNotExists}, nil
}

// drop lowers DROP TABLE | INDEX | VIEW [IF EXISTS] name (one name, no CASCADE).
func (l *lowerer) drop(d *pg_query.DropStmt) (Statement, error) {
	if d.Behavior == pg_query.DropBehavior_DROP_CASCADE || d.Concurrent {
		return nil, fmt.Errorf("%w: DROP ... CASCADE or CONCURRENTLY", ErrUnsupported)
	}
	if len(d.Objects) != 1 {
		return nil, fmt.Errorf("%w: DROP of %d objects", ErrUnsupported, len(d.Objects))
	}
	var parts []string
	for _, n := range d.Objects[0].GetList().GetItems() {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "public" {
		parts = parts[1:]
	}
	if len(parts) != 1 || parts[0] == "" {
		return nil, fmt.Errorf("%w: qualified name in DROP", ErrUnsupported)
	}
	switch d.RemoveType {
	case pg_query.ObjectType_OBJECT_TABLE:
		return &DropTable{Name: parts[0], IfExists: d.MissingOk}, nil
	case pg_query.ObjectType_OBJECT_INDEX:
		return &DropIndex{Name: parts[0], IfExists: d.MissingOk}, nil
	case pg_query.ObjectType_OBJECT_VIEW:
		return &DropView{Name: parts[0], IfExists: d.MissingOk}, nil // view.go
	}
	return nil, fmt.Errorf("%w: DROP %s", ErrUnsupported, strings.TrimPrefix(d.RemoveType.String(), "OBJECT_"))
}
