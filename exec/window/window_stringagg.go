package window

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// stringAgg is string_agg(x, delimiter) over every row's frame, as
// PostgreSQL's string_agg_transfn builds it over the frame's rows in the
// window's order: the non-NULL values, each but the first preceded by its
// own row's delimiter (none for a NULL delimiter); NULL for a frame
// without a value. PostgreSQL has no inverse and rebuilds a frame whose
// start moved, O(frame) a row; so does this, but by copying: the
// partition's pieces (delimiter then value, for each non-NULL value) are
// laid end to end once, and a frame's result is the run of them from its
// first value (without that row's delimiter) to its last value's end (or,
// with EXCLUDE, up to three such runs joined).
//
// The results are the frames' bytes, up to rows × partition bytes: their
// total is computed first and reserved from the statement's pool before
// any is built (memlimit.ErrResourceExhausted beyond the limit), as is
// the laid-out partition.
func (p *partition) stringAgg(x, d arrow.Array, f *frameBounds) (arrow.Array, error) {
	xs, ok1 := x.(*array.String)
	ds, ok2 := d.(*array.String)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%w: string_agg(%s, %s) over a window", physexpr.ErrInvalidArgument, x.DataType(), d.DataType())
	}
	// pos[i]: the laid-out bytes before row i's piece; val[i]: where row
	// i's value starts (its piece's end is pos[i+1]).
	pos := make([]int64, p.n+1)
	val := make([]int64, p.n)
	for i := range p.n {
		pos[i+1], val[i] = pos[i], pos[i]
		if xs.IsNull(i) {
			continue
		}
		if ds.IsValid(i) {
			pos[i+1] += int64(len(ds.Value(i)))
		}
		val[i] = pos[i+1]
		pos[i+1] += int64(len(xs.Value(i)))
	}
	// first[i]: the first row at or after i with a value (n if none).
	first := make([]int32, p.n+1)
	first[p.n] = int32(p.n)
	for i := p.n - 1; i >= 0; i-- {
		first[i] = first[i+1]
		if xs.IsValid(i) {
			first[i] = int32(i)
		}
	}
	// parts is row i's result as byte ranges of the laid-out pieces, one
	// a run of its frame (three at most, with EXCLUDE): from the first
	// value of the first run that has one, without its delimiter, and
	// each later run's pieces whole (a NULL row's piece is empty).
	var sbuf [3]span
	parts := func(i int, out *[3][2]int64) [][2]int64 {
		ps := out[:0]
		for _, sp := range f.spans(i, &sbuf) {
			fv := int(first[sp.s])
			if fv >= sp.e {
				continue
			}
			lo := pos[fv]
			if len(ps) == 0 {
				lo = val[fv]
			}
			ps = append(ps, [2]int64{lo, pos[sp.e]})
		}
		return ps
	}
	var pbuf [3][2]int64
	var total int64
	for i := range p.n {
		for _, pt := range parts(i, &pbuf) {
			total += pt[1] - pt[0]
		}
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%w: string_agg over a window: %d bytes of results in one partition (a column holds 2 GB)", physexpr.ErrOutOfRange, total)
	}
	if err := p.grow(pos[p.n] + total); err != nil {
		return nil, fmt.Errorf("window: string_agg results of %d bytes: %w", total, err)
	}
	laid := make([]byte, 0, pos[p.n])
	for i := range p.n {
		if xs.IsNull(i) {
			continue
		}
		if ds.IsValid(i) {
			laid = append(laid, ds.Value(i)...)
		}
		laid = append(laid, xs.Value(i)...)
	}
	b := array.NewStringBuilder(p.mem)
	defer b.Release()
	b.Reserve(p.n)
	b.ReserveData(int(total))
	var joined []byte // a result of several parts
	for i := range p.n {
		switch ps := parts(i, &pbuf); len(ps) {
		case 0:
			b.AppendNull()
		case 1:
			b.BinaryBuilder.Append(laid[ps[0][0]:ps[0][1]])
		default:
			joined = joined[:0]
			for _, pt := range ps {
				joined = append(joined, laid[pt[0]:pt[1]]...)
			}
			b.BinaryBuilder.Append(joined)
		}
	}
	return b.NewArray(), nil
}
