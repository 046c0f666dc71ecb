// Package exectest holds test helpers for exec operators: a leak-checking
// allocator, batch builders from Go values, and a variation harness that
// reruns an operator case over re-chunked and offset-sliced inputs.
//
//	exectest.Run(t, exectest.Case{
//		Inputs:  []exectest.Input{{Schema: s, Rows: rows}},
//		Build:   func(in []exec.Node) (exec.Node, error) { return exec.NewLimitExec(in[0], 1, 2), nil },
//		Want:    want,
//		Ordered: true,
//	})
package exectest
