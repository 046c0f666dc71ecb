package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/plan/sql"
	"github.com/stablerow/stablerow/table"
)

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
	return fmt.Sprintf("%s on %s, %s, %d rows", m.Kind, m.Column, plural(frags, "fragment"), rows)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
