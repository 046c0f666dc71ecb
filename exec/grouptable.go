package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// groupTable gives each distinct key over a fixed list of columns a dense
// group id, 0, 1, ... in order of first appearance, and keeps each group's
// key values (in Arrow builders, in id order) for the output. NULL is a
// key like any other (encodeGroupKey). It is the one owner of "which rows
// are one group" for HashAggregateExec, OrderedAggregateExec (through
// sameKey) and SetOpExec.
//
// One int64 key column, the common GROUP BY, takes a map keyed by the
// value itself instead of by encoded bytes.
type groupTable struct {
	types []arrow.DataType
	keys  []array.Builder
	ids   map[string]uint32
	ints  map[int64]uint32 // one int64 key column
	null  int64            // the NULL group of an int64 key, -1 until seen
	n     int
	buf   []byte
}

func newGroupTable(mem memory.Allocator, types []arrow.DataType) *groupTable {
	t := &groupTable{types: types, null: -1}
	t.keys = make([]array.Builder, len(types))
	for i, ty := range types {
		t.keys[i] = array.NewBuilder(mem, ty)
	}
	if len(types) == 1 && types[0].ID() == arrow.INT64 {
		t.ints = map[int64]uint32{}
	} else {
		t.ids = map[string]uint32{}
	}
	return t
}

// len is the number of groups.
func (t *groupTable) len() int { return t.n }

// assign sets out[r] to the group of row r of cols (creating groups for new
// keys) and returns out, grown to rows.
func (t *groupTable) assign(cols []arrow.Array, rows int, out []uint32) ([]uint32, error) {
	out = growIDs(out, rows)
	if t.ints != nil {
		a := cols[0].(*array.Int64)
		v := a.Int64Values()
		nulls := a.NullN() > 0
		for r := range rows {
			if nulls && a.IsNull(r) {
				if t.null < 0 {
					t.null = int64(t.n)
					if err := t.add(cols, r); err != nil {
						return out, err
					}
				}
				out[r] = uint32(t.null)
				continue
			}
			id, ok := t.ints[v[r]]
			if !ok {
				id = uint32(t.n)
				t.ints[v[r]] = id
				if err := t.add(cols, r); err != nil {
					return out, err
				}
			}
			out[r] = id
		}
		return out, nil
	}
	for r := range rows {
		t.buf = encodeGroupKey(t.buf[:0], cols, r)
		id, ok := t.ids[string(t.buf)]
		if !ok {
			id = uint32(t.n)
			t.ids[string(t.buf)] = id
			if err := t.add(cols, r); err != nil {
				return out, err
			}
		}
		out[r] = id
	}
	return out, nil
}

// lookup returns the group of row r of cols without creating one.
func (t *groupTable) lookup(cols []arrow.Array, r int) (uint32, bool) {
	if t.ints != nil {
		a := cols[0].(*array.Int64)
		if a.IsNull(r) {
			return uint32(t.null), t.null >= 0
		}
		id, ok := t.ints[a.Value(r)]
		return id, ok
	}
	t.buf = encodeGroupKey(t.buf[:0], cols, r)
	id, ok := t.ids[string(t.buf)]
	return id, ok
}

func (t *groupTable) add(cols []arrow.Array, r int) error {
	for i, b := range t.keys {
		if err := appendValue(b, cols[i], r); err != nil {
			return err
		}
	}
	t.n++
	return nil
}

// finish returns the key columns of all groups, in id order, and leaves the
// table empty of keys (the builders reset); the caller releases them.
func (t *groupTable) finish() []arrow.Array {
	out := make([]arrow.Array, len(t.keys))
	for i, b := range t.keys {
		out[i] = b.NewArray()
	}
	return out
}

func (t *groupTable) release() {
	for _, b := range t.keys {
		b.Release()
	}
	t.keys, t.ids, t.ints = nil, nil, nil
}

func growIDs(ids []uint32, n int) []uint32 {
	if cap(ids) < n {
		return make([]uint32, n)
	}
	return ids[:n]
}
