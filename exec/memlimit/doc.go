// Package memlimit is the per-query memory pool: the one owner of "how much
// memory may this statement hold".
//
// Arrow allocators can refuse memory only by panicking, and a panic in an
// operator's goroutine (the index probe runs several) would take the whole
// process down. So the limit is not enforced inside the allocator. Instead,
// as in DataFusion's MemoryPool/MemoryReservation model, an operator whose
// state grows with its input (a sort's buffered batches, a hash
// aggregation's groups, a hash join's build side) holds a Reservation and
// asks it for memory before it buffers more:
//
//	res := pool.NewReservation("SortExec")
//	defer res.Free()
//	if err := res.TryGrow(n); err != nil { // errors.Is(err, ErrResourceExhausted)
//		// spill what is buffered, Shrink, try again; or fail with err
//	}
//
// TryGrow fails with ErrResourceExhausted (kind errkind.OutOfRange: a
// value, the memory a statement needs, does not fit its bound) when the
// pool's reservations would pass the limit; the operator then spills or
// returns the error, never panics.
//
// Allocations outside reservations (batches in flight between operators,
// small per-batch scratch) are bounded by the batch size, not by the
// result size. Allocator wraps the statement's allocator so they are
// counted too: Allocated and PeakAllocated report them (EXPLAIN ANALYZE,
// tests), but only reservations are refused.
//
// Shared budgets (shared.go): NewBudget is a pool many statements share
// (the Flight SQL server's -server-memory). A statement admitted to it
// reserves a grant (TryReserve) and gets a Child pool: its reservations
// up to the grant cost the budget nothing more, past it they are reserved
// in the budget too, so a TryGrow is refused when either the statement's
// own limit or the shared budget is spent, and the operator spills or
// fails as under its own limit. Close gives the grant back. Bytes
// allocated through a child's Allocator are counted in the budget too.
//
// A nil *Pool is the unlimited pool: every method works and nothing is
// refused, so operators need no special case when no limit is set.
package memlimit
