package table

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Describe writes the snapshot in readable form: schema, fragments with
// their row id segments and deletions, indexes, and the version history.
func (t *Table) Describe(ctx context.Context, w io.Writer, segments bool) error {
	m := t.m
	fmt.Fprintf(w, "version %d (%s, %s)\n", m.Version, m.Txn.Kind, time.Unix(0, m.TimestampNanos).UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "live rows %d in %d fragments; next row id %d, next fragment id %d\n",
		m.LiveRows(), len(m.Fragments), m.NextRowID, m.NextFragmentID)
	fmt.Fprintln(w, "schema:")
	for _, f := range t.schema.Fields() {
		id, _ := FieldID(f)
		null := "NOT NULL"
		if f.Nullable {
			null = "NULL"
		}
		typ := f.Type.String()
		if decl, ok := SQLType(f); ok {
			typ = decl
		}
		fmt.Fprintf(w, "  %-12s %-8s %-8s field id %d\n", f.Name, typ, null, id)
	}
	fmt.Fprintln(w, "fragments:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  id\tphysical\tlive\tdeleted\trow ids\tid bytes\tdata file\t")
	for _, f := range m.Fragments {
		lo, hi, _ := f.RowIDs.MinMax()
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%d\t[%d, %d]\t%d\t%s\t\n", f.ID, f.PhysicalRows, f.LiveRows(),
			f.Deletions.Cardinality(), lo, hi, f.RowIDs.EncodedSize(), f.DataFile)
	}
	tw.Flush()
	if segments {
		for _, f := range m.Fragments {
			fmt.Fprintf(w, "  fragment %d row id segments:\n", f.ID)
			for _, s := range f.RowIDs.Segments() {
				fmt.Fprintf(w, "    %-16s len %-8d ids [%d, %d] %d B\n", s.Kind, s.Len, s.Min, s.Max, s.EncodedBytes)
			}
		}
	}
	if len(m.Indexes) > 0 {
		fmt.Fprintln(w, "indexes:")
		for _, ix := range m.Indexes {
			fmt.Fprintf(w, "  %s: %s on %s, built at version %d, covers fragments %v, files %s\n",
				ix.Name, ix.Kind, ix.Column, ix.DatasetVersion, ix.Fragments.ToArray(), ix.Prefix)
		}
	}
	vs, err := Versions(ctx, t.st)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "versions:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  version\tkind\tlive rows\tfragments\t+rows\t-rows\t")
	for _, v := range vs {
		fmt.Fprintf(tw, "  %d\t%s\t%d\t%d\t%d\t%d\t\n", v.Version, v.Kind, v.LiveRows, v.Fragments, v.Txn.RowsAdded, v.Txn.RowsDeleted)
	}
	return tw.Flush()
}
