package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// ErrMismatch: a pipeline's output differs from the single-process path.
var ErrMismatch = errkind.New(errkind.Internal, "pipeline: output differs from the single-process path")

// TakeRows are a take's answer as comparable text: the row of each input
// position (ord), its columns rendered by Arrow's ValueStr.
type TakeRows map[uint64][]string

// addRows adds the rows of b (columns, then the ord column last).
func (r TakeRows) addRows(b arrow.RecordBatch) error {
	n := int(b.NumCols())
	ord, ok := b.Column(n - 1).(*array.Uint64)
	if !ok || b.Schema().Field(n-1).Name != access.OrdColumn {
		return fmt.Errorf("%w: the last column is not %q", ErrMismatch, access.OrdColumn)
	}
	for i := range int(b.NumRows()) {
		o := ord.Value(i)
		if _, dup := r[o]; dup {
			return fmt.Errorf("%w: ord %d twice", ErrMismatch, o)
		}
		row := make([]string, n-1)
		for c := range n - 1 {
			row[c] = b.Column(c).ValueStr(i)
		}
		r[o] = row
	}
	return nil
}

// ReadTakeOutput reads every part the manifest under out names.
func ReadTakeOutput(ctx context.Context, out string, mem memory.Allocator) (TakeRows, *TakeManifest, error) {
	m, err := ReadManifest(ctx, out)
	if err != nil {
		return nil, nil, err
	}
	st, err := openDirStore(ctx, out)
	if err != nil {
		return nil, nil, err
	}
	rows := TakeRows{}
	for _, p := range m.Parts {
		if err := readParquet(ctx, st, p.File, nil, mem, rows.addRows); err != nil {
			return nil, nil, err
		}
	}
	return rows, m, nil
}

// SingleProcessTake answers the same take with engine.DB.BulkTake, the
// single-process path, on the table's latest version.
func SingleProcessTake(ctx context.Context, c TakeConfig, columns []string, mem memory.Allocator) (TakeRows, []uint64, error) {
	ids, err := ReadIDs(ctx, c.IDs, c.IDColumn, mem)
	if err != nil {
		return nil, nil, err
	}
	db, err := engine.Open(c.DB, engine.Options{Mem: mem})
	if err != nil {
		return nil, nil, err
	}
	rows := TakeRows{}
	missing, err := db.BulkTake(ctx, c.Table, ids, columns, rows.addRows)
	return rows, missing, err
}

// VerifyTake checks that the take written under c.Out equals the
// single-process take of the same ids: the same row for every ord, the
// same missing ids, no duplicates. The table must not have changed since.
func VerifyTake(ctx context.Context, c TakeConfig, mem memory.Allocator) error {
	got, m, err := ReadTakeOutput(ctx, c.Out, mem)
	if err != nil {
		return err
	}
	want, missing, err := SingleProcessTake(ctx, c, m.Columns, mem)
	if err != nil {
		return err
	}
	if len(missing) != m.Missing || len(got)+len(missing) != m.IDs {
		return fmt.Errorf("%w: %d rows and %d missing of %d ids, the single-process path %d and %d",
			ErrMismatch, len(got), m.Missing, m.IDs, len(want), len(missing))
	}
	if len(got) != len(want) {
		return fmt.Errorf("%w: %d rows, the single-process path %d", ErrMismatch, len(got), len(want))
	}
	for o, w := range want {
		if g, ok := got[o]; !ok || !slices.Equal(g, w) {
			return fmt.Errorf("%w: ord %d: %q, the single-process path %q", ErrMismatch, o, g, w)
		}
	}
	return nil
}
