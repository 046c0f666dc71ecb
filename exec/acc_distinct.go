package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// distinctAcc is an aggregate over DISTINCT arguments (count(DISTINCT x),
// sum(DISTINCT x), ...): a row reaches the inner accumulator only the first
// time its argument values occur in its group. Keys are the group-key
// encoding, so NULL, NaN and -0 compare as GROUP BY compares them; NULL
// arguments pass on and the inner accumulator skips them, as every
// aggregate but count(*) does.
type distinctAcc struct {
	inner  accumulator
	seen   []map[string]struct{}
	groups []uint32
	buf    []byte
}

func (d *distinctAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	d.seen = growTo(d.seen, ngroups)
	d.groups = append(d.groups[:0], groups...)
	for r, g := range d.groups {
		if g == skipRow {
			continue
		}
		d.buf = encodeGroupKey(d.buf[:0], args, r)
		set := d.seen[g]
		if set == nil {
			set = map[string]struct{}{}
			d.seen[g] = set
		}
		if _, dup := set[string(d.buf)]; dup {
			d.groups[r] = skipRow
			continue
		}
		set[string(d.buf)] = struct{}{}
	}
	return d.inner.update(args, d.groups, ngroups)
}

func (d *distinctAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	d.seen = dropFront(growTo(d.seen, n), n)
	return d.inner.emit(mem, n)
}
