package server

import (
	"encoding/json"
	"math"
	"runtime"
	"runtime/metrics"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// MemoryStatusAction is the Flight action (DoAction type) that returns
// the server's MemoryStatus as JSON: what an operator or a test reads to
// see the budget at work.
const MemoryStatusAction = "stablerow.memory"

// service is the Flight SQL service with the server's own actions added.
type service struct {
	flight.FlightServer
	s *Server
}

// DoAction answers MemoryStatusAction and passes every other action to
// Flight SQL.
func (f *service) DoAction(a *flight.Action, st flight.FlightService_DoActionServer) error {
	if a.GetType() != MemoryStatusAction {
		return f.FlightServer.DoAction(a, st)
	}
	body, err := json.Marshal(f.s.MemoryStatus())
	if err != nil {
		return err
	}
	return st.Send(&flight.Result{Body: body})
}

// MemoryStatus is the server's memory accounting now.
func (s *Server) MemoryStatus() MemoryStatus {
	m := s.budget.status(s.heap)
	m.Uploads = s.uploadBytes.Load()
	m.UploadSpilled = s.uploadSpilled.Load()
	sm := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gomemlimit:bytes"},
		{Name: "/sched/latencies:seconds"}, {Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(sm)
	if sm[0].Value.Kind() == metrics.KindUint64 {
		m.HeapLive = int64(sm[0].Value.Uint64())
	}
	if sm[1].Value.Kind() == metrics.KindUint64 {
		m.GoMemLimit = int64(min(sm[1].Value.Uint64(), 1<<62))
	}
	m.SchedLatencyP50, m.SchedLatencyP99 = quantile(sm[2], 0.50), quantile(sm[2], 0.99)
	m.GCPauseP99, m.GCPauseMax = quantile(sm[3], 0.99), quantile(sm[3], 1)
	m.GOMAXPROCS = runtime.GOMAXPROCS(0)
	g := s.gate.Stats()
	m.LightCalls, m.HeavyParks, m.HeavyParkedS = g.Lights, g.Parks, g.Time.Seconds()
	m.LeaseWaits, m.LeaseWaitS, m.LeaseRevokes = g.LeaseWaits, g.LeaseWait.Seconds(), g.LeaseRevokes
	s.mu.Lock()
	m.Prepared = len(s.prepared)
	s.mu.Unlock()
	return m
}

// quantile is the upper bound of the bucket that holds quantile q of a
// runtime/metrics histogram (0 for an empty one or another kind; a
// bucket without an upper bound reads as its lower bound).
func quantile(s metrics.Sample, q float64) float64 {
	if s.Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := s.Value.Float64Histogram()
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var acc uint64
	for i, c := range h.Counts {
		acc += c
		if acc >= max(want, 1) {
			if hi := h.Buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return h.Buckets[i]
		}
	}
	return 0
}
