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
