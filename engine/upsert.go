package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// ErrCardinalityViolation: INSERT ... ON CONFLICT DO UPDATE proposed a
// row whose key a row the same statement inserted or updated holds,
// PostgreSQL's cardinality_violation (SQLSTATE 21000) from
// ExecOnConflictUpdate: updating it would make the result depend on the
// order of the proposed rows.
var ErrCardinalityViolation = errkind.Category(errkind.InvalidArgument, "engine: cardinality violation")

// upsert runs INSERT ... ON CONFLICT ... DO UPDATE (PostgreSQL's
// ExecInsert with ExecOnConflictUpdate), proposed row by proposed row in
// the source's order: a row whose key in an arbiter index no row holds is
// inserted; one whose key a row of the table's snapshot holds updates
// that row with the action's SET, when its WHERE holds (the row keeps
// its row id, as UPDATE's rows do); one whose key a row this statement
// inserted or updated holds is ErrCardinalityViolation.
//
// Its inserts and updates are one commit: outside a transaction block
// the statement stages its writes on the snapshot it read and publishes
// them as one version (table.Staged), so a failure publishes nothing. A
// concurrent writer that committed a change to an updated row, or a row
// with an inserted key, since that snapshot makes the commit fail with
// table.ErrConflict (no lost update), as an UPDATE's or INSERT's does.
func (db *DB) upsert(ctx context.Context, cat *catalog, t *table.Table, s *sql.Insert, pos []int, params map[string]any) (int64, error) {
	base := t // the snapshot conflicts are found in
	var own *table.Staged
	if !t.IsStaged() {
		own = t.Stage(ctx)
		defer own.Rollback() // a no-op once committed
		t = own.Table()
	}
	ms, err := inferArbiters(base, s.Table, s.OnConflict) // onconflict.go
	if err != nil {
		return 0, err
	}
	u := &upserter{db: db, cat: cat, s: s, params: params, base: base, t: t, gone: map[uint64]bool{}}
	us := base.UserSchema()
	fs := []arrow.Field{{Name: "o", Type: arrow.PrimitiveTypes.Int64}}
	for side, p := range []string{"e", "x"} {
		for j, f := range us.Fields() {
			f.Name = p + strconv.Itoa(j)
			if side == 0 {
				u.names = append(u.names, us.Field(j).Name)
			}
			fs = append(fs, f)
		}
	}
	u.pairs = arrow.NewSchema(fs, nil)
	for _, m := range ms {
		a, err := db.newUpsertArbiter(ctx, base, m)
		if err != nil {
			return 0, err
		}
		u.arbs = append(u.arbs, a)
	}
	src, err := db.startQuery(serialPlan(ctx), cat, s.Source, params)
	if err != nil {
		return 0, err
	}
	in := &insertReader{ctx: ctx, src: src, rel: s.Table, schema: us, pos: pos, db: db, checks: s.Checks}
	defer in.close()
	for in.next() {
		if err := u.batch(ctx, in.cur); err != nil {
			return 0, err
		}
	}
	if err := in.Err(); err != nil {
		return 0, err
	}
	if own != nil {
		if _, err := own.Commit(ctx); err != nil {
			return 0, err
		}
	}
	return u.n, nil
}

// upserter is one INSERT ... ON CONFLICT DO UPDATE statement's state.
type upserter struct {
	db     *DB
	cat    *catalog
	s      *sql.Insert
	params map[string]any
	base   *table.Table // the snapshot the statement read
	t      *table.Table // the staged view it writes, after its writes so far
	arbs   []*upsertArbiter
	names  []string      // the user columns
	pairs  *arrow.Schema // sql.ConflictPairs's columns
	// gone are the snapshot rows (addresses in base) this statement
	// updated: their old keys no longer hold.
	gone map[uint64]bool
	n    int64 // rows inserted or updated
}

// batch upserts one batch of proposed rows (the table's user columns),
// each in turn, as ExecInsert does: the rows to insert and the updated
// rows are written to the staged view at its end.
func (u *upserter) batch(ctx context.Context, b arrow.RecordBatch) error {
	keys, nulls, err := u.keysOf(ctx, b, 0)
	if err != nil {
		return err
	}
	ev := &pairEval{u: u, b: b, bkeys: keys, bnulls: nulls, at: map[int][2]int{}}
	defer ev.release()
	var ins []int32
	var upd [][2]int // per updated row: its result (batch, row)
	var ids []uint64 // and its row id
	for i := 0; i < int(b.NumRows()); i++ {
		holder, conflict, err := u.conflict(keys, nulls, i)
		if err != nil {
			return err
		}
		if !conflict {
			for j, a := range u.arbs {
				if !nulls[j][i] {
					a.mine[keys[j][i]] = true
				}
			}
			ins = append(ins, int32(i))
			u.n++
			continue
		}
		at, ok, err := ev.result(ctx, i, holder)
		if err != nil {
			return err
		}
		if !ok {
			continue // DO UPDATE ... WHERE is not true: the row is left alone
		}
		if err := u.apply(ev, at, holder); err != nil {
			return err
		}
		id, ok := u.base.RowIDAt(holder)
		if !ok {
			return fmt.Errorf("%w: ON CONFLICT DO UPDATE: no row id at address %d", ErrInternal, holder)
		}
		upd = append(upd, at)
		ids = append(ids, id)
		u.n++
	}
	if len(upd) > 0 {
		if err := u.update(ctx, ev, upd, ids); err != nil {
			return err
		}
	}
	if len(ins) > 0 {
		rows, err := physexpr.TakeRows(ctx, u.db.mem(), b, ins)
		if err != nil {
			return err
		}
		nt, err := u.t.AppendBatches(ctx, []arrow.RecordBatch{rows}, u.db.mem())
		rows.Release()
		if err != nil {
			return err
		}
		u.t = nt
	}
	return nil
}

// conflict finds the row proposed row i's keys conflict with, in the
// arbiters' order (ExecCheckIndexConstraints): a snapshot row the
// statement has not updated (its address), or a row it inserted or
// updated, which is ErrCardinalityViolation.
func (u *upserter) conflict(keys [][]string, nulls [][]bool, i int) (uint64, bool, error) {
	for j, a := range u.arbs {
		if nulls[j][i] {
			continue
		}
		k := keys[j][i]
		if a.mine[k] {
			return 0, false, fmt.Errorf("%w: ON CONFLICT DO UPDATE command cannot affect row a second time (ensure that no rows proposed for insertion within the same command have duplicate constrained values)", ErrCardinalityViolation)
		}
		if h, ok := a.held[k]; ok && !u.gone[h] {
			return h, true, nil
		}
	}
	return 0, false, nil
}

// apply checks the updated row at (a result of the action) as ExecUpdate
// does before it writes it: NOT NULL and CHECK (ExecConstraints), then
// the arbiters' uniqueness against the rows the statement knows (the
// commit's check covers every unique index against every row), and
// records its keys.
func (u *upserter) apply(ev *pairEval, at [2]int, holder uint64) error {
	out := ev.outs[at[0]]
	nu := len(u.names)
	row := make([]arrow.Array, 0, out.NumCols())
	for c := 1; c < int(out.NumCols()); c++ {
		row = append(row, array.NewSlice(out.Column(c), int64(at[1]), int64(at[1]+1)))
	}
	defer releaseArrays(row)
	if err := checkNotNull(u.s.Table, u.base.UserSchema(), row[:nu]); err != nil {
		return err
	}
	if err := checkFailed(u.s.Table, u.s.OnConflict.Update.Checks, row[nu:]); err != nil {
		return err
	}
	keys, nulls := ev.keys[at[0]], ev.nulls[at[0]]
	for j, a := range u.arbs {
		if nulls[j][at[1]] {
			continue
		}
		k := keys[j][at[1]]
		if h, ok := a.held[k]; a.mine[k] || ok && h != holder && !u.gone[h] {
			return fmt.Errorf("%w %q", ErrUniqueViolation, a.m.Name)
		}
	}
	u.gone[holder] = true
	for j, a := range u.arbs {
		if !nulls[j][at[1]] {
			a.mine[keys[j][at[1]]] = true
		}
	}
	return nil
}

// update writes the updated rows (results of the action) with their row
// ids to the staged view.
func (u *upserter) update(ctx context.Context, ev *pairEval, upd [][2]int, ids []uint64) error {
	per := map[int][]int32{}
	idsOf := map[int][]uint64{}
	var order []int
	for i, at := range upd {
		if _, ok := per[at[0]]; !ok {
			order = append(order, at[0])
		}
		per[at[0]] = append(per[at[0]], int32(at[1]))
		idsOf[at[0]] = append(idsOf[at[0]], ids[i])
	}
	nu := len(u.names)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	fs := []arrow.Field{{Name: table.RowID, Type: arrow.PrimitiveTypes.Uint64}}
	fs = append(fs, u.base.UserSchema().Fields()...)
	sch := arrow.NewSchema(fs, nil)
	for _, o := range order {
		rows, err := physexpr.TakeRows(ctx, u.db.mem(), ev.outs[o], per[o])
		if err != nil {
			return err
		}
		ib := array.NewUint64Builder(u.db.mem())
		ib.AppendValues(idsOf[o], nil)
		idc := ib.NewArray()
		ib.Release()
		cols := append([]arrow.Array{idc}, rows.Columns()[1:1+nu]...)
		batches = append(batches, array.NewRecordBatch(sch, cols, rows.NumRows()))
		idc.Release()
		rows.Release()
	}
	nt, _, err := u.t.UpdateBatches(ctx, batches, u.db.mem())
	if err != nil {
		return err
	}
	u.t = nt
	return nil
}
