package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// FuzzGroupTablePacked groups the same batches twice, with packed keys
// (grouptable_packed.go) and with packing off, and wants the same group
// for every row and the same key columns out. The batches mix keys that
// pack (short strings, small integers, NULLs) with ones that do not (a
// 4-byte string, a negative or huge integer), and NULLs over values that
// would not pack, so batches switch between the two paths and the packed
// cache must agree with groups the hash path made, and the reverse.
func FuzzGroupTablePacked(f *testing.F) {
	f.Add([]byte{1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, uint8(0))
	f.Add([]byte{0x80, 0x41, 0x02, 0xc3, 0x10, 0x20, 0x30}, uint8(1))
	f.Add([]byte("AFNORAFNOR NULL and long"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, shape uint8) {
		if len(data) > 900 {
			data = data[:900]
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		types := [][]arrow.DataType{
			{arrow.BinaryTypes.String, arrow.BinaryTypes.String},
			{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String},
			{arrow.PrimitiveTypes.Int64},
			{arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Uint8},
		}[int(shape)%4]
		packed, plain := newGroupTable(mem, types), newGroupTable(mem, types)
		plain.packed.off = true
		defer packed.release()
		defer plain.release()
		strs := []string{"", "A", "F", "N", "O", "R", "AF", "xyz", "long"} // "long" does not pack
		ints := []int64{0, 1, 2, 7, 1<<32 - 2, 1<<32 - 1, -1}              // the last two do not
		var ids1, ids2 []uint32
		for len(data) >= 2 {
			rows := min(int(data[0]%13)+1, len(data)/2) // batches of 1 to 13 rows
			bs := make([]array.Builder, len(types))
			for c, ty := range types {
				bs[c] = array.NewBuilder(mem, ty)
			}
			for r := range rows {
				v := data[2*r+1]
				for c, b := range bs {
					k := int(v>>(3*c)) + r
					if data[2*r]&(1<<c) != 0 && c == int(shape>>2)%len(bs) {
						b.AppendNull()
						continue
					}
					switch b := b.(type) {
					case *array.StringBuilder:
						b.Append(strs[k%len(strs)])
					case *array.Int32Builder:
						b.Append(int32(ints[k%len(ints)]))
					case *array.Int64Builder:
						b.Append(ints[k%len(ints)])
					case *array.BooleanBuilder:
						b.Append(k%2 == 0)
					case *array.Uint8Builder:
						b.Append(uint8(k % 5))
					}
				}
			}
			cols := make([]arrow.Array, len(bs))
			for c, b := range bs {
				cols[c] = b.NewArray()
				b.Release()
			}
			var err1, err2 error
			ids1, err1 = packed.assign(cols, rows, ids1)
			ids2, err2 = plain.assign(cols, rows, ids2)
			for _, a := range cols {
				a.Release()
			}
			require.NoError(t, err1)
			require.NoError(t, err2)
			require.Equal(t, ids2[:rows], ids1[:rows])
			data = data[2*rows:]
		}
		require.Equal(t, plain.len(), packed.len())
		k1, k2 := packed.finish(), plain.finish()
		for c := range k1 {
			require.True(t, array.Equal(k2[c], k1[c]), "key column %d: %v, want %v", c, k1[c], k2[c])
			k1[c].Release()
			k2[c].Release()
		}
	})
}

// Q1's keys (two 1-byte strings) take the packed path: its cache holds
// the four groups after one batch.
func TestGroupTablePackedQ1(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	str := func(vs ...string) arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
	rf, ls := str("N", "R", "A", "N", "N", "A"), str("O", "F", "F", "F", "O", "F")
	defer rf.Release()
	defer ls.Release()
	g := newGroupTable(mem, []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String})
	defer g.release()
	ids, err := g.assign([]arrow.Array{rf, ls}, 6, nil)
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1, 2, 3, 0, 2}, ids)
	require.False(t, g.packed.off)
	require.Equal(t, 4, g.packed.n)
	for _, a := range g.finish() {
		a.Release()
	}
}
