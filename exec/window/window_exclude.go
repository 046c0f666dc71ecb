package window

// FrameExclude is a frame's EXCLUDE clause: which rows around the current
// one leave its frame (PostgreSQL's FRAMEOPTION_EXCLUDE_* bits).
type FrameExclude uint8

const (
	// ExcludeNoOthers is the default: the frame as its bounds say.
	ExcludeNoOthers FrameExclude = iota
	// ExcludeCurrentRow leaves out the current row.
	ExcludeCurrentRow
	// ExcludeGroup leaves out the current row and its peers.
	ExcludeGroup
	// ExcludeTies leaves out the current row's peers but not the row.
	ExcludeTies
)

func (x FrameExclude) String() string {
	switch x {
	case ExcludeCurrentRow:
		return "CURRENT ROW"
	case ExcludeGroup:
		return "GROUP"
	case ExcludeTies:
		return "TIES"
	}
	return "NO OTHERS"
}

// span is the rows [s, e) of a partition.
type span struct{ s, e int }

func (sp span) len() int { return sp.e - sp.s }

// spans is row i's frame as disjoint non-empty runs of rows in the
// partition's order: one run [start, end) without exclusion (none when
// the frame is empty); with it, the rows of that run before the excluded
// ones, the current row (EXCLUDE TIES, if the frame holds it) and the
// rows after them: at most three. The excluded rows are the current row,
// or its peer group [gstart[g], gstart[g+1]) (peers by the ORDER BY keys,
// every row with none), which is what PostgreSQL's row_is_in_frame
// (nodeWindowAgg.c) tests row by row; here the runs come from the bounds
// in O(1), so each function combines at most three runs of its prefix
// totals or segment tree instead of rescanning the frame.
func (f *frameBounds) spans(i int, buf *[3]span) []span {
	out := buf[:0]
	s, e := f.start[i], f.end[i]
	if f.exclude == ExcludeNoOthers {
		if s < e {
			out = append(out, span{s, e})
		}
		return out
	}
	a, b := i, i+1
	if f.exclude != ExcludeCurrentRow {
		g := f.grp[i]
		a, b = f.gstart[g], f.gstart[g+1]
	}
	if lo, hi := s, min(e, a); lo < hi {
		out = append(out, span{lo, hi})
	}
	if f.exclude == ExcludeTies && s <= i && i < e {
		out = append(out, span{i, i + 1})
	}
	if lo, hi := max(s, b), e; lo < hi {
		out = append(out, span{lo, hi})
	}
	return out
}

// rowsIn is the number of rows in the runs.
func rowsIn(sps []span) int {
	n := 0
	for _, sp := range sps {
		n += sp.len()
	}
	return n
}

// nthRow is the k-th row (from 0) of the runs, -1 past their end.
func nthRow(sps []span, k int) int {
	for _, sp := range sps {
		if k < sp.len() {
			return sp.s + k
		}
		k -= sp.len()
	}
	return -1
}

// treeOver combines a segment tree's runs in order.
func treeOver[T any](st *segTree[T], sps []span) T {
	v := st.id
	for _, sp := range sps {
		v = st.combine(v, st.query(sp.s, sp.e))
	}
	return v
}
