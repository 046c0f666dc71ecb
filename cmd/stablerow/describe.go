package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stablerow/stablerow/engine"
)

// textTable is a small aligned table of strings, printed like a result.
func textTable(w io.Writer, head []string, rows [][]string) {
	tp := &tablePrinter{w: w, head: head, width: make([]int, len(head))}
	for i, h := range head {
		tp.width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		tp.add(r)
	}
	tp.finish()
}

// listTables is \d: a line per table of the database.
func listTables(ctx context.Context, w io.Writer, db *engine.DB) error {
	var rows [][]string
	for _, name := range db.Tables() {
		t, err := db.Table(ctx, name)
		if err != nil {
			return err
		}
		var ix []string
		for _, m := range t.Indexes() {
			ix = append(ix, m.Name)
		}
		rows = append(rows, []string{name, u(t.Version()), u(t.LiveRows()), strconv.Itoa(len(t.Fragments())), strings.Join(ix, ", ")})
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "no tables (CREATE TABLE makes one)")
		return nil
	}
	textTable(w, []string{"table", "version", "live rows", "fragments", "indexes"}, rows)
	return nil
}

// describeTable is \d NAME: the columns, the indexes and the versions of
// one table (stablerow inspect shows fragments and row id segments too).
func describeTable(ctx context.Context, w io.Writer, db *engine.DB, name string) error {
	t, err := db.Table(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "table %s: version %d, %s in %s\n", name, t.Version(), plural(int(t.LiveRows()), "live row"), plural(len(t.Fragments()), "fragment"))
	var cols [][]string
	for _, f := range t.Schema().Fields() {
		null := "not null"
		if f.Nullable {
			null = ""
		}
		cols = append(cols, []string{f.Name, f.Type.String(), null})
	}
	textTable(w, []string{"column", "type", "nullable"}, cols)
	fmt.Fprintln(w)
	if ixs := t.Indexes(); len(ixs) > 0 {
		var rows [][]string
		for _, m := range ixs {
			rows = append(rows, []string{m.Name, m.Kind, m.Column, u(m.DatasetVersion), fmt.Sprint(m.Fragments.ToArray())})
		}
		textTable(w, []string{"index", "kind", "column", "built at version", "fragments indexed"}, rows)
	} else {
		fmt.Fprintln(w, "no indexes")
	}
	fmt.Fprintln(w)
	vs, err := t.Versions(ctx) // committed versions: no pending or aborted claim
	if err != nil {
		return err
	}
	var rows [][]string
	for _, v := range vs {
		rows = append(rows, []string{u(v.Version), v.Time.UTC().Format(time.DateTime), v.Kind, u(v.LiveRows),
			strconv.Itoa(v.Fragments), u(v.Txn.RowsAdded), u(v.Txn.RowsDeleted)})
	}
	textTable(w, []string{"version", "committed (UTC)", "kind", "live rows", "fragments", "+rows", "-rows"}, rows)
	return nil
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }
