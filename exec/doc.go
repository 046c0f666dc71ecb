// Package exec holds the engine core of stablerow: immutable physical plan
// nodes (Node) that produce pull-based Arrow streams (Stream).
//
// Usage:
//
//	vals, _ := exec.NewValuesExec(schema, batches)
//	lim := exec.NewLimitExec(vals, 0, 10)
//	s, _ := lim.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 1024})
//	out, err := exec.Collect(ctx, s) // caller releases every batch in out
//	fmt.Println(exec.Explain(lim, true))
package exec
