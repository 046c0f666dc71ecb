package server

import (
	"encoding/json"
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
	sm := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(sm)
	if sm[0].Value.Kind() == metrics.KindUint64 {
		m.HeapLive = int64(sm[0].Value.Uint64())
	}
	if sm[1].Value.Kind() == metrics.KindUint64 {
		m.GoMemLimit = int64(min(sm[1].Value.Uint64(), 1<<62))
	}
	s.mu.Lock()
	m.Prepared = len(s.prepared)
	s.mu.Unlock()
	return m
}
