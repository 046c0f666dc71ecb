package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// AlterConstraint is ALTER TABLE t ADD [CONSTRAINT name] CHECK (expr)
// or ALTER TABLE t DROP CONSTRAINT [IF EXISTS] name (of a CHECK).
type AlterConstraint struct {
	Table string
	// Add is the CHECK constraint added, named; Validate then yields one
	// row per row of the table whose last column is the check's value
	// over it, which the engine tests before it commits (PostgreSQL's
	// validateCheckConstraint).
	Add      *Check
	Validate *Query
	// Drop names the constraint dropped; MissingOK is IF EXISTS.
	Drop      string
	MissingOK bool
}

func (*AlterConstraint) statement() {}

// alterTable lowers ALTER TABLE t ADD [CONSTRAINT name] CHECK (...) and
// ALTER TABLE t DROP CONSTRAINT [IF EXISTS] name; any other ALTER TABLE
// is refused by name.
func (l *lowerer) alterTable(a *pg_query.AlterTableStmt) (Statement, error) {
	if a.Objtype != pg_query.ObjectType_OBJECT_TABLE || len(a.Cmds) != 1 || a.Relation == nil {
		return nil, fmt.Errorf("%w: ALTER %s with %d commands", ErrUnsupported, strings.TrimPrefix(a.Objtype.String(), "OBJECT_"), len(a.Cmds))
	}
	cmd := a.Cmds[0].GetAlterTableCmd()
	if a.MissingOk {
		return nil, fmt.Errorf("%w: ALTER TABLE IF EXISTS", ErrUnsupported)
	}
	table, err := l.tableName(a.Relation)
	if err != nil {
		return nil, err
	}
	if _, _, err := l.tableSchema(table, a.Relation.Location); err != nil {
		return nil, err
	}
	switch cmd.GetSubtype() {
	case pg_query.AlterTableType_AT_AddConstraint:
		cn := cmd.GetDef().GetConstraint()
		if cn == nil || cn.Contype != pg_query.ConstrType_CONSTR_CHECK {
			return nil, fmt.Errorf("%w: ALTER TABLE ADD of a constraint other than CHECK", ErrUnsupported)
		}
		return l.addCheck(table, a.Relation, cn)
	case pg_query.AlterTableType_AT_DropConstraint:
		if cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE {
			return nil, fmt.Errorf("%w: DROP CONSTRAINT ... CASCADE", ErrUnsupported)
		}
		return &AlterConstraint{Table: table, Drop: cmd.Name, MissingOK: cmd.MissingOk}, nil
	}
	return nil, fmt.Errorf("%w: ALTER TABLE %s", ErrUnsupported, strings.TrimPrefix(cmd.GetSubtype().String(), "AT_"))
}

// addCheck lowers ADD CHECK: analysed and named as CREATE TABLE's
// checks are, a name taken by one of the table's checks refused
// (42710) and an unnamed one numbered past them; Validate computes it
// over every row of the table.
func (l *lowerer) addCheck(table string, rv *pg_query.RangeVar, cn *pg_query.Constraint) (Statement, error) {
	d, err := newCheckDecl(cn)
	if err != nil {
		return nil, err
	}
	existing, err := l.checksOf(table)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, c := range existing {
		taken[c.Name] = true
	}
	if taken[d.name] {
		return nil, fmt.Errorf("%w: constraint %q for relation %q already exists", ErrInvalid, d.name, table)
	}
	sch, err := l.cat.TableSchema(table)
	if err != nil {
		return nil, err
	}
	var fields = sch.Fields()
	user := fields[:0:0]
	for _, f := range fields {
		if !isSystemColumn(f.Name) {
			user = append(user, f)
		}
	}
	checks, err := l.tableChecksTaken(table, user, []checkDecl{d}, taken)
	if err != nil {
		return nil, err
	}
	rel, sc, err := l.table(&pg_query.RangeVar{Relname: rv.Relname, Schemaname: rv.Schemaname, Inh: true, Relpersistence: "p", Location: rv.Location})
	if err != nil {
		return nil, err
	}
	rel, err = l.withChecks(rel, sc.cols, checks)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(sc.cols)+1)
	for _, c := range sc.cols {
		names = append(names, c.name)
	}
	q, err := l.query(rel, append(names, checks[0].Name))
	if err != nil {
		return nil, err
	}
	return &AlterConstraint{Table: table, Add: &checks[0], Validate: q}, nil
}
