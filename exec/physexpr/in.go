package physexpr

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// In is E IN (List...) with SQL semantics: TRUE on a match; else NULL if E
// or any item is NULL; else FALSE.
type In struct {
	E    Expr
	List []Lit
}

func (e In) String() string {
	parts := make([]string, len(e.List))
	for i, l := range e.List {
		parts[i] = l.String()
	}
	return fmt.Sprintf("%s IN (%s)", e.E, strings.Join(parts, ", "))
}

// DataType checks the operand and items without building the set (the
// planner asks for types more often than it builds operators).
func (e In) DataType(s *arrow.Schema) (arrow.DataType, error) {
	if _, _, err := e.operands(s); err != nil {
		return nil, err
	}
	return arrow.FixedWidthTypes.Boolean, nil
}
func (e In) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// Bind builds the list's hash set once, typed by the operand's type (no
// boxing into map[any]); each row is then one probe. Types without a set
// are bound as the Kleene OR of equalities, which is SQL's definition.
func (e In) Bind(s *arrow.Schema) (Bound, error) {
	x, items, err := e.operands(s)
	if err != nil {
		return nil, err
	}
	switch x.Type().ID() {
	case arrow.INT8:
		return bindSet[int8](e, x, items)
	case arrow.INT16:
		return bindSet[int16](e, x, items)
	case arrow.INT32:
		return bindSet[int32](e, x, items)
	case arrow.INT64:
		return bindSet[int64](e, x, items)
	case arrow.UINT64:
		return bindSet[uint64](e, x, items)
	case arrow.FLOAT32:
		return bindSet[float32](e, x, items)
	case arrow.FLOAT64:
		return bindSet[float64](e, x, items)
	case arrow.STRING:
		return bindStringSet(e, x, items)
	}
	var or Expr
	for _, l := range e.List {
		eq := Binary{Op: OpEq, L: e.E, R: l}
		if or == nil {
			or = eq
		} else {
			or = Binary{Op: OpOr, L: or, R: eq}
		}
	}
	return Bind(or, s)
}

// operands binds E and makes the items' scalars, checking that each is
// of E's type or NULL.
func (e In) operands(s *arrow.Schema) (Bound, []scalar.Scalar, error) {
	if len(e.List) == 0 {
		return nil, nil, fmt.Errorf("%w: empty IN list", ErrInvalidArgument)
	}
	x, err := Bind(e.E, s)
	if err != nil {
		return nil, nil, err
	}
	t := x.Type()
	items := make([]scalar.Scalar, len(e.List))
	for i, l := range e.List {
		if items[i], err = l.scalar(); err != nil {
			return nil, nil, err
		}
		if it := items[i].DataType(); it.ID() != arrow.NULL && !arrow.TypeEqual(it, t) {
			return nil, nil, fmt.Errorf("%w: %s IN (...): item %s is %s, operand is %s (add a Cast)", ErrSchema, e.E, l, it, t)
		}
	}
	return x, items, nil
}

// boundSet is IN over a fixed-width type: a Go map built at bind time.
// Float keys are normalized as PostgreSQL compares floats: -0 is 0, and
// NaN (which a map cannot find) is a flag that NaN is in the list.
type boundSet[T fixed] struct {
	exprOf[fmt.Stringer]
	predicate
	x        Bound
	set      map[T]struct{}
	ints     *intSet // in place of set: a long integer list (InValues)
	hasNaN   bool
	listNull bool
}

// size is the number of distinct values in the set.
func (e *boundSet[T]) size() int {
	if e.ints != nil {
		return e.ints.n
	}
	return len(e.set)
}

// contains reports whether the (normalized, non-NaN) v is in the set.
func (e *boundSet[T]) contains(v T) bool {
	if e.ints != nil {
		return e.ints.has(int64(v))
	}
	_, hit := e.set[v]
	return hit
}

func isNaN[T fixed](v T) bool { return v != v }

func bindSet[T fixed](src In, x Bound, items []scalar.Scalar) (Bound, error) {
	b := &boundSet[T]{exprOf: exprOf[fmt.Stringer]{src}, x: x, set: make(map[T]struct{}, len(items))}
	for _, it := range items {
		if !it.IsValid() {
			b.listNull = true
			continue
		}
		o, err := operandOf[T](compute.NewDatumWithoutOwning(it))
		if err != nil {
			return nil, err
		}
		v := o.at(0)
		switch {
		case isNaN(v):
			b.hasNaN = true
		case v == 0:
			b.set[0] = struct{}{} // -0 and 0 are one key
		default:
			b.set[v] = struct{}{}
		}
	}
	return b, nil
}

func (e *boundSet[T]) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.x.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if ad, ok := d.(*compute.ArrayDatum); ok && e.size() <= shortInList && !isFloat[T]() {
		a := e.shortColumn(mem, ad.Value)
		defer a.Release()
		return compute.NewDatum(a), nil
	}
	x, err := operandOf[T](d)
	if err != nil {
		return nil, err
	}
	n, asScalar := rowsFor(int(b.NumRows()), d)
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		if !x.valid(i) {
			out.setNull(i)
			continue
		}
		v := x.at(i)
		hit := false
		if isNaN(v) {
			hit = e.hasNaN
		} else {
			if v == 0 {
				v = 0
			}
			hit = e.contains(v)
		}
		emitIn(out, i, hit, e.listNull)
	}
	return result(out.array(), asScalar)
}

func isFloat[T fixed]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// shortColumn is the IN of an integer column against a short list: each
// row compared with every item (no hashing), 64 rows to a result word; a
// miss is NULL when the list holds a NULL.
func (e *boundSet[T]) shortColumn(mem memory.Allocator, col arrow.ArrayData) arrow.Array {
	n := col.Len()
	out := newCmpOut(mem, n)
	andValidity(out.valid.Bytes(), n, col)
	items := make([]T, 0, e.size())
	if e.ints != nil {
		for _, v := range e.ints.keys() {
			items = append(items, T(v))
		}
	}
	for v := range e.set {
		items = append(items, v)
	}
	vals := fixedVals[T](col)
	vb := out.valid.Bytes()
	for base := 0; base < n; base += 64 {
		var hit uint64
		for j, v := range vals[base:min(base+64, n)] {
			h := false
			for _, it := range items {
				h = h || v == it
			}
			hit |= b2u(h) << j
		}
		out.putVal(base/64, hit)
		if e.listNull {
			w := base / 64 * 8
			binary.LittleEndian.PutUint64(vb[w:], binary.LittleEndian.Uint64(vb[w:])&hit)
		}
	}
	return out.finish()
}

// emitIn writes one IN result: a miss is NULL when the list holds a NULL.
func emitIn(out *boolOut, i int, hit, listNull bool) {
	switch {
	case hit:
		out.set(i, true)
	case listNull:
		out.setNull(i)
	}
}

// boundStringSet is IN over strings. A column is probed on its raw bytes
// (column): against a short list item by item, lengths first, and
// against a longer one through the map, 64 rows to a result word.
type boundStringSet struct {
	exprOf[fmt.Stringer]
	predicate
	x        Bound
	set      map[string]struct{}
	items    [][]byte // the set's strings, for the short-list scan
	listNull bool
}

// shortInList is the longest list scanned item by item rather than hashed.
const shortInList = 8

// column is the IN over a string column: TRUE on a hit; a miss is NULL
// when the list holds a NULL, else FALSE; a NULL row is NULL.
func (e *boundStringSet) column(mem memory.Allocator, col arrow.ArrayData) arrow.Array {
	n := col.Len()
	out := newCmpOut(mem, n)
	andValidity(out.valid.Bytes(), n, col)
	offs := offsetsOf[int32](col)
	var data []byte
	if n > 0 && col.Buffers()[2] != nil {
		data = col.Buffers()[2].Bytes()
	}
	short := len(e.items) <= shortInList
	vb := out.valid.Bytes()
	for base := 0; base < n; base += 64 {
		var hit uint64
		for j := 0; j < min(64, n-base); j++ {
			t := data[offs[base+j]:offs[base+j+1]]
			h := false
			if short {
				for _, it := range e.items {
					if len(it) == len(t) && bytes.Equal(it, t) {
						h = true
						break
					}
				}
			} else {
				_, h = e.set[string(t)]
			}
			hit |= b2u(h) << j
		}
		out.putVal(base/64, hit)
		if e.listNull { // a miss is NULL
			w := base / 64 * 8
			binary.LittleEndian.PutUint64(vb[w:], binary.LittleEndian.Uint64(vb[w:])&hit)
		}
	}
	return out.finish()
}

func bindStringSet(src In, x Bound, items []scalar.Scalar) (Bound, error) {
	b := &boundStringSet{exprOf: exprOf[fmt.Stringer]{src}, x: x, set: make(map[string]struct{}, len(items))}
	for _, it := range items {
		if !it.IsValid() {
			b.listNull = true
			continue
		}
		s, ok := it.(*scalar.String)
		if !ok {
			return nil, fmt.Errorf("%w: IN item %s", ErrSchema, it.DataType())
		}
		if _, dup := b.set[string(s.Value.Bytes())]; !dup {
			b.items = append(b.items, s.Value.Bytes())
		}
		b.set[string(s.Value.Bytes())] = struct{}{}
	}
	return b, nil
}

func (e *boundStringSet) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.x.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if ad, ok := d.(*compute.ArrayDatum); ok && ad.Type().ID() == arrow.STRING {
		a := e.column(mem, ad.Value)
		defer a.Release()
		return compute.NewDatum(a), nil
	}
	var a arrow.Array
	if sd, ok := d.(*compute.ScalarDatum); ok {
		if a, err = scalar.MakeArrayFromScalar(sd.Value, 1, mem); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
	} else {
		a = d.(*compute.ArrayDatum).MakeArray()
	}
	defer a.Release()
	s, ok := a.(*array.String)
	if !ok {
		return nil, fmt.Errorf("%w: IN over %s", ErrSchema, a.DataType())
	}
	n, asScalar := rowsFor(int(b.NumRows()), d)
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		if s.IsNull(i) {
			out.setNull(i)
			continue
		}
		_, hit := e.set[s.Value(i)]
		emitIn(out, i, hit, e.listNull)
	}
	return result(out.array(), asScalar)
}
