package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// groupTable gives each distinct key over a fixed list of columns a dense
// group id, 0, 1, ... in order of first appearance, and keeps each group's
// key values (in Arrow builders, in id order) for the output. NULL is a
// key like any other: NULL = NULL, and NULL is no value's equal. It is the
// one owner of "which rows are one group" for HashAggregateExec and
// SetOpExec (OrderedAggregateExec compares encodeGroupKey bytes, the same
// equality).
//
// A batch is grouped at once (hashtable.go): its key columns normalized,
// hashed a column at a time, then each row found or inserted in an
// open-addressing table whose entries are the group ids and whose stored
// keys (store, one row per group) are compared column by column.
type groupTable struct {
	types  []arrow.DataType
	keys   []array.Builder
	store  *keyStore
	table  *hashTable
	view   keyCols  // the batch being grouped (scratch)
	hashes []uint64 // its hashes (scratch)
	n      int
	packed packedGroups // the groups by packed key, for small keys (grouptable_packed.go)
}

func newGroupTable(mem memory.Allocator, types []arrow.DataType) *groupTable {
	t := &groupTable{types: types, store: newKeyStore(types), table: newHashTable(0, true)}
	t.packed.off = !packableKeys(types)
	t.keys = make([]array.Builder, len(types))
	for i, ty := range types {
		t.keys[i] = array.NewBuilder(mem, ty)
	}
	return t
}

// len is the number of groups.
func (t *groupTable) len() int { return t.n }

// assign sets out[r] to the group of row r of cols (creating groups for new
// keys) and returns out, grown to rows.
func (t *groupTable) assign(cols []arrow.Array, rows int, out []uint32) ([]uint32, error) {
	out = growIDs(out, rows)
	if !t.packed.off {
		if ok, err := t.assignPacked(cols, rows, out); ok || err != nil {
			return out, err
		}
	}
	return out, t.assignRows(cols, 0, rows, out)
}

// assignRows is assign for rows [lo, rows) of cols: normalized, hashed,
// each found or inserted in the hash table.
func (t *groupTable) assignRows(cols []arrow.Array, lo, rows int, out []uint32) error {
	t.view.normalize(cols, rows)
	t.hashes = t.view.hash(lo, rows, t.hashes) // row lo+i's at i
	if t.view.oneWord() && !t.view.anyNull && !t.store.anyNull {
		// One word column, no NULL on either side: compare inline.
		w := t.view.cols[0].w
		for i, h := range t.hashes {
			if i%touchChunk == 0 {
				t.table.touch(t.hashes[i:min(len(t.hashes), i+touchChunk)])
			}
			r := lo + i
			id, found := t.table.findOrInsertWord(h, w[r], t.store.cols[0].w, int32(t.n))
			if !found {
				t.store.add(&t.view, r, t.n)
				if err := t.add(cols, r); err != nil {
					return err
				}
			}
			out[r] = uint32(id)
		}
		return nil
	}
	for i, h := range t.hashes {
		if i%touchChunk == 0 {
			t.table.touch(t.hashes[i:min(len(t.hashes), i+touchChunk)])
		}
		r := lo + i
		id, found := t.table.findOrInsert(h, &t.view, r, &t.store.keyCols, int32(t.n))
		if !found {
			t.store.add(&t.view, r, t.n)
			if err := t.add(cols, r); err != nil {
				return err
			}
		}
		out[r] = uint32(id)
	}
	return nil
}

// lookup sets out[r] to the group of row r of cols, -1 for a key with no
// group (none is created), and returns out, grown to rows.
func (t *groupTable) lookup(cols []arrow.Array, rows int, out []int32) []int32 {
	out = growInt32s(out, rows)
	t.view.normalize(cols, rows)
	t.hashes = t.view.hash(0, rows, t.hashes)
	for r, h := range t.hashes {
		out[r] = t.table.find(h, &t.view, r, &t.store.keyCols)
	}
	return out
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
	t.keys, t.store, t.table = nil, nil, nil
}

func growIDs(ids []uint32, n int) []uint32 {
	if cap(ids) < n {
		return make([]uint32, n)
	}
	return ids[:n]
}
