package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
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
	views, err := db.Views(ctx)
	if err != nil {
		return err
	}
	if len(rows) == 0 && len(views) == 0 {
		fmt.Fprintln(w, "no tables (CREATE TABLE makes one)")
		return nil
	}
	if len(rows) > 0 {
		textTable(w, []string{"table", "version", "live rows", "fragments", "indexes"}, rows)
	}
	if len(views) > 0 {
		var vrows [][]string
		for _, name := range views {
			def, ok, err := db.View(ctx, name)
			if err != nil {
				return err
			}
			if ok {
				vrows = append(vrows, []string{name, strings.Join(def.Columns, ", ")})
			}
		}
		if len(rows) > 0 {
			fmt.Fprintln(w)
		}
		textTable(w, []string{"view", "columns"}, vrows)
	}
	return nil
}

// describeView is \d NAME of a view: its columns as a query of it
// plans now, and its SELECT.
func describeView(ctx context.Context, w io.Writer, db *engine.DB, def *sql.ViewDef) error {
	sch, err := db.ViewSchema(ctx, def.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "view %s\n", def.Name)
	var cols [][]string
	for i, f := range sch.Fields() {
		typ := f.Type.String()
		if i < len(def.Types) {
			typ = def.Types[i]
		}
		cols = append(cols, []string{f.Name, typ})
	}
	textTable(w, []string{"column", "type"}, cols)
	fmt.Fprintf(w, "\nview definition: %s\n", def.SQL)
	return nil
}

// describeTable is \d NAME: the columns, the indexes and the versions of
// one table (stablerow inspect shows fragments and row id segments too).
func describeTable(ctx context.Context, w io.Writer, db *engine.DB, name string) error {
	if def, ok, err := db.View(ctx, name); err != nil {
		return err
	} else if ok {
		return describeView(ctx, w, db, def)
	}
	t, err := db.Table(ctx, name)
	if errors.Is(err, engine.ErrUnknownTable) {
		return &noRelation{name: name, err: err}
	}
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
			kind := m.Kind
			if m.Unique && (m.Column != table.RowID || m.Keys != nil) {
				kind += " unique"
			}
			rows = append(rows, []string{m.Name, kind, engine.IndexKeyText(m), u(m.DatasetVersion), fmt.Sprint(m.Fragments.ToArray())})
		}
		textTable(w, []string{"index", "kind", "columns", "built at version", "fragments indexed"}, rows)
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

// noRelation is \d of a name that is neither a table nor a view, said as
// psql says it (describe.c: Did not find any relation named "x".); the
// error it holds keeps the kind (NotFound) and -debug's chain. Without it
// the person read only the bare name: the message's one text is
// engine.ErrUnknownTable's, a category errkind.Message drops.
type noRelation struct {
	name string
	err  error
}

func (e *noRelation) Error() string {
	msg := fmt.Sprintf("Did not find any relation named %q.", e.name)
	if debug {
		msg += " (" + e.err.Error() + ")"
	}
	return msg
}
func (e *noRelation) Unwrap() error { return e.err }
