package window

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
)

// partition is one partition's rows and what the functions share: the
// peer groups of its ORDER BY (rows equal on every order key; with no
// ORDER BY every row is a peer of every other, as in PostgreSQL), and the
// frames already computed, by frame.
type partition struct {
	ctx    context.Context
	mem    memory.Allocator
	all    arrow.RecordBatch
	n      int
	order  []exec.SortKey
	grp    []int32 // row -> peer group
	gstart []int   // group -> its first row; gstart[len] = n
	frames map[Frame]*frameBounds
	// res is the window's reservation, which what a function holds
	// beyond the per-row estimate (string_agg's results) grows.
	res *memlimit.Reservation
}

// grow reserves n more bytes for the partition's evaluation (a nil
// reservation, in tests of one partition, reserves nothing).
func (p *partition) grow(n int64) error {
	if p.res == nil {
		return nil
	}
	return p.res.TryGrow(n)
}

// evalWindow computes every window expression of w over the partition all.
func evalWindow(ctx context.Context, tc *exec.TaskContext, w *Exec, all arrow.RecordBatch, res *memlimit.Reservation) ([]arrow.Array, error) {
	p := &partition{ctx: ctx, mem: tc.Allocator(), all: all, n: int(all.NumRows()), order: w.order, frames: map[Frame]*frameBounds{}, res: res}
	if err := p.peers(); err != nil {
		return nil, err
	}
	out := make([]arrow.Array, 0, len(w.exprs))
	for i, e := range w.exprs {
		a, err := p.eval(e, w.schema.Field(w.input.Schema().NumFields()+i).Type)
		if err != nil {
			exec.ReleaseArrays(out)
			return nil, err // PostgreSQL's messages name the function
		}
		out = append(out, a)
	}
	return out, nil
}

// peers numbers the peer groups of the partition's rows.
func (p *partition) peers() error {
	cmps, err := exec.KeyComparators(p.all, p.order)
	if err != nil {
		return err
	}
	p.grp = make([]int32, p.n)
	p.gstart = append(make([]int, 0, 16), 0)
	for i := 1; i < p.n; i++ {
		g := p.grp[i-1]
		for _, c := range cmps {
			if c(i-1, i) != 0 {
				g++
				p.gstart = append(p.gstart, i)
				break
			}
		}
		p.grp[i] = g
	}
	p.gstart = append(p.gstart, p.n)
	return nil
}

func (p *partition) groups() int { return len(p.gstart) - 1 }

func (p *partition) eval(e Expr, typ arrow.DataType) (arrow.Array, error) {
	arg := func(i int) arrow.Array { return p.all.Column(e.Args[i]) }
	switch e.Func {
	case RowNumber, Rank, DenseRank:
		b := array.NewInt64Builder(p.mem)
		defer b.Release()
		b.Reserve(p.n)
		for i := range p.n {
			switch e.Func {
			case RowNumber:
				b.UnsafeAppend(int64(i + 1))
			case Rank:
				b.UnsafeAppend(int64(p.gstart[p.grp[i]] + 1))
			default:
				b.UnsafeAppend(int64(p.grp[i]) + 1)
			}
		}
		return b.NewArray(), nil
	case PercentRank, CumeDist:
		b := array.NewFloat64Builder(p.mem)
		defer b.Release()
		b.Reserve(p.n)
		for i := range p.n {
			g := p.grp[i]
			switch {
			case e.Func == CumeDist:
				b.UnsafeAppend(float64(p.gstart[g+1]) / float64(p.n))
			case p.n == 1:
				b.UnsafeAppend(0)
			default:
				b.UnsafeAppend(float64(p.gstart[g]) / float64(p.n-1))
			}
		}
		return b.NewArray(), nil
	case Ntile:
		return p.ntile(arg(0))
	case Lag, Lead:
		return p.lagLead(e, typ)
	case FirstValue, LastValue, NthValue:
		f, err := p.frame(e.Frame)
		if err != nil {
			return nil, err
		}
		idx := make([]int32, p.n)
		null := make([]bool, p.n)
		var buf [3]span
		for i := range p.n {
			// The frame's rows are its runs (with EXCLUDE, the rows left
			// out are skipped, as WinGetFuncArgInFrame does); nth_value
			// counts NULLs too.
			sps := f.spans(i, &buf)
			j := -1
			switch e.Func {
			case FirstValue:
				j = nthRow(sps, 0)
			case LastValue:
				if len(sps) > 0 {
					j = sps[len(sps)-1].e - 1
				}
			default:
				k, ok := intAt(arg(1), i)
				if !ok {
					break
				}
				if k <= 0 {
					return nil, fmt.Errorf("%w: argument of nth_value must be greater than zero", physexpr.ErrInvalidArgument)
				}
				if k <= int64(rowsIn(sps)) {
					j = nthRow(sps, int(k)-1)
				}
			}
			if j < 0 {
				null[i] = true
				continue
			}
			idx[i] = int32(j)
		}
		return p.gather(arg(0), idx, null)
	case CountStar, Count, Sum, Avg, Min, Max, StdDevSamp, StdDevPop, VarSamp, VarPop, BoolAnd, BoolOr, BitAnd, BitOr:
		f, err := p.frame(e.Frame)
		if err != nil {
			return nil, err
		}
		var x arrow.Array
		if e.Func != CountStar {
			x = arg(0)
		}
		return p.aggregate(e.Func, x, typ, f)
	case StringAgg:
		f, err := p.frame(e.Frame)
		if err != nil {
			return nil, err
		}
		return p.stringAgg(arg(0), arg(1), f)
	}
	return nil, fmt.Errorf("%w: window function %d", physexpr.ErrInvalidArgument, e.Func)
}

// gather is x at idx, NULL where null is set.
func (p *partition) gather(x arrow.Array, idx []int32, null []bool) (arrow.Array, error) {
	cols, err := physexpr.Gather(p.ctx, p.mem, []arrow.Array{x}, idx, null, make([]arrow.Array, 0, 1))
	if err != nil {
		exec.ReleaseArrays(cols)
		return nil, err
	}
	return cols[0], nil
}

// ntile is PostgreSQL's window_ntile: the argument is read at the
// partition's first row; rows / k rows a bucket, the first rows % k
// buckets one row more.
func (p *partition) ntile(karg arrow.Array) (arrow.Array, error) {
	b := array.NewInt32Builder(p.mem)
	defer b.Release()
	k, ok := intAt(karg, 0)
	if !ok {
		b.AppendNulls(p.n)
		return b.NewArray(), nil
	}
	if k <= 0 {
		return nil, fmt.Errorf("%w: argument of ntile must be greater than zero", physexpr.ErrInvalidArgument)
	}
	n := int64(p.n)
	per, rem := n/k, n%k
	big := rem * (per + 1) // rows in the buckets one row larger
	b.Reserve(p.n)
	for i := range n {
		if i < big {
			b.UnsafeAppend(int32(i/(per+1) + 1))
		} else {
			b.UnsafeAppend(int32(rem + (i-big)/per + 1))
		}
	}
	return b.NewArray(), nil
}

// lagLead is lag(x, offset, default) or lead: x offset rows before (after)
// the current row in the partition, the default (or NULL) where that row
// is outside it; a NULL offset gives NULL, a negative one looks the other
// way, as PostgreSQL's leadlag_common.
func (p *partition) lagLead(e Expr, typ arrow.DataType) (arrow.Array, error) {
	x := p.all.Column(e.Args[0])
	src := x
	if len(e.Args) == 3 {
		// One gather over x then the default: row n+i is row i's default.
		cat, err := array.Concatenate([]arrow.Array{x, p.all.Column(e.Args[2])}, p.mem)
		if err != nil {
			return nil, err
		}
		defer cat.Release()
		src = cat
	}
	idx := make([]int32, p.n)
	null := make([]bool, p.n)
	for i := range p.n {
		off := int64(1)
		if len(e.Args) >= 2 {
			o, ok := intAt(p.all.Column(e.Args[1]), i)
			if !ok {
				null[i] = true
				continue
			}
			off = o
		}
		if e.Func == Lag {
			off = -off
		}
		j := int64(i) + off
		switch {
		case off >= int64(p.n) || off <= -int64(p.n) || j < 0 || j >= int64(p.n):
			if len(e.Args) == 3 {
				idx[i] = int32(p.n + i)
			} else {
				null[i] = true
			}
		default:
			idx[i] = int32(j)
		}
	}
	return p.gather(src, idx, null)
}

// intAt is an integer column's value at row i; false for NULL.
func intAt(a arrow.Array, i int) (int64, bool) {
	if a.IsNull(i) {
		return 0, false
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i), true
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Int8:
		return int64(a.Value(i)), true
	case *array.Uint32:
		return int64(a.Value(i)), true
	case *array.Uint16:
		return int64(a.Value(i)), true
	case *array.Uint8:
		return int64(a.Value(i)), true
	case *array.Uint64:
		return int64(min(a.Value(i), 1<<63-1)), true
	}
	return 0, false
}

// sameValue reports whether a's row i and b's row j (arrays of one type)
// hold the same value for partitioning: NULLs are one partition, NaN one
// value, -0 = 0, as in PostgreSQL's grouping.
func sameValue(a arrow.Array, i int, b arrow.Array, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an && bn
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i) == b.(*array.Int64).Value(j)
	case *array.Int32:
		return a.Value(i) == b.(*array.Int32).Value(j)
	case *array.Int16:
		return a.Value(i) == b.(*array.Int16).Value(j)
	case *array.Int8:
		return a.Value(i) == b.(*array.Int8).Value(j)
	case *array.Uint64:
		return a.Value(i) == b.(*array.Uint64).Value(j)
	case *array.Uint32:
		return a.Value(i) == b.(*array.Uint32).Value(j)
	case *array.Date32:
		return a.Value(i) == b.(*array.Date32).Value(j)
	case *array.Timestamp:
		return a.Value(i) == b.(*array.Timestamp).Value(j)
	case *array.Decimal128:
		return a.Value(i) == b.(*array.Decimal128).Value(j) // one scale in a column
	case *array.Float64:
		return value.CompareFloat(a.Value(i), b.(*array.Float64).Value(j)) == 0
	case *array.Float32:
		return value.CompareFloat(a.Value(i), b.(*array.Float32).Value(j)) == 0
	case *array.String:
		return strings.Compare(a.Value(i), b.(*array.String).Value(j)) == 0
	case *array.Boolean:
		return a.Value(i) == b.(*array.Boolean).Value(j)
	}
	// Any other type: by its formatted value, which is exact for the
	// remaining fixed-width types.
	return cmp.Compare(a.ValueStr(i), b.ValueStr(j)) == 0
}
