// Package priority lets short statements run ahead of heavy ones on a
// busy server: the CPU counterpart of the memory budget (package
// memlimit's shared pools).
//
// Why: on a machine of two cores, the server admits a few heavy
// statements at a time (sorts, aggregations and joins over millions of
// rows) and each keeps a core busy for seconds. Go's scheduler gives
// every runnable goroutine its turn, but only in slices of up to 10 ms
// (sysmon's preemption), and a `SELECT 1` is a chain of goroutine
// hand-offs (the connection's reader, the call's handler, the cgo parser
// returning from its call, the writer) each of which waits for a busy P
// to come free. Measured under 32 heavy clients: `SELECT 1` took 130 ms
// at the median while using well under a millisecond of CPU.
//
// A Gate is one server's priority: light work (a Ticket, from Light)
// and heavy statements (a Heavy each) that pass the gate at their batch
// boundaries:
//
//	t := gate.Light()   // a call that is not (yet) known to be heavy
//	defer t.Done()
//
//	h := gate.Heavy()   // a heavy statement's operators, between batches:
//	if err := h.Pass(ctx); err != nil { ... }
//
// While any ticket is out, Pass parks the heavy goroutine until none is,
// so the light work finds idle Ps and runs at once; with no ticket out,
// Pass is one atomic load. Bounds keep heavy statements from starving:
// a ticket stops counting after the gate's MaxLight (a long or abandoned
// light statement), and a goroutine parked for MaxPark runs on for as
// long again before it parks anew (light work that never stops gets
// half the time, not all of it).
//
// Parking is never a wait on other heavy work, only on the clock and on
// light tickets, so it cannot deadlock the statements that park, whatever
// they wait on among themselves. A nil *Heavy passes at once: statements
// not run under a gate need no special case.
package priority
