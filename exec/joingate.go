package exec

import "context"

// A semi or anti join with no condition at all (no keys, no residual)
// keeps every left row or none, as its right input has a row or not: it
// is the gate an uncorrelated EXISTS or NOT EXISTS of a WHERE becomes,
// PostgreSQL's One-Time Filter over an InitPlan (create_gating_plan). That
// filter is evaluated once, before its input is read: the subquery runs
// over an empty outer query too (so its error raises), and when the gate
// is closed the outer input is never read (so a raising row of it raises
// nothing). The join therefore builds first, unlike the lazy build of
// every other join (joinStream), and a closed gate finishes without
// executing its left input:
//
//	start ──► build the right input ──► closed (semi: no right row;
//	             │                       anti: one) ──► finish
//	             ▼ open
//	          pull the first left batch ──► probe, as any join
//
// The planner reads only the first row of such a subquery (a Fetch of
// one row under the join: optimize.Decorrelate), as the InitPlan does.

// gate: the join is a condition-free semi or anti join.
func (j *joinCore) gate() bool {
	return len(j.lkeys) == 0 && j.residual == nil && (j.typ == JoinSemi || j.typ == JoinAnti)
}

// startGate is start for a gate: build, then read the left input only
// where the gate is open.
func (s *joinStream) startGate(ctx context.Context) error {
	if err := s.doBuild(ctx); err != nil {
		return err
	}
	if (s.nbuild == 0) == (s.j.typ == JoinSemi) {
		s.state = jsFinish
		return nil
	}
	first, err := s.firstLeft(ctx)
	if err != nil {
		return err
	}
	s.probeFrom(first)
	return nil
}
