package window

// segTree is a segment tree over a partition's rows for an aggregate
// with no inverse transition (float8_accum, bit_and, bit_or): any frame
// [s, e) combines O(log n) nodes, in row order (the combine need not
// commute), instead of re-adding the frame's rows. It is the bottom-up
// form: leaves at t[n+i], node k the combination of 2k and 2k+1, 2n
// values in all.
type segTree[T any] struct {
	n       int
	t       []T
	id      T // the empty frame's state
	combine func(a, b T) T
}

// segTreeNodes is the nodes per row a segTree holds (its reservation).
const segTreeNodes = 2

func newSegTree[T any](leaves []T, id T, combine func(a, b T) T) *segTree[T] {
	n := len(leaves)
	st := &segTree[T]{n: n, t: make([]T, 2*n), id: id, combine: combine}
	copy(st.t[n:], leaves)
	for k := n - 1; k > 0; k-- {
		st.t[k] = combine(st.t[2*k], st.t[2*k+1])
	}
	return st
}

// query is the combination of rows [s, e) in order (id when empty).
func (st *segTree[T]) query(s, e int) T {
	l, r := st.id, st.id
	for s, e = s+st.n, e+st.n; s < e; s, e = s>>1, e>>1 {
		if s&1 == 1 {
			l = st.combine(l, st.t[s])
			s++
		}
		if e&1 == 1 {
			e--
			r = st.combine(st.t[e], r)
		}
	}
	return st.combine(l, r)
}
