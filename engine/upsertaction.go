package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// DO UPDATE's action over the conflict pairs (upsert.go).

// pairEval evaluates the action over the pairs of a batch's proposed rows
// and the snapshot rows they conflict with. It evaluates lazily, at the
// first row that needs it, every pair of the batch from that row on
// whose snapshot row the statement has not updated yet, in one query;
// should that fail (an expression raises), it evaluates row by row from
// then on, so the error is the one of the first row PostgreSQL would
// evaluate, and a pair it would never reach raises nothing.
type pairEval struct {
	u      *upserter
	b      arrow.RecordBatch
	bkeys  [][]string // the arbiters' keys of b's rows
	bnulls [][]bool
	done   int // rows below it were evaluated (or needed no evaluation)
	single bool
	outs   []arrow.RecordBatch
	keys   [][][]string // per out, the arbiters' keys of its rows
	nulls  [][][]bool
	at     map[int][2]int // proposed row -> its result (out, row); absent: WHERE not true
}

// result is row i's result (out, row), ok false when the action's WHERE
// is not true for it; holder is the snapshot row it conflicts with.
func (ev *pairEval) result(ctx context.Context, i int, holder uint64) ([2]int, bool, error) {
	if i >= ev.done {
		if err := ev.evaluate(ctx, i, holder); err != nil {
			return [2]int{}, false, err
		}
	}
	at, ok := ev.at[i]
	return at, ok, nil
}

func (ev *pairEval) evaluate(ctx context.Context, i int, holder uint64) error {
	if !ev.single {
		// Row i and every later row whose key a snapshot row not yet
		// updated holds.
		rows, holders := []int32{int32(i)}, []uint64{holder}
		for r := i + 1; r < int(ev.b.NumRows()); r++ {
			if h, ok := ev.u.snapshotHolder(ev.bkeys, ev.bnulls, r); ok {
				rows, holders = append(rows, int32(r)), append(holders, h)
			}
		}
		if err := ev.run(ctx, rows, holders); err == nil {
			ev.done = int(ev.b.NumRows())
			return nil
		}
		ev.single = true
	}
	if err := ev.run(ctx, []int32{int32(i)}, []uint64{holder}); err != nil {
		return err
	}
	ev.done = i + 1
	return nil
}

// snapshotHolder is the snapshot row not yet updated that holds row r's
// key in the first arbiter that has one.
func (u *upserter) snapshotHolder(keys [][]string, nulls [][]bool, r int) (uint64, bool) {
	for j, a := range u.arbs {
		if nulls[j][r] {
			continue
		}
		if h, ok := a.held[keys[j][r]]; ok && !u.gone[h] {
			return h, true
		}
	}
	return 0, false
}

// run evaluates the action over the pairs (rows of b, holders), and
// records the results of those WHERE keeps.
func (ev *pairEval) run(ctx context.Context, rows []int32, holders []uint64) error {
	u := ev.u
	mem := u.db.mem()
	existing, err := u.base.Take(ctx, holders, nil, u.names, mem)
	if err != nil {
		return err
	}
	defer existing.Release()
	proposed, err := physexpr.TakeRows(ctx, mem, ev.b, rows)
	if err != nil {
		return err
	}
	defer proposed.Release()
	ob := array.NewInt64Builder(mem)
	for _, r := range rows {
		ob.Append(int64(r))
	}
	o := ob.NewArray()
	ob.Release()
	defer o.Release()
	cols := append(append([]arrow.Array{o}, existing.Columns()...), proposed.Columns()...)
	pairs := array.NewRecordBatch(u.pairs, cols, int64(len(rows)))
	defer pairs.Release()
	pp := &pairsProvider{batch: pairs}
	u.cat.pairs = pp
	defer func() {
		u.cat.pairs = nil
		pp.release()
	}()
	res, err := u.db.startQuery(serialPlan(ctx), u.cat, u.s.OnConflict.Update.Action, u.params)
	if err != nil {
		return err
	}
	defer res.Close()
	var outs []arrow.RecordBatch
	release := func() {
		for _, b := range outs {
			b.Release()
		}
	}
	for res.Next() {
		b := res.Batch()
		b.Retain()
		outs = append(outs, b)
	}
	if err := res.Close(); err != nil {
		release()
		return err
	}
	for _, b := range outs {
		if b.NumRows() == 0 {
			continue
		}
		oc, ok := b.Column(0).(*array.Int64)
		if !ok || int(b.NumCols()) != 1+len(u.names)+len(u.s.OnConflict.Update.Checks) {
			release()
			return fmt.Errorf("%w: ON CONFLICT DO UPDATE action returned %d columns", ErrInternal, b.NumCols())
		}
		keys, nulls, err := u.keysOf(ctx, b, 1)
		if err != nil {
			release()
			return err
		}
		n := len(ev.outs)
		for r, v := range oc.Int64Values() {
			ev.at[int(v)] = [2]int{n, r}
		}
		b.Retain()
		ev.outs = append(ev.outs, b)
		ev.keys, ev.nulls = append(ev.keys, keys), append(ev.nulls, nulls)
	}
	release()
	return nil
}

func (ev *pairEval) release() {
	for _, b := range ev.outs {
		b.Release()
	}
	ev.outs = nil
}

// actionParams types the parameters of INSERT ... ON CONFLICT DO UPDATE
// that only its action uses (SET v = $2), which the source's plan, where
// ParamSchema looks, does not reference: as the action's plan infers
// them.
func actionParams(st sql.Statement, s *arrow.Schema) (*arrow.Schema, error) {
	ins, ok := st.(*sql.Insert)
	if !ok || ins.OnConflict == nil || ins.OnConflict.Update == nil {
		return s, nil
	}
	types, err := plan.ParamTypes(ins.OnConflict.Update.Action.Plan)
	if err != nil {
		return nil, err
	}
	fs := s.Fields()
	for i := range fs {
		if t, ok := types[i+1]; ok && fs[i].Type.ID() == arrow.NULL {
			fs[i].Type = t
		}
	}
	return arrow.NewSchema(fs, nil), nil
}

// pairsProvider is the relation sql.ConflictPairs, one batch of pairs.
// The plan does not release its nodes: the provider releases the scans it
// built once the query is done.
type pairsProvider struct {
	batch arrow.RecordBatch
	scans []*exec.ValuesExec
}

func (p *pairsProvider) release() {
	for _, v := range p.scans {
		v.Release()
	}
	p.scans = nil
}

func (p *pairsProvider) Schema() *arrow.Schema { return p.batch.Schema() }

func (p *pairsProvider) Scan(columns []int) (exec.Node, error) {
	fs := make([]arrow.Field, len(columns))
	cols := make([]arrow.Array, len(columns))
	for i, c := range columns {
		if c < 0 || c >= int(p.batch.NumCols()) {
			return nil, fmt.Errorf("%w: ON CONFLICT pairs column %d of %d", ErrInternal, c, p.batch.NumCols())
		}
		fs[i], cols[i] = p.batch.Schema().Field(c), p.batch.Column(c)
	}
	sch := arrow.NewSchema(fs, nil)
	b := array.NewRecordBatch(sch, cols, p.batch.NumRows())
	defer b.Release()
	v, err := exec.NewValuesExec(sch, []arrow.RecordBatch{b})
	if err != nil {
		return nil, err
	}
	p.scans = append(p.scans, v)
	return v, nil
}

func (p *pairsProvider) TakeByKey(exec.Node, int, int, []int) (exec.Node, bool, error) {
	return nil, false, nil
}
