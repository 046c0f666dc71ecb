package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// HashJoinExec is an equi-join: it builds a hash table on the right input and
// probes the left in order, so the left ordering is preserved (RIGHT and
// FULL append the unmatched right rows at the end, so they keep none).
// Output is left columns then right columns (left only for semi and anti
// joins); the side that may be NULL-extended is nullable. NULL keys never
// match. An optional residual predicate over left ++ right is tested on
// each key match: only pairs for which it is true match. The state machine
// is joinStream's (joinstream.go).
type HashJoinExec struct{ joinCore }

// joinKeyOK: the key types encodeKey knows, the group key types.
func joinKeyOK(t arrow.DataType) bool { return groupKeyOK(t) }

// NewHashJoinExec joins on leftKeys = rightKeys.
func NewHashJoinExec(left, right Node, leftKeys, rightKeys []int, typ JoinType) (*HashJoinExec, error) {
	return NewHashJoinExecResidual(left, right, leftKeys, rightKeys, typ, nil)
}

// NewHashJoinExecResidual joins on leftKeys = rightKeys and residual (over
// left ++ right; nil for none). JoinAntiNullAware takes one key and no
// residual.
func NewHashJoinExecResidual(left, right Node, leftKeys, rightKeys []int, typ JoinType, residual Expr) (*HashJoinExec, error) {
	if len(leftKeys) == 0 || len(leftKeys) != len(rightKeys) {
		return nil, fmt.Errorf("%w: join needs equal, non-empty key lists", ErrInvalidArgument)
	}
	if !typ.valid() {
		return nil, fmt.Errorf("%w: join type %d", ErrInvalidArgument, typ)
	}
	if typ == JoinAntiNullAware && (len(leftKeys) != 1 || residual != nil) {
		return nil, fmt.Errorf("%w: a NULL-aware anti join takes one key and no residual", ErrInvalidArgument)
	}
	ls, rs := left.Schema(), right.Schema()
	for i := range leftKeys {
		l, r := leftKeys[i], rightKeys[i]
		if l < 0 || l >= ls.NumFields() || r < 0 || r >= rs.NumFields() {
			return nil, fmt.Errorf("%w: join key %d out of range", ErrInvalidArgument, i)
		}
		lt, rt := ls.Field(l).Type, rs.Field(r).Type
		if !arrow.TypeEqual(lt, rt) {
			return nil, fmt.Errorf("%w: join key %d types %s and %s differ", ErrSchema, i, lt, rt)
		}
		if !joinKeyOK(lt) {
			return nil, fmt.Errorf("%w: join key type %s", ErrInvalidArgument, lt)
		}
	}
	out, pair := joinSchemas(ls, rs, typ)
	bound, err := bindResidual(residual, pair)
	if err != nil {
		return nil, err
	}
	return &HashJoinExec{joinCore{left: left, right: right, lkeys: append([]int{}, leftKeys...), rkeys: append([]int{}, rightKeys...),
		typ: typ, residual: residual, bound: bound, schema: out, pair: pair}}, nil
}

func (h *HashJoinExec) Name() string           { return "HashJoinExec" }
func (h *HashJoinExec) Schema() *arrow.Schema  { return h.schema }
func (h *HashJoinExec) Children() []Node       { return []Node{h.left, h.right} }
func (h *HashJoinExec) Metrics() *Metrics      { return &h.metrics }
func (h *HashJoinExec) Properties() Properties { return joinOrdering(h.left, h.typ) }
func (h *HashJoinExec) String() string {
	on := make([]string, len(h.lkeys))
	for i := range h.lkeys {
		on[i] = fmt.Sprintf("(%s, %s)", h.left.Schema().Field(h.lkeys[i]).Name, h.right.Schema().Field(h.rkeys[i]).Name)
	}
	s := fmt.Sprintf("HashJoinExec: type=%s on=[%s]", h.typ, strings.Join(on, ", "))
	if h.perPart {
		s += fmt.Sprintf(", partitions=%d", h.OutputPartitions())
	}
	if h.residual != nil {
		s += " filter=" + h.residual.String()
	}
	return s
}

func (h *HashJoinExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return h.execute(tc), nil
}

// keyIndex is the build side's hash table: the first right row of each key
// and a chain of the rows with the same key, in right order.
type keyIndex struct {
	head   map[string]int32 // encoded key -> first build row
	headU  map[uint64]int32 // the same for one integer key column (no encoding)
	intKey bool
	next   []int32 // next build row with the same key; -1 ends
}

func (x *keyIndex) lookup(key []byte) int32 {
	if h, ok := x.head[string(key)]; ok {
		return h
	}
	return -1
}

func (x *keyIndex) lookupInt(k uint64) int32 {
	if h, ok := x.headU[k]; ok {
		return h
	}
	return -1
}

// newKeyIndex indexes the n rows of the key columns cols; rows with a NULL
// key are left out (they match nothing).
func newKeyIndex(cols []arrow.Array, n int) *keyIndex {
	x := &keyIndex{next: make([]int32, n)}
	tail := make([]int32, n)
	if vals, ok := intKeys(cols); ok {
		// One integer key: a map keyed by the value itself is several times
		// faster than encoding every key to bytes.
		x.intKey = true
		x.headU = make(map[uint64]int32, n)
		c := cols[0]
		for r := 0; r < n; r++ {
			x.next[r] = -1
			if c.IsNull(r) {
				continue
			}
			k := vals(r)
			if h, found := x.headU[k]; found {
				x.next[tail[h]] = int32(r)
				tail[h] = int32(r)
			} else {
				x.headU[k] = int32(r)
				tail[r] = int32(r)
			}
		}
		return x
	}
	x.head = make(map[string]int32, n)
	var buf []byte
	for r := 0; r < n; r++ {
		x.next[r] = -1
		var ok bool
		buf, ok = encodeKey(buf[:0], cols, r)
		if !ok {
			continue
		}
		if h, found := x.head[string(buf)]; found {
			x.next[tail[h]] = int32(r) // append keeps build order within a key
			tail[h] = int32(r)
		} else {
			x.head[string(buf)] = int32(r)
			tail[r] = int32(r)
		}
	}
	return x
}

// intKeys returns a value reader when cols is one integer column.
func intKeys(cols []arrow.Array) (func(int) uint64, bool) {
	if len(cols) != 1 {
		return nil, false
	}
	switch a := cols[0].(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(r int) uint64 { return uint64(v[r]) }, true
	case *array.Uint64:
		v := a.Uint64Values()
		return func(r int) uint64 { return v[r] }, true
	case *array.Int32:
		v := a.Int32Values()
		return func(r int) uint64 { return uint64(int64(v[r])) }, true
	case *array.Uint32:
		v := a.Uint32Values()
		return func(r int) uint64 { return uint64(v[r]) }, true
	}
	return nil, false
}

// encodeKey appends row's key bytes to buf; ok is false if any key is NULL.
func encodeKey(buf []byte, cols []arrow.Array, row int) ([]byte, bool) {
	for _, c := range cols {
		if c.IsNull(row) {
			return buf, false
		}
		buf = appendKeyValue(buf, c, row)
	}
	return buf, true
}

func emptyCols(sc *arrow.Schema, tc *TaskContext) []arrow.Array {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		cols[i] = array.MakeArrayOfNull(tc.mem(), f.Type, 0)
	}
	return cols
}
