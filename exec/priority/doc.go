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
// Parks alone leave a gap: a call takes its ticket only once its handler
// runs, and the hops before (the netpoll wake-up, gRPC's reader, the
// handler's start) and between a query's two calls wait for a P behind
// every runnable heavy goroutine, a 10 ms slice each. So a gate may also
// bound the heavy goroutines that run at once (Options.Running, the
// cores; lease.go): each runs while it holds a lease, passed on in turn
// at Pass after a quantum, and `stablerow serve` raises GOMAXPROCS above
// the cores (-light-procs), so a P is idle for light work at every hop
// and the OS shares the cores with it at once. A goroutine gets its own lease with
// WithRunner (exec's partition workers); the others of a statement share
// the statement's.
//
// Parking is never a wait on other heavy work, only on the clock and on
// light tickets, so it cannot deadlock the statements that park, whatever
// they wait on among themselves. Nor is a wait for a lease: a lease held
// past its quantum while others wait is revoked, so a goroutine that
// blocks while it holds one (on its consumer, on a lock) holds nobody
// back for longer than that. A nil *Heavy passes at once: statements
// not run under a gate need no special case.
package priority
