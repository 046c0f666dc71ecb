package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// ErrUnknownIndex: DROP INDEX of a name no table has (PostgreSQL's
// undefined_object, 'index "x" does not exist').
var ErrUnknownIndex = errkind.New(errkind.NotFound, "engine: unknown index")

// CreateIndexKeys builds a BTree on the key columns keys, in order, each
// ASC or DESC with its NULLs first or last, over every fragment of the
// latest version, and records it in the manifest. With unique the build
// fails (access.ErrUniqueViolation) if two live rows have equal keys with
// no NULL among them, and every later commit that adds rows is checked
// against it (unique.go).
func (db *DB) CreateIndexKeys(ctx context.Context, tableName, indexName string, keys []table.IndexKey, unique bool) error {
	t, err := db.Table(ctx, tableName)
	if err != nil {
		return err
	}
	_, err = db.acc.CreateIndexKeys(ctx, t, tableName, indexName, keys, unique)
	return indexErr(err)
}

// IndexKeyText is an index's key columns as CREATE INDEX spells them,
// e.g. "a, b DESC, c NULLS FIRST" (an order or NULLs placement only where
// it is not the default).
func IndexKeyText(m *table.IndexMeta) string {
	keys := m.KeyColumns()
	cols := make([]string, len(keys))
	for i, k := range keys {
		cols[i] = k.Column
		if k.Desc {
			cols[i] += " DESC"
		}
		if k.NullsFirst != k.Desc {
			cols[i] += map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[k.NullsFirst]
		}
	}
	return strings.Join(cols, ", ")
}

// createIndex runs CREATE [UNIQUE] INDEX.
func (db *DB) createIndex(ctx context.Context, s *sql.CreateIndex) error {
	keys := make([]table.IndexKey, len(s.Keys))
	for i, k := range s.Keys {
		keys[i] = table.IndexKey{Column: k.Column, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	if len(keys) == 0 {
		keys = []table.IndexKey{{Column: s.Column}}
	}
	return db.CreateIndexKeys(ctx, s.Table, s.Name, keys, s.Unique)
}

// DropIndex removes the index called name from the table that has it, in
// a new version (table.DropIndex). Index names are one namespace over the
// database, as PostgreSQL's relations of a schema.
func (db *DB) DropIndex(ctx context.Context, name string) error {
	for _, tn := range db.Tables() {
		t, err := db.Table(ctx, tn)
		if err != nil {
			if errors.Is(err, ErrUnknownTable) {
				continue // dropped meanwhile
			}
			return err
		}
		if t.Index(name) == nil {
			continue
		}
		if _, err := t.DropIndex(ctx, name); err != nil {
			if errors.Is(err, table.ErrNotFound) {
				break // dropped concurrently
			}
			return err
		}
		return nil
	}
	return fmt.Errorf("%w: index %q does not exist", ErrUnknownIndex, name)
}
