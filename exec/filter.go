package exec

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// FilterExec keeps rows where Predicate is TRUE (NULL and FALSE drop), with
// output coalesced to BatchSize. Input ordering is preserved.
//
// The predicate is bound to the input schema once, here; each batch then
// costs one evaluation of the bound tree. A predicate that comes out as a
// scalar (it reads no column) keeps or drops the whole batch. A mask
// becomes the list of kept rows, and the columns are copied at those rows
// by physexpr.GatherBatch's typed loops; a batch kept whole, or dropped
// whole, is not copied at all. A predicate that evaluates into words
// (physexpr/wordeval.go: column comparisons and AND/OR of them) writes
// into the stream's two word slices and the kept rows come from those,
// with no Boolean array made per batch:
//
//	mask or words ──▶ Selection ──┬─ no row    ──▶ drop
//	                     ├─ every row ──▶ push the batch as it is
//	                     └─ some rows ──▶ GatherBatch ──▶ push
type FilterExec struct {
	input   Node
	pred    physexpr.Expr
	bound   physexpr.Bound
	metrics Metrics
	// oneTimeFalse: the condition is a constant FALSE or NULL; the input
	// is never executed (onetimefilter.go).
	oneTimeFalse bool
	// rowBudget, when positive, is how many of its rows a LIMIT right
	// above reads (WithRowBudget).
	rowBudget int64
}

// WithRowBudget is f under a LIMIT that reads at most rows of its output.
// PostgreSQL evaluates a qual one row at a time as its Limit pulls and
// stops once the Limit has its rows, so a condition that raises on a row
// after those never raises: on an evaluation error, the filter finds the
// first failing row (bisecting the batch, on the error path only), and
// when the rows before it already give the LIMIT its rows, they are the
// output and the stream ends; otherwise the error stands.
func (f *FilterExec) WithRowBudget(rows int64) *FilterExec {
	return &FilterExec{input: f.input, pred: f.pred, bound: f.bound, oneTimeFalse: f.oneTimeFalse, rowBudget: rows}
}

func NewFilterExec(input Node, pred physexpr.Expr) (*FilterExec, error) {
	bd, err := physexpr.Bind(pred, input.Schema())
	if err != nil {
		return nil, fmt.Errorf("filter %s: %w", pred, err)
	}
	if t := bd.Type(); t.ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: filter predicate %s is %s, want boolean", physexpr.ErrSchema, pred, t)
	}
	return &FilterExec{input: input, pred: pred, bound: bd}, nil
}

func (f *FilterExec) Name() string           { return "FilterExec" }
func (f *FilterExec) Schema() *arrow.Schema  { return f.input.Schema() }
func (f *FilterExec) Children() []Node       { return []Node{f.input} }
func (f *FilterExec) Properties() Properties { return f.input.Properties() }
func (f *FilterExec) Metrics() *Metrics      { return &f.metrics }
func (f *FilterExec) String() string {
	if f.oneTimeFalse {
		return "FilterExec: One-Time Filter: false"
	}
	return "FilterExec: " + f.pred.String()
}

func (f *FilterExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	if f.oneTimeFalse {
		return noRows{schema: f.Schema()}, nil
	}
	in, err := f.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &filterStream{n: f, tc: tc, in: in, co: NewCoalescer(f.Schema(), tc.Allocator(), tc.RowsPerBatch())}, nil
}

type filterStream struct {
	n   *FilterExec
	tc  *TaskContext
	in  Stream
	co  *Coalescer
	sel []int32 // the kept rows of the batch at hand (physexpr/gather.go)
	// vals and valid are a WordEval predicate's words, reused per batch.
	vals, valid []uint64
	eof         bool
	kept        int64 // rows pushed so far (a row budget's count)
}

func (s *filterStream) Schema() *arrow.Schema { return s.n.Schema() }
func (s *filterStream) Close() error {
	s.co.Release()
	return s.in.Close()
}

func (s *filterStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return pullCoalesced(ctx, s.in, s.co, &s.eof, &s.n.metrics, func(b arrow.RecordBatch) error {
		err := s.filter(ctx, b)
		if err != nil && s.n.rowBudget > 0 {
			return s.withinBudget(ctx, b, err)
		}
		return err
	})
}

// withinBudget handles err, the error of filtering b under a row budget:
// if the rows before b's first failing row bring the rows kept to the
// budget, those rows are kept and the stream ends without the error
// (WithRowBudget). The search evaluates prefixes of b, O(log n) times.
func (s *filterStream) withinBudget(ctx context.Context, b arrow.RecordBatch, err error) error {
	mem := s.tc.Allocator()
	fails := func(n int) bool {
		p := b.NewSlice(0, int64(n))
		defer p.Release()
		d, e := s.n.bound.Eval(ctx, mem, p)
		if e != nil {
			return true
		}
		d.Release()
		return false
	}
	ok, bad := 0, int(b.NumRows()) // a prefix of ok rows evaluates; of bad rows, fails
	if !fails(bad) {
		return err // not a row's error: it stands
	}
	for bad-ok > 1 {
		if mid := (ok + bad) / 2; fails(mid) {
			bad = mid
		} else {
			ok = mid
		}
	}
	p := b.NewSlice(0, int64(ok))
	defer p.Release()
	if e := s.filter(ctx, p); e != nil || s.kept < s.n.rowBudget {
		return err
	}
	s.eof = true
	return s.co.Finish()
}

// filter pushes b's rows that pass to the coalescer.
func (s *filterStream) filter(ctx context.Context, b arrow.RecordBatch) error {
	mem := s.tc.Allocator()
	if we, ok := s.n.bound.(physexpr.WordEval); ok {
		return s.filterWords(ctx, mem, we, b)
	}
	d, err := s.n.bound.Eval(ctx, mem, b)
	if err != nil {
		return err
	}
	defer d.Release()
	if sd, ok := d.(*compute.ScalarDatum); ok {
		if keep, _ := sd.Value.(*scalar.Boolean); keep != nil && keep.IsValid() && keep.Value {
			s.kept += b.NumRows()
			return s.co.Push(b)
		}
		return nil
	}
	ma := d.(*compute.ArrayDatum).MakeArray()
	defer ma.Release()
	mask, ok := ma.(*array.Boolean)
	if !ok || mask.Len() != int(b.NumRows()) {
		return fmt.Errorf("%w: filter mask is %d rows of %s for a batch of %d", physexpr.ErrSchema, ma.Len(), ma.DataType(), b.NumRows())
	}
	s.sel = physexpr.Selection(mask, s.sel)
	return s.keep(ctx, mem, b)
}

// filterWords evaluates a WordEval predicate into the stream's words.
func (s *filterStream) filterWords(ctx context.Context, mem memory.Allocator, we physexpr.WordEval, b arrow.RecordBatch) error {
	n := int(b.NumRows())
	nw := physexpr.WordsFor(n)
	if cap(s.vals) < nw {
		s.vals, s.valid = make([]uint64, nw), make([]uint64, nw)
	}
	vals, valid := s.vals[:nw], s.valid[:nw]
	if err := we.EvalWords(ctx, mem, b, nil, vals, valid); err != nil {
		return err
	}
	s.sel = physexpr.SelWords(vals, valid, n, s.sel)
	return s.keep(ctx, mem, b)
}

// keep pushes b's rows at s.sel.
func (s *filterStream) keep(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) error {
	s.kept += int64(len(s.sel))
	switch len(s.sel) {
	case 0:
		return nil
	case int(b.NumRows()):
		return s.co.Push(b)
	}
	out, err := physexpr.GatherBatch(ctx, mem, b, s.sel)
	if err != nil {
		return fmt.Errorf("exec: filter: %w", err)
	}
	defer out.Release()
	return s.co.Push(out)
}
