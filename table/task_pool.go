package table

import (
	"context"
	"sync"
)

// RunTasks calls run(ctx, i) for i in [0, n) on at most workers
// goroutines. The first failure cancels the context the others see and
// stops handing out tasks; it is the error returned (or the context's,
// when the caller's was cancelled).
func RunTasks(ctx context.Context, n, workers int, run func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(max(workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := run(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}

// runLocal is the single-process driver of a rewrite plan (Compact,
// Recluster): it executes tasks on at most workers goroutines, commits
// their results, and deletes the files they wrote when a task failed or
// the commit definitely did not happen (best effort: a leftover is an
// orphan for Cleanup).
func runLocal[K any, R interface{ written() []ResultFile }](ctx context.Context, t *Table, tasks []K, workers int,
	exec func(context.Context, *K) (R, error), commit func([]R) (*Table, error)) (*Table, error) {
	results := make([]R, len(tasks))
	err := RunTasks(ctx, len(tasks), workers, func(ctx context.Context, i int) error {
		r, err := exec(ctx, &tasks[i])
		if err == nil {
			results[i] = r
		}
		return err
	})
	if err == nil {
		var nt *Table
		if nt, err = commit(results); err == nil {
			return nt, nil
		}
		if !definitelyNotCommitted(err) {
			return nil, err // it may have landed: its files may be named
		}
	}
	for _, r := range results {
		for _, f := range r.written() {
			_ = t.st.Delete(ctx, f.DataFile)
		}
	}
	return nil, err
}
