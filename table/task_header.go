package table

// The headers every plan / task / result encoding starts with (compaction
// and recluster here, index build in access), and the checks on them that
// do not depend on the kind of work: whether a task or a result belongs to
// a plan, whether a snapshot can commit a plan, and the sorting of results
// to their tasks. The structs are embedded without a JSON tag, so their
// fields stay at the top level of each encoding, where they always were.

// PlanHeader names a plan and the table version it read.
type PlanHeader struct {
	Format  int    `json:"format"`
	ID      string `json:"id"`
	Version uint64 `json:"version"`
}

// TaskHeader names a task: its plan, its position there and the version
// it reads.
type TaskHeader struct {
	Format  int    `json:"format"`
	Plan    string `json:"plan"`
	Seq     int    `json:"seq"`
	Version uint64 `json:"version"`
}

// ResultHeader names the task a result is for.
type ResultHeader struct {
	Format int    `json:"format"`
	Plan   string `json:"plan"`
	Seq    int    `json:"seq"`
}

// Task is the header of task seq of p.
func (p *PlanHeader) Task(seq int) TaskHeader {
	return TaskHeader{Format: p.Format, Plan: p.ID, Seq: seq, Version: p.Version}
}

// Owns reports whether k is task seq of p.
func (p *PlanHeader) Owns(k *TaskHeader, seq int) bool {
	return k.Plan == p.ID && k.Seq == seq && k.Version == p.Version
}

// CheckSnapshot refuses (ErrTask) to commit p on snapshot t when p read a
// later version than t.
func (p *PlanHeader) CheckSnapshot(t *Table) error {
	if p.Version > t.Version() {
		return errorf(ErrTask, "plan reads version %d, newer than this snapshot (%d)", p.Version, t.Version())
	}
	return nil
}

// Result is the header of a result of task k.
func (k *TaskHeader) Result() ResultHeader {
	return ResultHeader{Format: k.Format, Plan: k.Plan, Seq: k.Seq}
}

// Header gives ResultsByTask the header of any result type embedding it.
func (r *ResultHeader) Header() *ResultHeader { return r }

// ResultsByTask sorts results to the tasks of plan p, which has n: the
// i-th entry is the first result for task i (nil when there is none; a
// retried task's later results are ignored, their files orphans). Nil
// results are skipped; one that validate refuses, or that names another
// plan or a task p does not have, fails with ErrTask.
func ResultsByTask[R interface {
	comparable
	Header() *ResultHeader
}](p *PlanHeader, n int, results []R, validate func(R) error) ([]R, error) {
	var none R
	byTask := make([]R, n)
	for _, r := range results {
		if r == none {
			continue
		}
		if err := validate(r); err != nil {
			return nil, err
		}
		h := r.Header()
		if h.Plan != p.ID || h.Seq < 0 || h.Seq >= n {
			return nil, errorf(ErrTask, "result for task %d of plan %q does not belong to plan %q", h.Seq, h.Plan, p.ID)
		}
		if byTask[h.Seq] == none {
			byTask[h.Seq] = r
		}
	}
	return byTask, nil
}

// AllResults refuses (ErrTask) results sorted by ResultsByTask that lack
// one for some task: what a plan that commits whole (a recluster, an
// index build) checks.
func AllResults[R comparable](p *PlanHeader, byTask []R) error {
	var none R
	for i, r := range byTask {
		if r == none {
			return errorf(ErrTask, "plan %q: no result for task %d (it commits whole)", p.ID, i)
		}
	}
	return nil
}
