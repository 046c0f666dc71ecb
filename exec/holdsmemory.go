package exec

// HoldsMemory reports whether a plan has an operator whose state grows
// with its input (a sort's buffer, a hash aggregation's groups, a join's
// build side, a set operation's or a shared subplan's rows): the plans a
// server admits against its memory budget as heavy. Every other plan
// streams, its memory bounded by the batch size.
func HoldsMemory(n Node) bool {
	switch n.(type) {
	case *SortExec, *HashAggregateExec, *HashJoinExec, *NestedLoopJoinExec, *SetOpExec, *SharedExec:
		return true
	}
	for _, c := range n.Children() {
		if HoldsMemory(c) {
			return true
		}
	}
	return false
}
