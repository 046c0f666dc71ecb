package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Table maintenance reuses Postgres' own statements for stablerow's
// rewrites, so no grammar of our own is needed:
//
//	VACUUM t                 order-preserving compaction (Compact)
//	CLUSTER t USING idx      reordered rewrite by idx's column (Recluster)
//	REINDEX INDEX idx        bring idx up to date (OptimizeIndex)
//	REINDEX TABLE t          every index of t
//
// Rewrites defer the index remap (the fragment reuse history keeps every
// index answering); REINDEX folds the history into the index.

// Vacuum is VACUUM [FULL] table.
type Vacuum struct{ Table string }

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
		return nil, fmt.Errorf("%w: ANALYZE", ErrUnsupported)
	}
	if len(v.Rels) != 1 {
		return nil, fmt.Errorf("%w: VACUUM needs exactly one table", ErrUnsupported)
	}
	name, err := relName(v.Rels[0].GetVacuumRelation().GetRelation())
	if err != nil {
		return nil, err
	}
	if _, err := l.cat.TableSchema(name); err != nil {
		return nil, err
	}
	return &Vacuum{Table: name}, nil
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
