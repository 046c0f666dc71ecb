// Package exectest holds test helpers for exec operators: a variation
// harness that reruns an operator case over re-chunked and offset-sliced
// inputs (run.go: Run, Case, Input), an audit of EXPLAIN ANALYZE texts
// that no node reports rows it did not emit and every kind of node is
// seen executing (honesty.go: PlanAudit), and, for the tests that import
// only it, internal/arrowtest's leak-checking allocator and batch
// builders under the same names (arrow.go: Mem, Batch, Rows).
//
//	exectest.Run(t, exectest.Case{
//		Inputs:  []exectest.Input{{Schema: s, Rows: rows}},
//		Build:   func(in []exec.Node) (exec.Node, error) { return exec.NewLimitExec(in[0], 1, 2), nil },
//		Want:    want,
//		Ordered: true,
//	})
package exectest
