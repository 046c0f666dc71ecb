package access

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table"
)

// evenIndex is a KeyIndex whose answers are valid at even addresses only.
type evenIndex struct{}

func (evenIndex) Probe(context.Context, arrow.Array) (*ProbeResult, error) { return nil, nil }
func (evenIndex) ProbeAll(context.Context, arrow.Array, int) ([]uint64, error) {
	return nil, nil
}
func (evenIndex) Valid(addrs []uint64, ok []bool) {
	for i, a := range addrs {
		ok[i] = a%2 == 0
	}
}
func (evenIndex) Uncovered() []uint32 { return nil }
func (evenIndex) String() string      { return "even" }

// TestResolution: the rules every take shares, on hand-made answers: an
// index answer counts only where Valid; NULL keys and answered keys are
// not the fallback's; one key answered twice at the same address is one
// row, at two addresses ErrNotUnique (from either side); an answer for a
// row the batch does not have is ErrBadAnswer.
func TestResolution(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	kb := array.NewUint64Builder(mem)
	kb.AppendValues([]uint64{10, 11, 12, 13}, []bool{true, true, false, true})
	keys := kb.NewUint64Array()
	kb.Release()
	defer keys.Release()

	var r Resolution
	r.Reset(keys, evenIndex{})
	p := pairs{}
	p.add(0, 2) // valid
	p.add(1, 3) // not valid: key 11 goes to the fallback
	p.add(0, 2) // the same row again
	pos, addr := p.arrays()
	require.NoError(t, r.Indexed(pos, addr))
	pos.Release()
	addr.Release()
	require.Equal(t, []bool{true, false, false, false}, r.Found())
	require.Equal(t, []int32{1, 3}, r.Unresolved(), "NULL key 2 is nobody's")

	f := pairs{}
	f.add(1, 5)
	pos, addr = f.arrays()
	require.NoError(t, r.Fallback(pos, addr))
	pos.Release()
	addr.Release()
	require.Equal(t, []bool{true, true, false, false}, r.Found())
	require.Equal(t, uint64(5), r.Addrs()[1])
	require.Equal(t, 2, r.Hits())

	f = pairs{}
	f.add(1, 7)
	pos, addr = f.arrays()
	err := r.Fallback(pos, addr)
	pos.Release()
	addr.Release()
	require.True(t, errors.Is(err, ErrNotUnique), "%v", err)
	require.ErrorContains(t, err, "key 11 has more than one live row in unindexed fragments")

	p = pairs{}
	p.add(0, 4)
	pos, addr = p.arrays()
	err = r.Indexed(pos, addr)
	pos.Release()
	addr.Release()
	require.ErrorContains(t, err, "key 10 has more than one live row in index even")

	p = pairs{}
	p.add(9, 8)
	pos, addr = p.arrays()
	err = r.Indexed(pos, addr)
	pos.Release()
	addr.Release()
	require.ErrorIs(t, err, ErrBadAnswer)

	r.Reset(keys, evenIndex{})
	require.Equal(t, []bool{false, false, false, false}, r.Found(), "Reset forgets the last batch")
}

// TestResolveIDsMatchesSequences: ResolveIDs answers every id as the
// table's own row id sequences do (Table.Locate, the oracle), with and
// without a _rowid index, where the fallback must skip rows deleted in
// fragments the index does not cover and the index's answers for deleted
// or updated-away rows must not count; ids past the table and repeated
// ids included.
func TestResolveIDsMatchesSequences(t *testing.T) {
	ctx := context.Background()
	for _, indexed := range []bool{false, true} {
		tb, l := takeFixture(t, indexed)
		tb = appendRows(t, tb, 730, 120) // two more uncovered fragments
		var err error
		tb, _, err = tb.DeleteRowIDs(ctx, []uint64{731, 800, 845, 5, 399})
		require.NoError(t, err)
		// Updated rows move to a new fragment, keeping their ids.
		mem := arrowtest.Mem(t)
		us := arrow.NewSchema([]arrow.Field{{Name: table.RowID, Type: arrow.PrimitiveTypes.Uint64}, {Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
		ub, err := arrowtest.Batch(mem, us, [][]any{{uint64(97), int64(-1)}, {uint64(600), int64(-2)}, {uint64(740), int64(-3)}})
		require.NoError(t, err)
		tb, _, err = tb.UpdateBatches(ctx, []arrow.RecordBatch{ub}, mem)
		ub.Release()
		require.NoError(t, err)
		var ids []uint64
		for id := range uint64(900) {
			ids = append(ids, id)
		}
		ids = append(ids, 845, 10, 10, 1<<40)
		addrs, found, err := l.locate(ctx, tb, ids)
		require.NoError(t, err)
		wantAddrs, wantFound := tb.Locate(ids)
		for i, id := range ids {
			require.Equal(t, wantFound[i], found[i], "indexed %v id %d", indexed, id)
			if found[i] {
				require.Equal(t, wantAddrs[i], addrs[i], "indexed %v id %d", indexed, id)
			}
		}
	}
}
