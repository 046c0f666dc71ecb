package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Packed keys: a batch whose key, over at most two columns, packs into
// one exact 64-bit code per row (Q1's l_returnflag, l_linestatus: two
// 1-byte strings) is grouped by that code, in a small table of codes and
// group ids, without hashing strings or comparing stored keys. The
// group table proper stays the one owner of the groups: a code the small
// table has not seen goes through it (found or inserted, as assign does
// for any row), and its id is then cached under the code.
//
//	batch ──▶ codes: each column 32 bits, 0 for NULL
//	   │        string of at most 3 bytes: len+1 | bytes << 8
//	   │        integer, date, boolean word v in [0, 2^32-1): v+1
//	   │      a value that does not pack: the whole batch takes assign's path
//	   ▼
//	code ──▶ packedGroups (open addressing on mix(code))
//	            hit: the id        miss: groupTable's own find-or-insert
//
// A code is the key's value (injective: lengths and NULL tell strings
// apart), so equal codes are equal keys under keyCols' equality (a word
// key compares normalized words; a string key its bytes).

const (
	packMaxString = 3    // bytes of a string that packs
	packMaxGroups = 4096 // past this many codes the table stops packing: not "few groups"
)

// packedGroups maps codes to group ids.
type packedGroups struct {
	codes []uint64
	ids   []int32 // id+1; 0 marks an empty slot
	mask  uint64
	n     int
	off   bool     // too many groups, or a key type that never packs
	batch []uint64 // a batch's codes (scratch)
	words []uint64 // a word column's values (scratch)
}

// packableKeys reports whether keys of these types can pack at all.
func packableKeys(types []arrow.DataType) bool {
	if len(types) == 0 || len(types) > 2 {
		return false
	}
	for _, t := range types {
		switch t.ID() {
		case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
			arrow.UINT64, arrow.DATE32, arrow.BOOL:
		default:
			return false // floats, decimals, timestamps: rarely few and small
		}
	}
	return true
}

// encode writes the codes of rows [0, rows) of cols into p.batch; ok is
// false when some value does not pack.
func (p *packedGroups) encode(cols []arrow.Array, rows int) (codes []uint64, ok bool) {
	p.batch = growWords(p.batch, rows)
	codes = p.batch
	clear(codes)
	for ci, a := range cols {
		shift := uint(32 * ci)
		switch a := a.(type) {
		case *array.String:
			if rows == 0 {
				break
			}
			off := a.ValueOffsets()[:rows+1]
			var data []byte
			if bs := a.Data().Buffers(); len(bs) > 2 && bs[2] != nil {
				data = bs[2].Bytes()
			}
			for r := range rows {
				s := data[off[r]:off[r+1]]
				if len(s) > packMaxString {
					if a.IsNull(r) {
						continue // whatever a NULL's slot holds: its code is 0
					}
					return nil, false
				}
				c := uint64(len(s) + 1)
				for j, ch := range s {
					c |= uint64(ch) << (8 * (j + 1))
				}
				codes[r] |= c << shift
			}
		default:
			p.words = growWords(p.words, rows)
			w := p.words
			wordsOf(a, w)
			for r, v := range w {
				if v >= 1<<32-1 {
					if a.IsNull(r) {
						continue
					}
					return nil, false
				}
				codes[r] |= (v + 1) << shift
			}
		}
		if a.NullN() > 0 {
			mask := ^(uint64(1<<32-1) << shift)
			for r := range rows {
				if a.IsNull(r) {
					codes[r] &= mask
				}
			}
		}
	}
	return codes, true
}

// find is code's id; ok is false when the code is not in the table.
func (p *packedGroups) find(code uint64) (int32, bool) {
	if p.mask == 0 {
		return 0, false
	}
	for i := mix(code) & p.mask; ; i = (i + 1) & p.mask {
		switch id := p.ids[i]; {
		case id == 0:
			return 0, false
		case p.codes[i] == code:
			return id - 1, true
		}
	}
}

// insert caches code's id (not in the table yet); past packMaxGroups
// codes the table turns itself off.
func (p *packedGroups) insert(code uint64, id int32) {
	if p.n >= packMaxGroups {
		p.off, p.codes, p.ids, p.mask, p.batch, p.words = true, nil, nil, 0, nil, nil
		return
	}
	if 2*(p.n+1) > len(p.ids) {
		old, oldIDs := p.codes, p.ids
		size := max(64, 2*len(p.ids))
		p.codes, p.ids, p.mask = make([]uint64, size), make([]int32, size), uint64(size-1)
		for i, e := range oldIDs {
			if e != 0 {
				p.place(old[i], e)
			}
		}
	}
	p.place(code, id+1)
	p.n++
}

func (p *packedGroups) place(code uint64, e int32) {
	i := mix(code) & p.mask
	for p.ids[i] != 0 {
		i = (i + 1) & p.mask
	}
	p.codes[i], p.ids[i] = code, e
}

// assignPacked is assign for a batch whose keys pack; ok is false when
// they do not (nothing is assigned then).
func (t *groupTable) assignPacked(cols []arrow.Array, rows int, out []uint32) (bool, error) {
	p := &t.packed
	codes, ok := p.encode(cols, rows)
	if !ok {
		return false, nil
	}
	normalized := false
	for r, code := range codes {
		if id, ok := p.find(code); ok {
			out[r] = uint32(id)
			continue
		}
		// A code not seen yet: the group table finds or makes its group.
		if !normalized {
			t.view.normalize(cols, rows)
			normalized = true
		}
		id, found := t.table.findOrInsert(t.view.hashRow(r), &t.view, r, &t.store.keyCols, int32(t.n))
		if !found {
			t.store.add(&t.view, r, t.n)
			if err := t.add(cols, r); err != nil {
				return true, err
			}
		}
		out[r] = uint32(id)
		if p.insert(code, id); p.off {
			// Too many groups to pack: the rest of the batch as assign
			// groups any batch.
			return true, t.assignRows(cols, r+1, rows, out)
		}
	}
	return true, nil
}
