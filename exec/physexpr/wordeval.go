package physexpr

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Predicates evaluated into bitmap words, at only the rows asked for.
//
// A batch's predicate used to come back as a Boolean array per node: every
// comparison of an AND allocated its two buffers, an array and a datum,
// ran over every row, and the AND then read them all back. A WordEval
// writes its value and validity into words the caller owns (bit i of word
// w is row 64w+i), and only at the rows set in live: the AND hands each
// conjunct the rows no earlier one made FALSE, the OR the rows no earlier
// one made TRUE, and FilterExec turns the AND's words into the kept rows
// without an Arrow array in between.
//
// Only predicates that cannot fail and read nothing but the batch are
// wordEvals (comparisons of a column with a constant or another column),
// so whether they also looked at the rows outside live is unobservable.
// Any other operand of AND/OR is evaluated over a batch of just the live
// rows (boundLogic.EvalWords): its errors are raised only for rows that
// reach it, as PostgreSQL evaluates AND/OR left to right per row and stops
// at the first FALSE (AND) or TRUE (OR).
type WordEval interface {
	Bound
	// EvalWords sets bit i of vals and valid to row i's value and
	// validity, for the rows set in live (nil: every row of b); the bits
	// of other rows, and past b's rows in the last word, are unspecified.
	// vals and valid hold WordsFor(b.NumRows()) words; live as many, with
	// no bit set past the batch's rows.
	EvalWords(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, live, vals, valid []uint64) error
}

// fullWord is the mask of the rows of word w in a batch of n rows.
func fullWord(w, n int) uint64 {
	if r := n - 64*w; r < 64 {
		return 1<<r - 1
	}
	return ^uint64(0)
}

// liveWord is live's word w (nil live: every row of n).
func liveWord(live []uint64, w, n int) uint64 {
	if live == nil {
		return fullWord(w, n)
	}
	return live[w]
}

// sparseWord is the popcount under which a word's live rows are visited
// one by one rather than all 64 compared: a visit costs a few times a
// compare in the dense loop, so below 16 of 64 the visits win.
const sparseWord = 16

// validityWords writes a's validity into out (every bit set: no NULLs).
func validityWords(a arrow.ArrayData, out []uint64) {
	n := a.Len()
	if a.NullN() == 0 || a.Buffers()[0] == nil {
		for w := range out {
			out[w] = ^uint64(0)
		}
		return
	}
	bm, off := a.Buffers()[0].Bytes(), a.Offset()
	for w := range out {
		out[w] = loadBits(bm, off+64*w, min(64, n-64*w))
	}
}

// wordsArray evaluates a WordEval over every row of b as a Boolean array
// (the form Eval returns), built in cmpOut's whole-word buffers.
func wordsArray(ctx context.Context, mem memory.Allocator, e WordEval, b arrow.RecordBatch) (compute.Datum, error) {
	n := int(b.NumRows())
	out := newCmpOut(mem, n)
	nw := WordsFor(n)
	vals, valid := bufWords(out.vals, nw), bufWords(out.valid, nw)
	if err := e.EvalWords(ctx, mem, b, nil, vals, valid); err != nil {
		out.vals.Release()
		out.valid.Release()
		return nil, err
	}
	a := out.finish()
	defer a.Release()
	return compute.NewDatum(a), nil
}

// bufWords is a buffer's bytes as nw words (the buffer holds 8*nw bytes;
// arrow's allocators align buffers to 64 bytes).
func bufWords(buf *memory.Buffer, nw int) []uint64 {
	if nw == 0 {
		return nil
	}
	return arrow.GetData[uint64](buf.Bytes())[:nw]
}

// SelWords appends to sel (reset first) the rows whose bit is set in both
// vals and valid, over n rows: the TRUE rows of a predicate's words.
func SelWords(vals, valid []uint64, n int, sel []int32) []int32 {
	sel = sel[:0]
	for w := range WordsFor(n) {
		x := vals[w] & valid[w] & fullWord(w, n)
		for x != 0 {
			sel = append(sel, int32(64*w+bits.TrailingZeros64(x)))
			x &= x - 1
		}
	}
	return sel
}

// datumWords scatters a boolean datum over len(rows) rows (a scalar: the
// same value at each) into vals and valid at rows (nil rows: the datum is
// over every row of the batch, row i to bit i).
func datumWords(d compute.Datum, n int, rows []int32, vals, valid []uint64) error {
	m := n
	if rows != nil {
		m = len(rows)
	}
	bv, bm, err := boolBits(d, m)
	if err != nil {
		return err
	}
	at := func(i int) int {
		if rows == nil {
			return i
		}
		return int(rows[i])
	}
	for i := range m {
		r := at(i)
		w, s := r/64, uint(r%64)
		vals[w] = vals[w]&^(1<<s) | uint64(bv[i>>3]>>(i&7)&1)<<s
		bit := uint64(1)
		if bm != nil {
			bit = uint64(bm[i>>3] >> (i & 7) & 1)
		}
		valid[w] = valid[w]&^(1<<s) | bit<<s
	}
	return nil
}

// evalGeneric evaluates a boolean operand that is not a WordEval at the
// rows of live: over b itself when live is every row, else over a batch of
// just those rows (gather.go), so the operand never sees a row it should
// not (see WordEval). A literal or parameter reads no row and runs on b.
func evalGeneric(ctx context.Context, mem memory.Allocator, e Bound, b arrow.RecordBatch, live, vals, valid []uint64) (scalar bool, err error) {
	n := int(b.NumRows())
	all := true
	if live != nil {
		for w := range live {
			if live[w] != fullWord(w, n) {
				all = false
				break
			}
		}
	}
	switch e.(type) {
	case boundLit, boundParam:
		all = true
	}
	if all {
		d, err := e.Eval(ctx, mem, b)
		if err != nil {
			return false, err
		}
		defer d.Release()
		return isScalar(d), datumWords(d, n, nil, vals, valid)
	}
	rows := SelWords(live, live, n, nil)
	sub, err := GatherBatch(ctx, mem, b, rows)
	if err != nil {
		return false, fmt.Errorf("exec: %s: %w", e, err)
	}
	defer sub.Release()
	d, err := e.Eval(ctx, mem, sub)
	if err != nil {
		return false, err
	}
	defer d.Release()
	return isScalar(d), datumWords(d, n, rows, vals, valid)
}
