package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// countAcc is count(*) (every row) and count(x) (rows where x is not
// NULL). A group's count is never NULL: 0 for a group with no rows, which
// only the grouping-less aggregation of an empty input has.
type countAcc struct {
	star   bool
	counts []int64
}

func (c *countAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	c.counts = growTo(c.counts, ngroups)
	if c.star {
		for _, g := range groups {
			if g != skipRow {
				c.counts[g]++
			}
		}
		return nil
	}
	x := args[0]
	for r, g := range groups {
		if g != skipRow && x.IsValid(r) {
			c.counts[g]++
		}
	}
	return nil
}

func (c *countAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	c.counts = growTo(c.counts, n)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(c.counts[:n], nil)
	c.counts = dropFront(c.counts, n)
	return b.NewArray(), nil
}
