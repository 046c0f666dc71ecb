package physexpr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// substrKernel is substr(s, start [, count]). The common shape — a string
// column and constant bounds, as in TPC-H Q22's substr(c_phone, 1, 2) —
// runs as one pass over the column's offsets and bytes into preallocated
// output buffers: no per-row calls, strings or builder appends, and ASCII
// rows (the usual case) cut by byte position without decoding runes.
// Anything else (bounds from columns, a NULL bound) goes row by row
// through substr, which is also the reference the fast path is tested
// against.
func substrKernel(mem memory.Allocator, n int, ds []compute.Datum) (arrow.Array, error) {
	if out, ok, err := substrConst(mem, ds); ok || err != nil {
		return out, err
	}
	return substrRows(mem, n, ds)
}

var substrRows = stringRows(func(a []arg, i int) (string, error) {
	if len(a) == 2 {
		return substr(a[0].s(i), a[1].i(i), 0, false)
	}
	return substr(a[0].s(i), a[1].i(i), a[2].i(i), true)
})

// substrConst is the fast path; ok is false when ds is not a string
// column with valid constant bounds.
func substrConst(mem memory.Allocator, ds []compute.Datum) (arrow.Array, bool, error) {
	col, isCol := ds[0].(*compute.ArrayDatum)
	if !isCol || col.Type().ID() != arrow.STRING {
		return nil, false, nil
	}
	start, ok := constInt(ds[1])
	if !ok {
		return nil, false, nil
	}
	count, hasCount := int64(0), len(ds) == 3
	if hasCount {
		if count, ok = constInt(ds[2]); !ok {
			return nil, false, nil
		}
		if count < 0 { // an error, unless no row is evaluated: substr's own path
			return nil, false, nil
		}
	}
	// The characters taken are [first, end), 1-based, as substr counts.
	first, end := max(start, 1), int64(math.MaxInt64)
	if hasCount && start <= math.MaxInt64-count {
		end = start + count
	}
	in := col.Value
	rows := in.Len()
	offs := offsetsOf[int32](in)
	var data []byte
	if rows > 0 && in.Buffers()[2] != nil {
		data = in.Buffers()[2].Bytes()
	}
	// The output is never longer than the input's bytes.
	total := 0
	if rows > 0 {
		total = int(offs[rows] - offs[0])
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize(arrow.Int32Traits.BytesRequired(rows + 1))
	db := memory.NewResizableBuffer(mem)
	db.Resize(total)
	oo, od := arrow.Int32Traits.CastFromBytes(ob.Bytes()), db.Bytes()
	at := int32(0)
	oo[0] = 0
	for i := 0; i < rows; i++ {
		s := data[offs[i]:offs[i+1]]
		from, to := charRange(s, first, end)
		at += int32(copy(od[at:], s[from:to]))
		oo[i+1] = at
	}
	db.Resize(int(at))
	var validity *memory.Buffer
	nulls := 0
	if vb := in.Buffers()[0]; vb != nil && rows > 0 {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(rows))))
		bitutil.CopyBitmap(vb.Bytes(), in.Offset(), rows, validity.Bytes(), 0)
		nulls = rows - bitutil.CountSetBits(validity.Bytes(), 0, rows)
	}
	out := array.NewData(arrow.BinaryTypes.String, rows, []*memory.Buffer{validity, ob, db}, nil, nulls, 0)
	for _, b := range []*memory.Buffer{validity, ob, db} {
		if b != nil {
			b.Release()
		}
	}
	defer out.Release()
	return array.MakeFromData(out), true, nil
}

// charRange is the byte range of characters [first, end) of s (1-based,
// first >= 1): by byte position while the bytes are ASCII, else by the
// same rune walk as substr (an invalid byte counts as one character).
func charRange(s []byte, first, end int64) (int, int) {
	if end <= first {
		return 0, 0
	}
	n := int64(len(s))
	lim := min(end-1, n) // bytes that decide the range when ASCII
	ascii := true
	for _, c := range s[:lim] {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return int(min(first-1, n)), int(lim)
	}
	pos, from, to := int64(1), len(s), len(s)
	for bi := range string(s) { // no copy: the compiler ranges over the bytes
		if pos == first {
			from = bi
		}
		if pos == end {
			to = bi
			break
		}
		pos++
	}
	return from, max(from, to)
}

// constInt is the value of a valid integer scalar datum.
func constInt(d compute.Datum) (int64, bool) {
	sd, ok := d.(*compute.ScalarDatum)
	if !ok || !sd.Value.IsValid() {
		return 0, false
	}
	switch v := sd.Value.(type) {
	case *scalar.Int8:
		return int64(v.Value), true
	case *scalar.Int16:
		return int64(v.Value), true
	case *scalar.Int32:
		return int64(v.Value), true
	case *scalar.Int64:
		return v.Value, true
	}
	return 0, false
}
