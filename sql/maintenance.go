package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Table maintenance reuses Postgres' own statements for stablerow's
// rewrites, so no grammar of our own is needed:
//
//	VACUUM [t, ...]          reclaim the space of files no version needs
//	VACUUM FULL [t, ...]     order-preserving compaction (Compact)
//	CLUSTER t USING idx      reordered rewrite by idx's column (Recluster)
//	REINDEX INDEX idx        bring idx up to date (OptimizeIndex)
//	REINDEX TABLE t          every index of t
//
// As in PostgreSQL, plain VACUUM reclaims space and VACUUM FULL rewrites
// the table; without a table name both cover the whole database.
// Rewrites defer the index remap (the fragment reuse history keeps every
// index answering); REINDEX folds the history into the index.

// Vacuum is VACUUM [FULL] [table, ...]; no Tables means every table.
type Vacuum struct {
	Tables []string
	Full   bool
}

// Cluster is CLUSTER table USING index.
type Cluster struct{ Table, Index string }

// Reindex is REINDEX INDEX name (Index set) or REINDEX TABLE name (Table set).
type Reindex struct{ Index, Table string }

func (*Vacuum) statement()  {}
func (*Cluster) statement() {}
func (*Reindex) statement() {}

func relName(rv *pg_query.RangeVar) (string, error) {
	if rv == nil || rv.Relname == "" {
		return "", fmt.Errorf("%w: statement needs a table name", ErrUnsupported)
	}
	if rv.Schemaname != "" && rv.Schemaname != "public" {
		return "", fmt.Errorf("%w: schema-qualified name %s.%s", ErrUnsupported, rv.Schemaname, rv.Relname)
	}
	return rv.Relname, nil
}

func (l *lowerer) vacuum(v *pg_query.VacuumStmt) (Statement, error) {
	if !v.IsVacuumcmd {
		return l.analyze(v) // analyzestmt.go
	}
	out := &Vacuum{}
	for _, o := range v.Options {
		d := o.GetDefElem()
		if d == nil {
			return nil, fmt.Errorf("%w: VACUUM option %v", ErrUnsupported, o)
		}
		if d.Defname != "full" {
			return nil, fmt.Errorf("%w: VACUUM option %s", ErrUnsupported, strings.ToUpper(d.Defname))
		}
		on, err := defBool(d)
		if err != nil {
			return nil, err
		}
		out.Full = on
	}
	var err error
	out.Tables, err = l.vacuumTables(v, "VACUUM")
	return out, err
}

// vacuumTables are the tables a VACUUM or ANALYZE (what) names, each one
// the catalog has; a column list is refused.
func (l *lowerer) vacuumTables(v *pg_query.VacuumStmt, what string) ([]string, error) {
	var tables []string
	for _, r := range v.Rels {
		vr := r.GetVacuumRelation()
		if vr == nil {
			return nil, fmt.Errorf("%w: %s target %v", ErrUnsupported, what, r)
		}
		if len(vr.VaCols) > 0 {
			return nil, fmt.Errorf("%w: %s with a column list", ErrUnsupported, what)
		}
		name, err := relName(vr.GetRelation())
		if err != nil {
			return nil, err
		}
		if _, err := l.cat.TableSchema(name); err != nil {
			return nil, err
		}
		tables = append(tables, name)
	}
	return tables, nil
}

// defBool reads a boolean option as PostgreSQL's defGetBoolean does: no
// value is true; otherwise true/false/on/off (any case) or 1/0.
func defBool(d *pg_query.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	if i := d.Arg.GetInteger(); i != nil {
		switch i.Ival {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
	} else {
		var s string
		switch {
		case d.Arg.GetString_() != nil:
			s = d.Arg.GetString_().Sval
		case d.Arg.GetBoolean() != nil:
			return d.Arg.GetBoolean().Boolval, nil
		}
		switch strings.ToLower(s) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
	}
	return false, fmt.Errorf("%w: %s requires a Boolean value", ErrSyntax, strings.ToUpper(d.Defname))
}

func (l *lowerer) cluster(c *pg_query.ClusterStmt) (Statement, error) {
	name, err := relName(c.Relation)
	if err != nil {
		return nil, err
	}
	if c.Indexname == "" {
		return nil, fmt.Errorf("%w: CLUSTER needs USING index", ErrUnsupported)
	}
	if _, err := l.cat.TableSchema(name); err != nil {
		return nil, err
	}
	return &Cluster{Table: name, Index: c.Indexname}, nil
}

func (l *lowerer) reindex(r *pg_query.ReindexStmt) (Statement, error) {
	switch r.Kind {
	case pg_query.ReindexObjectType_REINDEX_OBJECT_INDEX:
		if r.Relation == nil || r.Relation.Relname == "" {
			return nil, fmt.Errorf("%w: REINDEX INDEX needs a name", ErrSyntax)
		}
		return &Reindex{Index: r.Relation.Relname}, nil
	case pg_query.ReindexObjectType_REINDEX_OBJECT_TABLE:
		name, err := relName(r.Relation)
		if err != nil {
			return nil, err
		}
		if _, err := l.cat.TableSchema(name); err != nil {
			return nil, err
		}
		return &Reindex{Table: name}, nil
	}
	return nil, fmt.Errorf("%w: REINDEX %s", ErrUnsupported, r.Kind)
}
