package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// commandTag is PostgreSQL's command tag for a statement without a result
// set that affected n rows, as psql prints it and a PostgreSQL client
// reads it (src/include/tcop/cmdtaglist.h): "CREATE TABLE", "INSERT 0 3"
// (the 0 is the OID PostgreSQL no longer assigns), "UPDATE 2", "DELETE 1",
// "SELECT 5" for CREATE TABLE AS, "COPY 10". "" for the rest (queries).
func commandTag(st sql.Statement, n int64) string {
	switch s := st.(type) {
	case *sql.CreateTable:
		return "CREATE TABLE"
	case *sql.CreateTableAs:
		return fmt.Sprintf("SELECT %d", n)
	case *sql.Insert:
		return fmt.Sprintf("INSERT 0 %d", n)
	case *sql.Update:
		return fmt.Sprintf("UPDATE %d", n)
	case *sql.Delete:
		return fmt.Sprintf("DELETE %d", n)
	case *sql.CopyFrom, *sql.CopyTo:
		return fmt.Sprintf("COPY %d", n)
	case *sql.DropTable:
		return "DROP TABLE"
	case *sql.DropIndex:
		return "DROP INDEX"
	case *sql.AlterConstraint:
		return "ALTER TABLE"
	case *sql.CreateView:
		return "CREATE VIEW"
	case *sql.DropView:
		return "DROP VIEW"
	case *sql.CreateIndex:
		return "CREATE INDEX"
	case *sql.Cluster:
		return "CLUSTER"
	case *sql.Reindex:
		return "REINDEX"
	case *sql.Vacuum:
		return "VACUUM"
	case *sql.Analyze:
		return "ANALYZE"
	case *sql.Set:
		if s.Reset {
			return "RESET"
		}
		return "SET"
	}
	return ""
}

// summarize says what a maintenance statement that just succeeded did,
// read back from the table's new version (Rows.Summary): a CREATE INDEX,
// CLUSTER or REINDEX affects no rows, so "0 rows affected" would say
// nothing. "" for other statements, or when the table cannot be read
// again (the statement itself succeeded; its summary is only a courtesy).
func (db *DB) summarize(ctx context.Context, st sql.Statement) string {
	switch s := st.(type) {
	case *sql.CreateIndex:
		t, err := db.Table(ctx, s.Table)
		if err != nil || t.Index(s.Name) == nil {
			return ""
		}
		return fmt.Sprintf("CREATE INDEX %s (%s)", s.Name, describeIndex(t, t.Index(s.Name)))
	case *sql.Cluster:
		t, err := db.Table(ctx, s.Table)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("CLUSTER %s USING %s (%d rows in %s; index remap deferred until REINDEX)",
			s.Table, s.Index, t.LiveRows(), plural(len(t.Fragments()), "fragment"))
	case *sql.Reindex:
		var done []string
		for _, name := range db.Tables() {
			if s.Table != "" && !strings.EqualFold(name, s.Table) {
				continue
			}
			t, err := db.Table(ctx, name)
			if err != nil {
				return ""
			}
			for _, m := range t.Indexes() {
				if s.Table != "" || strings.EqualFold(m.Name, s.Index) {
					done = append(done, fmt.Sprintf("%s (%s)", m.Name, describeIndex(t, m)))
				}
			}
		}
		if s.Table != "" {
			if len(done) == 0 {
				return fmt.Sprintf("REINDEX TABLE %s (no index)", s.Table)
			}
			return fmt.Sprintf("REINDEX TABLE %s: %s", s.Table, strings.Join(done, ", "))
		}
		if len(done) == 1 {
			return "REINDEX INDEX " + done[0]
		}
	}
	return ""
}

// describeIndex is an index's kind, column and what it covers, e.g.
// "btree on _rowid, 3 fragments, 200000 rows" (live rows of the covered
// fragments).
func describeIndex(t *table.Table, m *table.IndexMeta) string {
	frags, rows := 0, uint64(0)
	for _, f := range t.Fragments() {
		if m.Fragments != nil && m.Fragments.Contains(f.ID) {
			frags++
			rows += f.LiveRows()
		}
	}
	on := m.Column
	if m.Keys != nil {
		on = "(" + IndexKeyText(m) + ")"
	}
	if m.Unique && m.Column != table.RowID {
		on += " unique"
	}
	return fmt.Sprintf("%s on %s, %s, %d rows", m.Kind, on, plural(frags, "fragment"), rows)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
