package table

import (
	"slices"

	"github.com/stablerow/stablerow/rowmap"
)

// Validation and strict JSON decoding of recluster plans, tasks and
// results (format TaskFormat, as for compaction).

// DecodeReclusterPlan, DecodeReclusterTask and DecodeReclusterResult read
// the JSON encodings (encoding/json of the types), refusing unknown
// fields, other format versions and inconsistent content with ErrTask.
func DecodeReclusterPlan(b []byte) (*ReclusterPlan, error) {
	var p ReclusterPlan
	if err := decodeStrict(b, &p); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// DecodeReclusterTask: see DecodeReclusterPlan.
func DecodeReclusterTask(b []byte) (*ReclusterTask, error) {
	var k ReclusterTask
	if err := decodeStrict(b, &k); err != nil {
		return nil, err
	}
	if err := k.validate(); err != nil {
		return nil, err
	}
	return &k, nil
}

// DecodeReclusterResult: see DecodeReclusterPlan.
func DecodeReclusterResult(b []byte) (*ReclusterResult, error) {
	var r ReclusterResult
	if err := decodeStrict(b, &r); err != nil {
		return nil, err
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

func (p *ReclusterPlan) validate() error {
	if p == nil || p.Format != TaskFormat {
		return errorf(ErrTask, "recluster plan format is not %d", TaskFormat)
	}
	if p.ID == "" || p.Key == "" {
		return errorf(ErrTask, "recluster plan without id or key")
	}
	live, err := validSources(p.Sources)
	if err != nil {
		return err
	}
	if err := validRanges(p.Bounds, nil, p.Rows, 0); err != nil {
		return err
	}
	var rows uint64
	for _, n := range p.Rows {
		rows += n
	}
	if rows != live {
		return errorf(ErrTask, "recluster plan: %d rows in destinations, %d live in sources", rows, live)
	}
	next := 0
	for i := range p.Tasks {
		k := &p.Tasks[i]
		if err := k.validate(); err != nil {
			return err
		}
		if k.Plan != p.ID || k.Seq != i || k.Version != p.Version || k.Key != p.Key || k.First != next {
			return errorf(ErrTask, "recluster task %d does not belong to plan %q", i, p.ID)
		}
		hi := next + len(k.Bounds)
		if hi > len(p.Bounds) || !slices.EqualFunc(k.Bounds, p.Bounds[next:hi], equalBounds) ||
			!slices.Equal(k.Rows, p.Rows[next:hi]) || !slices.Equal(k.Sources, p.Sources) {
			return errorf(ErrTask, "recluster task %d: destinations or sources differ from the plan's", i)
		}
		if (hi == len(p.Bounds)) != (k.Upper == nil) || (k.Upper != nil && !equalBounds(*k.Upper, p.Bounds[hi])) {
			return errorf(ErrTask, "recluster task %d: upper bound differs from the plan's", i)
		}
		next = hi
	}
	if next != len(p.Bounds) {
		return errorf(ErrTask, "recluster plan: tasks cover %d of %d destinations", next, len(p.Bounds))
	}
	return nil
}

func (k *ReclusterTask) validate() error {
	if k == nil || k.Format != TaskFormat {
		return errorf(ErrTask, "recluster task format is not %d", TaskFormat)
	}
	if k.Plan == "" || k.Key == "" || k.Seq < 0 {
		return errorf(ErrTask, "recluster task %d without plan or key", k.Seq)
	}
	live, err := validSources(k.Sources)
	if err != nil {
		return err
	}
	if len(k.Sources) == 0 || len(k.Bounds) == 0 {
		return errorf(ErrTask, "recluster task %d: no sources or no destinations", k.Seq)
	}
	if err := validRanges(k.Bounds, k.Upper, k.Rows, k.First); err != nil {
		return err
	}
	var rows uint64
	for _, n := range k.Rows {
		rows += n
	}
	if rows > live {
		return errorf(ErrTask, "recluster task %d: %d rows from %d live source rows", k.Seq, rows, live)
	}
	return nil
}

func (r *ReclusterResult) validate() error {
	if r == nil || r.Format != TaskFormat {
		return errorf(ErrTask, "recluster result format is not %d", TaskFormat)
	}
	if r.Plan == "" || r.Seq < 0 || len(r.Files) == 0 {
		return errorf(ErrTask, "recluster result %d without plan or files", r.Seq)
	}
	for _, f := range r.Files {
		if f.Rows == 0 || f.DataFile == "" || f.BatchRows == 0 {
			return errorf(ErrTask, "recluster result %d: empty or unnamed file", r.Seq)
		}
	}
	return nil
}

// validSources checks sources are distinct fragments in id order and
// returns their live rows.
func validSources(srcs []TaskSource) (uint64, error) {
	var live uint64
	for i, s := range srcs {
		if s.LiveRows > s.PhysicalRows || s.DataFile == "" {
			return 0, errorf(ErrTask, "source fragment %d: no data file or more live than physical rows", s.Fragment)
		}
		if i > 0 && s.Fragment <= srcs[i-1].Fragment {
			return 0, errorf(ErrTask, "sources out of order")
		}
		live += s.LiveRows
	}
	return live, nil
}

// validRanges checks destinations first .. first+len(bounds)-1: canonical
// bounds in strictly increasing order below upper, a row count of at
// least one each, within the rowmap's limit.
func validRanges(bounds []KeyBound, upper *KeyBound, rows []uint64, first int) error {
	if first < 0 || first+len(bounds) > rowmap.MaxDestinations || len(rows) != len(bounds) {
		return errorf(ErrTask, "destinations %d+%d (%d row counts) out of range", first, len(bounds), len(rows))
	}
	for i, b := range bounds {
		if !b.canonical() || rows[i] == 0 || rows[i] > maxFragmentRows {
			return errorf(ErrTask, "destination %d: malformed key bound or row count %d", first+i, rows[i])
		}
	}
	if upper != nil && !upper.canonical() {
		return errorf(ErrTask, "malformed upper key bound")
	}
	if !strictlyIncreasing(bounds, upper) {
		return errorf(ErrTask, "key bounds not in increasing order")
	}
	return nil
}

// canonical: a NULL carries no value, and empty bytes are absent (what
// encoding/json writes back).
func (b KeyBound) canonical() bool {
	if b.Null {
		return b.U == 0 && b.B == nil
	}
	return b.B == nil || len(b.B) > 0
}

func equalBounds(a, b KeyBound) bool {
	return a.Null == b.Null && a.U == b.U && string(a.B) == string(b.B)
}
