package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// Table maintenance follows PostgreSQL's statements:
//
//	VACUUM [t, ...]       Vacuum: reclaim the space of files no version needs
//	VACUUM FULL [t, ...]  Compact: rewrite the table, order-preserving
//	CLUSTER t USING idx   Cluster: a reordered rewrite
//	REINDEX ...           Reindex: fold the rewrite history into indexes
//
// Without a table name VACUUM covers every table of the database, and for
// a local database also the directories that are no table (see
// tabledir.go).

// ErrVacuumConflict: a leftover directory Vacuum moved aside turned out to hold a
// committed table and could not be moved back; nothing was deleted.
var ErrVacuumConflict = errkind.New(errkind.Conflict, "engine: vacuum")

// VacuumOptions tune Vacuum. The zero value is plain SQL VACUUM.
type VacuumOptions struct {
	// Grace keeps unreferenced files (and unfinished table directories)
	// younger than Grace: a concurrent writer stores its files before the
	// commit that references them. 0 means table.DefaultCleanupMinAge (one
	// hour; SQL VACUUM always uses it, PostgreSQL has no such option); a
	// negative value turns the guard off, which is safe only when nothing
	// writes meanwhile.
	Grace time.Duration
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
}

// VacuumReport says what Vacuum removed (with DryRun: would remove).
type VacuumReport struct {
	Tables    []TableVacuum
	Leftovers []Leftover
}

// TableVacuum is the reclamation of one table (table.Cleanup's report).
type TableVacuum struct {
	Table string
	table.CleanupReport
}

// LeftoverKind says why a directory of the database is no table.
type LeftoverKind string

const (
	// LeftoverUncommitted: a table directory without a committed manifest
	// (a CREATE TABLE that failed, or one in flight while it is young).
	LeftoverUncommitted LeftoverKind = "no committed manifest"
	// LeftoverDropped: what an interrupted DROP TABLE left.
	LeftoverDropped LeftoverKind = "interrupted drop"
	// LeftoverSwept: what an interrupted Vacuum left.
	LeftoverSwept LeftoverKind = "interrupted vacuum"
	// LeftoverForeign: a directory named like a table, with no committed
	// manifest, holding something no table holds (Note names it). Vacuum
	// leaves it alone.
	LeftoverForeign LeftoverKind = "not a table directory, left alone"
)

// Leftover is one directory of the database that is no table.
type Leftover struct {
	Dir   string // name under the database directory
	Kind  LeftoverKind
	Note  string // LeftoverForeign: the entry that is not a table's
	Files int
	Bytes int64
	// Removed is false when the directory was kept: younger than the grace
	// period, or foreign.
	Removed bool
}

// Removed sums the files and bytes removed over the report.
func (r *VacuumReport) Removed() (files int, bytes int64) {
	for _, t := range r.Tables {
		files += t.FilesDeleted + t.TempFilesDeleted
		bytes += t.BytesDeleted + t.TempBytesDeleted
	}
	for _, l := range r.Leftovers {
		if l.Removed {
			files += l.Files
			bytes += l.Bytes
		}
	}
	return files, bytes
}

// Vacuum reclaims space: it deletes the files no version of a table
// references — data files, index files, rowmaps and the temporary files
// of interrupted writes — keeping those younger than the grace period
// (table.Cleanup does the work). With name "" it covers every table and,
// for a local database, removes the directories that are no table:
// unfinished CREATE TABLEs older than the grace period, and what
// interrupted DROP TABLEs left. Versions are all kept.
func (db *DB) Vacuum(ctx context.Context, name string, opt VacuumOptions) (*VacuumReport, error) {
	names := []string{name}
	if name == "" {
		names = db.Tables()
	}
	rep := &VacuumReport{}
	for _, n := range names {
		st, err := db.storeOf(n)
		if err != nil {
			return rep, err
		}
		cr, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: opt.Grace, DryRun: opt.DryRun, Txns: db.opt.Table.Txns})
		if name == "" && errors.Is(err, table.ErrNotFound) {
			continue // dropped by another process meanwhile
		}
		if err != nil {
			return rep, fmt.Errorf("engine: vacuum %s: %w", n, err)
		}
		rep.Tables = append(rep.Tables, TableVacuum{Table: n, CleanupReport: *cr})
	}
	if name == "" && db.dir != "" {
		grace := opt.Grace
		if grace == 0 {
			grace = table.DefaultCleanupMinAge
		}
		lo, err := db.sweepDirs(ctx, grace, opt.DryRun)
		rep.Leftovers = lo
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// Compact is VACUUM FULL: an order-preserving compaction (small and
// deletion-heavy adjacent fragments merge, row ids kept). Index remaps are
// deferred: the rewrite joins the fragment reuse history and indexes keep
// answering through it until Reindex. It returns the fragment counts
// before and after.
func (db *DB) Compact(ctx context.Context, name string) (before, after int, err error) {
	t, err := db.Table(ctx, name)
	if err != nil {
		return 0, 0, err
	}
	nt, err := t.Compact(ctx, table.CompactOptions{DeferIndexRemap: true, Mem: db.mem(), Workers: db.workers()})
	if err != nil {
		return 0, 0, err
	}
	return len(t.Fragments()), len(nt.Fragments()), nil
}

// workers is the local parallelism of maintenance tasks.
func (db *DB) workers() int { return workersOf(db.opt) }

func workersOf(opt Options) int {
	if opt.Workers > 0 {
		return opt.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// BulkTake takes the rows of ids from table name, split by fragment into
// tasks run on Options.Workers goroutines (package access, BulkTake):
// emit receives each task's batch, the columns plus "ord" (the 1-based
// position of the row's id in ids, as WITH ORDINALITY numbers them: the
// row of ids[0] has ord 1), in no particular order. It returns the ords
// of ids with no live row, in the same numbering.
func (db *DB) BulkTake(ctx context.Context, name string, ids []uint64, columns []string, emit func(arrow.RecordBatch) error) (missing []uint64, err error) {
	t, err := db.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	p, err := db.acc.BulkTake(ctx, t, ids, columns, access.TakeOptions{Workers: db.workers()}, db.mem(), emit)
	if err != nil {
		return nil, err
	}
	missing = make([]uint64, len(p.Missing))
	for i, pos := range p.Missing {
		missing[i] = access.Ord(pos)
	}
	return missing, nil
}

// vacuum runs a VACUUM statement and returns what it did as rows:
//
//	VACUUM [t]       name, kind, files_removed, bytes_removed, files_kept_young
//	VACUUM FULL [t]  name, fragments_before, fragments_after
func (db *DB) vacuum(ctx context.Context, s *sql.Vacuum) (*Result, error) {
	names := s.Tables
	if s.Full {
		if len(names) == 0 {
			names = db.Tables()
		}
		res := newRowsResult(db, compactSchema)
		for _, n := range names {
			before, after, err := db.Compact(ctx, n)
			if err != nil {
				res.Release()
				return nil, err
			}
			res.add(n, int64(before), int64(after))
		}
		return res.finish(), nil
	}
	if len(names) == 0 {
		names = []string{""}
	}
	res := newRowsResult(db, vacuumSchema)
	for _, n := range names {
		rep, err := db.Vacuum(ctx, n, VacuumOptions{})
		if err != nil {
			res.Release()
			return nil, err
		}
		for _, t := range rep.Tables {
			res.add(t.Table, "table", int64(t.FilesDeleted+t.TempFilesDeleted), t.BytesDeleted+t.TempBytesDeleted, int64(t.FilesTooYoung))
		}
		for _, l := range rep.Leftovers {
			var files, bytes, young int64
			if l.Removed {
				files, bytes = int64(l.Files), l.Bytes
			} else if l.Kind != LeftoverForeign {
				young = int64(l.Files)
			}
			res.add(l.Dir, string(l.Kind), files, bytes, young)
		}
	}
	return res.finish(), nil
}

var (
	vacuumSchema = arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "kind", Type: arrow.BinaryTypes.String},
		{Name: "files_removed", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bytes_removed", Type: arrow.PrimitiveTypes.Int64},
		{Name: "files_kept_young", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	compactSchema = arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "fragments_before", Type: arrow.PrimitiveTypes.Int64},
		{Name: "fragments_after", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
)

// rowsResult builds a small Result of string and int64 columns row by row.
type rowsResult struct {
	b *array.RecordBuilder
}

func newRowsResult(db *DB, sc *arrow.Schema) *rowsResult {
	return &rowsResult{b: array.NewRecordBuilder(db.mem(), sc)}
}

func (r *rowsResult) add(vals ...any) {
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			r.b.Field(i).(*array.StringBuilder).Append(x)
		case int64:
			r.b.Field(i).(*array.Int64Builder).Append(x)
		}
	}
}

func (r *rowsResult) finish() *Result {
	defer r.b.Release()
	rec := r.b.NewRecordBatch()
	return &Result{Schema: rec.Schema(), Batches: []arrow.RecordBatch{rec}}
}

// Release frees a result abandoned before finish.
func (r *rowsResult) Release() { r.b.Release() }

// Cluster reorders a table by the column of one of its indexes (a stable
// partition into destination fragments, recorded as a rowmap), with the
// index remap deferred. It runs as recluster tasks (table.PlanRecluster)
// on the local workers.
func (db *DB) Cluster(ctx context.Context, name, index string) error {
	t, err := db.Table(ctx, name)
	if err != nil {
		return err
	}
	m := t.Index(index)
	if m == nil {
		return fmt.Errorf("%w: no index %q on %s", ErrIndex, index, name)
	}
	per := uint64(1 << 20)
	if opt := db.opt.Table.MaxRowsPerFragment; opt > 0 {
		per = uint64(opt)
	}
	dests := int((t.LiveRows() + per - 1) / per)
	dests = max(dests, min(4, int(t.LiveRows())))
	if dests < 1 {
		return nil // nothing to reorder
	}
	_, err = t.Recluster(ctx, m.Column, table.ReclusterOptions{Destinations: dests, DeferIndexRemap: true, Mem: db.mem(), Workers: db.workers()})
	return err
}

// Reindex optimizes one index (by name, searched in every table) or every
// index of a table.
func (db *DB) Reindex(ctx context.Context, tableName, index string) error {
	if tableName != "" {
		t, err := db.Table(ctx, tableName)
		if err != nil {
			return err
		}
		for _, m := range t.Indexes() {
			if err := db.OptimizeIndex(ctx, tableName, m.Name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range db.Tables() {
		t, err := db.Table(ctx, name)
		if err != nil {
			return err
		}
		for _, m := range t.Indexes() {
			if strings.EqualFold(m.Name, index) {
				return db.OptimizeIndex(ctx, name, m.Name)
			}
		}
	}
	return fmt.Errorf("%w: no index %q", ErrIndex, index)
}

// newLayer is the engine's index access layer, building indexes with the
// engine's local workers (CREATE INDEX, OPTIMIZE INDEX, REINDEX).
func newLayer(opt Options) *access.Layer {
	l := access.New(opt.Mem)
	l.SetWorkers(workersOf(opt))
	return l
}
