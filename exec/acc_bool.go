package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// boolAcc is bool_and(x) (every non-NULL x true) or bool_or(x) (some x
// true); NULLs are skipped, a group with no value gives NULL.
type boolAcc struct {
	or   bool
	vals []bool
	set  []bool
}

func (b *boolAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	b.vals, b.set = growTo(b.vals, ngroups), growTo(b.set, ngroups)
	x := args[0].(*array.Boolean)
	for r, g := range groups {
		if g == skipRow || x.IsNull(r) {
			continue
		}
		v := x.Value(r)
		switch {
		case !b.set[g]:
			b.vals[g], b.set[g] = v, true
		case b.or:
			b.vals[g] = b.vals[g] || v
		default:
			b.vals[g] = b.vals[g] && v
		}
	}
	return nil
}

func (b *boolAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	b.vals, b.set = growTo(b.vals, n), growTo(b.set, n)
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	bb.AppendValues(b.vals[:n], b.set[:n])
	b.vals, b.set = dropFront(b.vals, n), dropFront(b.set, n)
	return bb.NewArray(), nil
}
