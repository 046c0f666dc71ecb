package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// stringAggAcc is string_agg(x, delimiter) as PostgreSQL's
// string_agg_transfn builds it: the non-NULL values in input order, each
// but the first preceded by its own row's delimiter (none when the
// delimiter is NULL); NULL for a group with no value.
type stringAggAcc struct {
	vals [][]byte
	set  []bool
}

func (s *stringAggAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.vals, s.set = growTo(s.vals, ngroups), growTo(s.set, ngroups)
	x, d := args[0].(*array.String), args[1].(*array.String)
	for r, g := range groups {
		if g == skipRow || x.IsNull(r) {
			continue
		}
		if s.set[g] && d.IsValid(r) {
			s.vals[g] = append(s.vals[g], d.Value(r)...)
		}
		s.vals[g], s.set[g] = append(s.vals[g], x.Value(r)...), true
	}
	return nil
}

func (s *stringAggAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.vals, s.set = growTo(s.vals, n), growTo(s.set, n)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for g := range n {
		if s.set[g] {
			b.BinaryBuilder.Append(s.vals[g])
		} else {
			b.AppendNull()
		}
	}
	s.vals, s.set = dropFront(s.vals, n), dropFront(s.set, n)
	return b.NewArray(), nil
}
