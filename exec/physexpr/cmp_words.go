package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// boundCmpWords is a comparison the kernels of cmp_kernels.go run into
// words (WordEval) that is not a range (cmp_range.go): a string or binary
// column against a non-NULL literal (compared at the live rows only), or
// two columns of one type with a loop there (compared at every row: the
// loop is cheaper than visiting rows one by one).
type boundCmpWords struct {
	predicate
	op   Op
	l, r boundCol
	k    scalar.BinaryScalar // nil: column against column
	src  string
}

// asCmpWords is l op r as a boundCmpWords when it is one.
func asCmpWords(op Op, l, r Bound) (boundCmpWords, bool) {
	lc, lok := l.(boundCol)
	rc, rok := r.(boundCol)
	// The text only when the comparison is one: rendering l and r is
	// linear in their depth, and a deep operand is bound once per level.
	src := func() string { return fmt.Sprintf("%s %s %s", l, opInfo[op].sym, r) }
	switch {
	case lok && rok:
		if !cmpTyped(lc.typ.ID()) || !arrow.TypeEqual(lc.typ, rc.typ) {
			return boundCmpWords{}, false
		}
		return boundCmpWords{op: op, l: lc, r: rc, src: src()}, true
	case !lok && rok:
		return asCmpWords(flipOp(op), r, l)
	case !lok:
		return boundCmpWords{}, false
	}
	k, ok := r.(boundLit)
	if !ok || !k.s.IsValid() || !arrow.TypeEqual(k.s.DataType(), lc.typ) {
		return boundCmpWords{}, false
	}
	switch lc.typ.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING:
	default:
		return boundCmpWords{}, false
	}
	bs, ok := k.s.(scalar.BinaryScalar)
	if !ok {
		return boundCmpWords{}, false
	}
	return boundCmpWords{op: op, l: lc, k: bs, src: src()}, true
}

func (e boundCmpWords) String() string { return e.src }

func (e boundCmpWords) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return wordsArray(ctx, mem, e, b)
}

func (e boundCmpWords) column(b arrow.RecordBatch, c boundCol) (arrow.ArrayData, error) {
	if c.src.Index >= int(b.NumCols()) || !arrow.TypeEqual(b.Column(c.src.Index).DataType(), c.typ) {
		return nil, fmt.Errorf("%w: %s: batch does not match the bound schema", ErrSchema, e.src)
	}
	return b.Column(c.src.Index).Data(), nil
}

func (e boundCmpWords) EvalWords(_ context.Context, _ memory.Allocator, b arrow.RecordBatch, live, vals, valid []uint64) error {
	l, err := e.column(b, e.l)
	if err != nil {
		return err
	}
	n := l.Len()
	out := &cmpOut{n: n, words: vals}
	validityWords(l, valid)
	if e.k != nil {
		if l.DataType().ID() == arrow.LARGE_STRING {
			cmpBytesConst(e.op, offsetsOf[int64](l), l.Buffers()[2], e.k.Data(), live, out)
		} else {
			cmpBytesConst(e.op, offsetsOf[int32](l), l.Buffers()[2], e.k.Data(), live, out)
		}
		return nil
	}
	r, err := e.column(b, e.r)
	if err != nil {
		return err
	}
	rv := make([]uint64, len(valid))
	validityWords(r, rv)
	for w := range valid {
		valid[w] &= rv[w]
	}
	cmpColumns(e.op, l, r, out)
	return nil
}
