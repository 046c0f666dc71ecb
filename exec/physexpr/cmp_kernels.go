package physexpr

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Comparison kernels: a column against a constant or against another
// column, as tight typed loops over the values slices. Each block of 64
// rows yields two words, "less" and "equal", from which every operator's
// result word follows without another pass over the values:
//
//	=  eq      <>  ^eq      <  lt      <=  lt|eq      >  ^(lt|eq)      >=  ^lt
//
// NULLs never enter the loops: the result's validity is the AND of the
// operands' validity bitmaps, word by word, and a NULL row's value bit is
// cleared (as boolOut does), so a consumer may read either bitmap alone.
// A constant on the left is the same comparison flipped (5 < x is x > 5).
// Two constants, and the types without a loop here (bool, floats with
// PostgreSQL's NaN order), take the general path in binary.go.

// cmpOrdered is the set of types whose Go order is SQL's order.
type cmpOrdered interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// flipOp is the operator with its operands swapped: a op b == b flip(op) a.
func flipOp(op Op) Op {
	switch op {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return op
}

// cmpWord is op's result word from the less and equal words.
func cmpWord(op Op, lt, eq uint64) uint64 {
	switch op {
	case OpEq:
		return eq
	case OpNe:
		return ^eq
	case OpLt:
		return lt
	case OpLe:
		return lt | eq
	case OpGt:
		return ^(lt | eq)
	}
	return ^lt
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// WordsFor is how many 64-bit words hold n bits.
func WordsFor(n int) int { return (n + 63) / 64 }

// cmpOut is a comparison's boolean output over n rows, written a word
// (64 rows) at a time; both buffers are sized in whole words.
// A cmpOut without buffers (words only) is a WordEval's output.
type cmpOut struct {
	n           int
	vals, valid *memory.Buffer
	words       []uint64 // the value words, in vals when it is set
}

func newCmpOut(mem memory.Allocator, n int) *cmpOut {
	sz := WordsFor(n) * 8
	o := &cmpOut{n: n, vals: memory.NewResizableBuffer(mem), valid: memory.NewResizableBuffer(mem)}
	o.vals.Resize(sz)
	o.valid.Resize(sz)
	o.words = bufWords(o.vals, WordsFor(n))
	return o
}

func (o *cmpOut) putVal(w int, x uint64) { o.words[w] = x }

// finish masks the value bits with the validity and the row count, and
// hands both buffers to a new Boolean array (no validity when no NULLs).
func (o *cmpOut) finish() arrow.Array {
	v, m := o.vals.Bytes(), o.valid.Bytes()
	nw := WordsFor(o.n)
	set := 0
	for w := 0; w < nw; w++ {
		mw := binary.LittleEndian.Uint64(m[8*w:])
		if w == nw-1 && o.n%64 != 0 {
			mw &= 1<<(o.n%64) - 1
		}
		binary.LittleEndian.PutUint64(m[8*w:], mw)
		binary.LittleEndian.PutUint64(v[8*w:], binary.LittleEndian.Uint64(v[8*w:])&mw)
		set += bits.OnesCount64(mw)
	}
	return boolArray(o.n, o.n-set, o.valid, o.vals)
}

// andValidity writes into out (whole words, bit 0 is row 0) the rows
// where every given array is valid.
func andValidity(out []byte, n int, as ...arrow.ArrayData) {
	for i := range out {
		out[i] = 0xFF
	}
	first := true
	for _, a := range as {
		if a.NullN() == 0 || a.Buffers()[0] == nil {
			continue
		}
		bm := a.Buffers()[0].Bytes()
		if first {
			bitutil.CopyBitmap(bm, a.Offset(), n, out, 0)
			first = false
			continue
		}
		bitutil.BitmapAnd(out, bm, 0, int64(a.Offset()), out, 0, int64(n))
	}
}

// compareVectorized runs op over the operands with the kernels of this
// file; ok is false when they do not apply (two constants, or a type
// without a loop here) and the caller takes the general path.
func compareVectorized(mem memory.Allocator, op Op, ld, rd compute.Datum) (res compute.Datum, ok bool, err error) {
	la, lcol := ld.(*compute.ArrayDatum)
	ra, rcol := rd.(*compute.ArrayDatum)
	switch {
	case !lcol && !rcol:
		return nil, false, nil
	case !lcol: // constant op column
		return compareVectorized(mem, flipOp(op), rd, ld)
	}
	col := la.Value
	if !cmpTyped(col.DataType().ID()) {
		return nil, false, nil
	}
	n := col.Len()
	if !rcol {
		c := rd.(*compute.ScalarDatum).Value
		if !arrow.TypeEqual(c.DataType(), col.DataType()) {
			return nil, false, nil
		}
		if !c.IsValid() { // x op NULL is NULL on every row
			a := array.MakeArrayOfNull(mem, arrow.FixedWidthTypes.Boolean, n)
			defer a.Release()
			return compute.NewDatum(a), true, nil
		}
		out := newCmpOut(mem, n)
		andValidity(out.valid.Bytes(), n, col)
		if !cmpConstant(op, col, c, out) {
			out.vals.Release()
			out.valid.Release()
			return nil, false, nil
		}
		a := out.finish()
		defer a.Release()
		return compute.NewDatum(a), true, nil
	}
	rc := ra.Value
	if rc.Len() != n || !arrow.TypeEqual(rc.DataType(), col.DataType()) {
		return nil, false, nil
	}
	out := newCmpOut(mem, n)
	andValidity(out.valid.Bytes(), n, col, rc)
	cmpColumns(op, col, rc, out)
	a := out.finish()
	defer a.Release()
	return compute.NewDatum(a), true, nil
}

// cmpTyped reports whether a column of the type has a loop here.
func cmpTyped(id arrow.Type) bool {
	switch id {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128, arrow.STRING, arrow.BINARY, arrow.LARGE_STRING:
		return true
	}
	return false
}

// cmpConstant compares col with the valid constant c of its type.
func cmpConstant(op Op, col arrow.ArrayData, c scalar.Scalar, out *cmpOut) bool {
	switch col.DataType().ID() {
	case arrow.INT8:
		return cmpFixedConst[int8](op, col, c, out)
	case arrow.INT16:
		return cmpFixedConst[int16](op, col, c, out)
	case arrow.INT32, arrow.DATE32:
		return cmpFixedConst[int32](op, col, c, out)
	case arrow.INT64, arrow.TIMESTAMP:
		return cmpFixedConst[int64](op, col, c, out)
	case arrow.UINT8:
		return cmpFixedConst[uint8](op, col, c, out)
	case arrow.UINT16:
		return cmpFixedConst[uint16](op, col, c, out)
	case arrow.UINT32:
		return cmpFixedConst[uint32](op, col, c, out)
	case arrow.UINT64:
		return cmpFixedConst[uint64](op, col, c, out)
	case arrow.DECIMAL128:
		s, ok := c.(*scalar.Decimal128)
		if !ok {
			return false
		}
		cmpDecimalConst(op, arrow.GetValues[decimal128.Num](col, 1), s.Value, out)
		return true
	case arrow.STRING, arrow.BINARY:
		s, ok := c.(scalar.BinaryScalar)
		if !ok {
			return false
		}
		cmpBytesConst(op, offsetsOf[int32](col), col.Buffers()[2], s.Data(), nil, out)
		return true
	case arrow.LARGE_STRING:
		s, ok := c.(scalar.BinaryScalar)
		if !ok {
			return false
		}
		cmpBytesConst(op, offsetsOf[int64](col), col.Buffers()[2], s.Data(), nil, out)
		return true
	}
	return false
}

// cmpColumns compares two columns of one type, row by row.
func cmpColumns(op Op, l, r arrow.ArrayData, out *cmpOut) {
	switch l.DataType().ID() {
	case arrow.INT8:
		cmpFixedCols(op, fixedVals[int8](l), fixedVals[int8](r), out)
	case arrow.INT16:
		cmpFixedCols(op, fixedVals[int16](l), fixedVals[int16](r), out)
	case arrow.INT32, arrow.DATE32:
		cmpFixedCols(op, fixedVals[int32](l), fixedVals[int32](r), out)
	case arrow.INT64, arrow.TIMESTAMP:
		cmpFixedCols(op, fixedVals[int64](l), fixedVals[int64](r), out)
	case arrow.UINT8:
		cmpFixedCols(op, fixedVals[uint8](l), fixedVals[uint8](r), out)
	case arrow.UINT16:
		cmpFixedCols(op, fixedVals[uint16](l), fixedVals[uint16](r), out)
	case arrow.UINT32:
		cmpFixedCols(op, fixedVals[uint32](l), fixedVals[uint32](r), out)
	case arrow.UINT64:
		cmpFixedCols(op, fixedVals[uint64](l), fixedVals[uint64](r), out)
	case arrow.DECIMAL128:
		cmpDecimalCols(op, fixedVals[decimal128.Num](l), fixedVals[decimal128.Num](r), out)
	case arrow.STRING, arrow.BINARY:
		cmpBytesCols(op, offsetsOf[int32](l), l.Buffers()[2], offsetsOf[int32](r), r.Buffers()[2], out)
	case arrow.LARGE_STRING:
		cmpBytesCols(op, offsetsOf[int64](l), l.Buffers()[2], offsetsOf[int64](r), r.Buffers()[2], out)
	}
}

// fixedVals is a fixed-width column's values from its offset (zeros for
// an empty column without a value buffer).
func fixedVals[T arrow.FixedWidthType](a arrow.ArrayData) []T {
	v := arrow.GetValues[T](a, 1)
	if v == nil {
		v = make([]T, a.Len())
	}
	return v
}

// offsetsOf is a variable-width column's n+1 offsets from its offset
// (nil for an empty column without an offsets buffer).
func offsetsOf[O int32 | int64](a arrow.ArrayData) []O {
	b := a.Buffers()[1]
	if b == nil || b.Len() == 0 {
		return nil
	}
	return arrow.GetData[O](b.Bytes())[a.Offset() : a.Offset()+a.Len()+1]
}

func cmpFixedConst[T cmpOrdered](op Op, col arrow.ArrayData, c scalar.Scalar, out *cmpOut) bool {
	ps, ok := c.(scalar.PrimitiveScalar)
	if !ok {
		return false
	}
	cv := arrow.GetData[T](ps.Data())
	if len(cv) == 0 {
		return false
	}
	v, k := fixedVals[T](col), cv[0]
	for w := 0; w*64 < len(v); w++ {
		blk := v[w*64 : min(w*64+64, len(v))]
		var lt, eq uint64
		for j, x := range blk {
			lt |= b2u(x < k) << j
			eq |= b2u(x == k) << j
		}
		out.putVal(w, cmpWord(op, lt, eq))
	}
	return true
}

func cmpFixedCols[T cmpOrdered](op Op, l, r []T, out *cmpOut) {
	for w := 0; w*64 < len(l); w++ {
		lb := l[w*64 : min(w*64+64, len(l))]
		rb := r[w*64 : w*64+len(lb)]
		var lt, eq uint64
		for j, x := range lb {
			lt |= b2u(x < rb[j]) << j
			eq |= b2u(x == rb[j]) << j
		}
		out.putVal(w, cmpWord(op, lt, eq))
	}
}

// A decimal128 is a signed 128-bit integer (high word signed, low word
// unsigned); one type on both sides means one scale, so the integers
// compare as the values do.
func cmpDecimalConst(op Op, v []decimal128.Num, c decimal128.Num, out *cmpOut) {
	ch, cl := c.HighBits(), c.LowBits()
	for w := 0; w*64 < len(v); w++ {
		blk := v[w*64 : min(w*64+64, len(v))]
		var lt, eq uint64
		for j, x := range blk {
			h, l := x.HighBits(), x.LowBits()
			lt |= b2u(h < ch || h == ch && l < cl) << j
			eq |= b2u(h == ch && l == cl) << j
		}
		out.putVal(w, cmpWord(op, lt, eq))
	}
}

func cmpDecimalCols(op Op, l, r []decimal128.Num, out *cmpOut) {
	for w := 0; w*64 < len(l); w++ {
		lb := l[w*64 : min(w*64+64, len(l))]
		rb := r[w*64 : w*64+len(lb)]
		var lt, eq uint64
		for j, x := range lb {
			h, lo, rh, rl := x.HighBits(), x.LowBits(), rb[j].HighBits(), rb[j].LowBits()
			lt |= b2u(h < rh || h == rh && lo < rl) << j
			eq |= b2u(h == rh && lo == rl) << j
		}
		out.putVal(w, cmpWord(op, lt, eq))
	}
}

// Strings and binaries compare bytewise (the C collation PostgreSQL uses
// in the tests); offs are the column's n+1 offsets from its offset. Only
// the rows set in live are compared (nil: every row).
func cmpBytesConst[O int32 | int64](op Op, offs []O, data *memory.Buffer, c []byte, live []uint64, out *cmpOut) {
	n := len(offs) - 1
	if n <= 0 {
		return
	}
	var buf []byte
	if data != nil {
		buf = data.Bytes()
	}
	for w := 0; w*64 < n; w++ {
		var lt, eq uint64
		for x := liveWord(live, w, n); x != 0; x &= x - 1 {
			j := bits.TrailingZeros64(x)
			i := w*64 + j
			v := buf[offs[i]:offs[i+1]]
			if op == OpEq || op == OpNe { // equality: lengths first
				eq |= b2u(len(v) == len(c) && bytes.Equal(v, c)) << j
				continue
			}
			k := bytes.Compare(v, c)
			lt |= b2u(k < 0) << j
			eq |= b2u(k == 0) << j
		}
		out.putVal(w, cmpWord(op, lt, eq))
	}
}

func cmpBytesCols[O int32 | int64](op Op, lo []O, ld *memory.Buffer, ro []O, rd *memory.Buffer, out *cmpOut) {
	n := len(lo) - 1
	if n <= 0 {
		return
	}
	var lb, rb []byte
	if ld != nil {
		lb = ld.Bytes()
	}
	if rd != nil {
		rb = rd.Bytes()
	}
	for w := 0; w*64 < n; w++ {
		lim := min(64, n-w*64)
		var lt, eq uint64
		for j := 0; j < lim; j++ {
			i := w*64 + j
			k := bytes.Compare(lb[lo[i]:lo[i+1]], rb[ro[i]:ro[i+1]])
			lt |= b2u(k < 0) << j
			eq |= b2u(k == 0) << j
		}
		out.putVal(w, cmpWord(op, lt, eq))
	}
}

// compareDecimal compares two decimal operands of one type row by row:
// the general path, for two constants (the column cases run in
// cmpDecimalConst and cmpDecimalCols).
func compareDecimal(mem memory.Allocator, op Op, n int, ld, rd compute.Datum) (compute.Datum, error) {
	l, err := decimalOf(ld)
	if err != nil {
		return nil, err
	}
	defer l.release()
	r, err := decimalOf(rd)
	if err != nil {
		return nil, err
	}
	defer r.release()
	n, asScalar := rowsFor(n, ld, rd)
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		if !l.valid(i) || !r.valid(i) {
			out.setNull(i)
			continue
		}
		out.set(i, cmpHolds(op, l.at(i).Cmp(r.at(i))))
	}
	return result(out.array(), asScalar)
}
