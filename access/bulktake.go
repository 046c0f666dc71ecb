package access

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/radix"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
)

// Bulk take: fetching millions of rows by row id, split into tasks that
// workers (local goroutines, or a distributed engine) run independently.
//
//	PlanTake(ids) ──► resolve ids to live addresses (the _rowid index when
//	                  there is one, row id sequences for the rest)
//	              ──► group by owning fragment, cut into tasks of at most
//	                  MaxTaskRows rows: TakeTask{Fragment, Ords, Offsets}
//	ExecuteTake(task) ──► one record batch: the columns + "ord" (the
//	                  1-based position of each row's id in the input)
//
// Rows come out grouped by fragment, not in the input's order; ord lets a
// caller restore the driving order or write the rows unordered with it.
// Ids with no live row are listed in TakePlan.Missing.
//
// ord counts from 1, as SQL's WITH ORDINALITY does and as the Flight SQL
// server's takes split into endpoints (v.ord) and Beam's take output do, so the
// same id has the same ord whichever path took it. The plan's own
// positions (TakeTask.Ords, TakePlan.Missing) are 0-based indices into
// the ids slice, for Go callers to index with; Ord turns one into the
// ord a caller is shown.

// TakeFormat is the version of TakeTask's JSON encoding.
const TakeFormat = 1

// OrdColumn is the column ExecuteTake adds: the 1-based input position of
// the id (Ord).
const OrdColumn = "ord"

// Ord is the ord of the id at 0-based position pos of a take's input:
// pos + 1, WITH ORDINALITY's numbering.
func Ord(pos uint64) uint64 { return pos + 1 }

// DefaultMaxTaskRows bounds a take task (and so the batch it returns).
const DefaultMaxTaskRows = 1 << 16

// ErrTakeTask: a malformed take task, or one for another version.
var ErrTakeTask = errkind.New(errkind.InvalidArgument, "access: bad take task")

// TakePlan is PlanTake's output.
type TakePlan struct {
	Format  int        `json:"format"`
	Version uint64     `json:"version"`
	Tasks   []TakeTask `json:"tasks"`
	// Missing are the 0-based input positions of ids with no live row
	// (Ord gives their ords).
	Missing []uint64 `json:"missing,omitempty"`
}

// TakeTask takes rows of one fragment: Offsets[i] is the row for 0-based
// input position Ords[i] (ExecuteTake writes it as Ord(Ords[i])); both
// sorted by offset.
type TakeTask struct {
	Format   int      `json:"format"`
	Version  uint64   `json:"version"`
	Fragment uint32   `json:"fragment"`
	Ords     []uint64 `json:"ords"`
	Offsets  []uint32 `json:"offsets"`
}

// TakeOptions tune PlanTake and BulkTake.
type TakeOptions struct {
	// MaxTaskRows caps the rows of one task (0: DefaultMaxTaskRows).
	MaxTaskRows int
	// Workers is the number of tasks BulkTake runs at once (0: 1).
	Workers int
}

// PlanTake resolves ids (in snapshot t) to their live rows and splits them
// by fragment into tasks.
func (l *Layer) PlanTake(ctx context.Context, t *table.Table, ids []uint64, o TakeOptions) (*TakePlan, error) {
	if o.MaxTaskRows <= 0 {
		o.MaxTaskRows = DefaultMaxTaskRows
	}
	if uint64(len(ids)) >= 1<<32 {
		return nil, fmt.Errorf("%w: %d ids in one take (at most 2^32-1)", ErrTakeTask, len(ids))
	}
	addrs, found, err := l.locate(ctx, t, ids)
	if err != nil {
		return nil, err
	}
	p := &TakePlan{Format: TakeFormat, Version: t.Version()}
	keys, runs := p.groupByFragment(ids, addrs, found)
	for _, r := range runs {
		for c := range slices.Chunk(keys[:r.n], o.MaxTaskRows) {
			k := TakeTask{Format: TakeFormat, Version: p.Version, Fragment: r.fragment,
				Ords: make([]uint64, len(c)), Offsets: make([]uint32, len(c))}
			for j, key := range c {
				k.Ords[j], k.Offsets[j] = key&(1<<32-1), uint32(key>>32)
			}
			p.Tasks = append(p.Tasks, k)
		}
		keys = keys[r.n:]
	}
	return p, nil
}

// groupByFragment lists the ids that were found as keys offset<<32 |
// position, ordered by fragment, then offset, then position, and records
// the rest in p.Missing, with the runs of keys each fragment holds, in
// fragment order. Two stable radix sorts instead of a map of
// per-fragment slices and a comparison sort each (which cost ~0.2 s of
// CPU per 1M ids): the positions, tagged with their fragment, sorted by
// fragment (input order, so position order, kept within one), then each
// fragment's keys sorted by offset alone (ties keep position order).
// Both sorts use only the bits the values span.
func (p *TakePlan) groupByFragment(ids, addrs []uint64, found []bool) ([]uint64, []fragmentRun) {
	lo, hi, n := uint32(1<<32-1), uint32(0), 0
	for i := range ids {
		if !found[i] {
			p.Missing = append(p.Missing, uint64(i))
			continue
		}
		f := rowid.Address(addrs[i]).Fragment()
		lo, hi, n = min(lo, f), max(hi, f), n+1
	}
	if n == 0 {
		return nil, nil
	}
	keys := make([]uint64, 0, n)
	for i := range ids {
		if found[i] {
			keys = append(keys, uint64(rowid.Address(addrs[i]).Fragment()-lo)<<32|uint64(i))
		}
	}
	radix.SortKeys(keys, 32, 32+uint(bits.Len32(hi-lo)))
	var runs []fragmentRun
	for s := 0; s < len(keys); {
		f, e, top := keys[s]>>32, s, uint32(0)
		for ; e < len(keys) && keys[e]>>32 == f; e++ {
			i := keys[e] & (1<<32 - 1)
			off := rowid.Address(addrs[i]).Offset()
			keys[e], top = uint64(off)<<32|i, max(top, off)
		}
		radix.SortKeys(keys[s:e], 32, 32+uint(bits.Len32(top)))
		runs = append(runs, fragmentRun{fragment: lo + uint32(f), n: e - s})
		s = e
	}
	return keys, runs
}

// fragmentRun is n consecutive keys of groupByFragment's, all of one
// fragment.
type fragmentRun struct {
	fragment uint32
	n        int
}

// locate finds the live address of each id: ResolveIDs through the
// unique index on _rowid when there is one, else through the row id
// sequences alone.
func (l *Layer) locate(ctx context.Context, t *table.Table, ids []uint64) ([]uint64, []bool, error) {
	var ix KeyIndex
	var remap Remapper
	if m := Find(t, table.RowID, true); m != nil && len(ids) > 0 {
		r, err := l.Resolver(ctx, t, m)
		if err != nil {
			return nil, nil, err
		}
		ix, remap = r, r.Remapper()
	}
	addrs, found, err := ResolveIDs(ctx, t, ix, remap, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: take: %w", ErrIndex, err)
	}
	return addrs, found, nil
}

// ExecuteTake takes task k's rows from snapshot t (which must be the
// version the task was planned on): the named columns plus OrdColumn,
// each row's 1-based input position.
func ExecuteTake(ctx context.Context, t *table.Table, k *TakeTask, columns []string, mem memory.Allocator) (arrow.RecordBatch, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if k.Format != TakeFormat || len(k.Ords) != len(k.Offsets) {
		return nil, fmt.Errorf("%w: format %d, %d ords for %d offsets", ErrTakeTask, k.Format, len(k.Ords), len(k.Offsets))
	}
	if k.Version != t.Version() {
		return nil, fmt.Errorf("%w: task of version %d on a snapshot of version %d", ErrTakeTask, k.Version, t.Version())
	}
	if slices.Contains(columns, OrdColumn) {
		return nil, fmt.Errorf("%w: column %q is the take's ordinal", ErrTakeTask, OrdColumn)
	}
	addrs := make([]uint64, len(k.Offsets))
	for i, off := range k.Offsets {
		addrs[i] = uint64(rowid.NewAddress(k.Fragment, off))
		if !t.IsLive(addrs[i]) {
			return nil, fmt.Errorf("%w: row %d of fragment %d is not live", ErrTakeTask, off, k.Fragment)
		}
	}
	b, err := t.Take(ctx, addrs, nil, columns, mem)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	ob := array.NewUint64Builder(mem)
	defer ob.Release()
	ob.Reserve(len(k.Ords))
	for _, pos := range k.Ords {
		ob.UnsafeAppend(Ord(pos))
	}
	ord := ob.NewArray()
	defer ord.Release()
	fs := append(slices.Clone(b.Schema().Fields()), arrow.Field{Name: OrdColumn, Type: arrow.PrimitiveTypes.Uint64})
	cols := append(slices.Clone(b.Columns()), ord)
	return array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, b.NumRows()), nil
}

// BulkTake plans the take of ids in snapshot t and runs its tasks on up to
// o.Workers goroutines, handing each task's batch (columns + OrdColumn) to
// emit, one call at a time, in no particular order; emit must not keep
// the batch past its return without retaining it. It returns the plan
// (for its Missing ids).
func (l *Layer) BulkTake(ctx context.Context, t *table.Table, ids []uint64, columns []string, o TakeOptions, mem memory.Allocator, emit func(arrow.RecordBatch) error) (*TakePlan, error) {
	p, err := l.PlanTake(ctx, t, ids, o)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex // serializes emit
	err = table.RunTasks(ctx, len(p.Tasks), o.Workers, func(ctx context.Context, i int) error {
		b, err := ExecuteTake(ctx, t, &p.Tasks[i], columns, mem)
		if err != nil {
			return err
		}
		defer b.Release()
		mu.Lock()
		defer mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		return emit(b)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
