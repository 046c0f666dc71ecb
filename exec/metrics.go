package exec

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Metrics are shared by all executions of a node; safe for concurrent use.
type Metrics struct {
	OutputRows     atomic.Int64
	OutputBatches  atomic.Int64
	ElapsedCompute atomic.Int64 // ns

	mu    sync.Mutex
	extra map[string]*atomic.Int64
}

// counter returns the named extra counter, creating it at zero.
func (m *Metrics) counter(name string) *atomic.Int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.extra == nil {
		m.extra = map[string]*atomic.Int64{}
	}
	c, ok := m.extra[name]
	if !ok {
		c = new(atomic.Int64)
		m.extra[name] = c
	}
	return c
}

// Add increments the named extra counter by n.
func (m *Metrics) Add(name string, n int64) { m.counter(name).Add(n) }

// Max raises the named counter to v if v is larger (a high-water mark).
func (m *Metrics) Max(name string, v int64) {
	c := m.counter(name)
	for {
		old := c.Load()
		if v <= old || c.CompareAndSwap(old, v) {
			return
		}
	}
}

// Snapshot returns all counters by name.
func (m *Metrics) Snapshot() map[string]int64 {
	s := map[string]int64{
		"output_rows":     m.OutputRows.Load(),
		"output_batches":  m.OutputBatches.Load(),
		"elapsed_compute": m.ElapsedCompute.Load(),
	}
	m.mu.Lock()
	for k, v := range m.extra {
		s[k] = v.Load()
	}
	m.mu.Unlock()
	return s
}

func (m *Metrics) String() string {
	s := m.Snapshot()
	keys := make([]string, 0, len(s))
	for k := range s {
		if k != "output_rows" && k != "output_batches" && k != "elapsed_compute" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("output_rows=" + strconv.FormatInt(s["output_rows"], 10))
	b.WriteString(", output_batches=" + strconv.FormatInt(s["output_batches"], 10))
	b.WriteString(", elapsed_compute=" + time.Duration(s["elapsed_compute"]).String())
	for _, k := range keys {
		b.WriteString(", " + k + "=" + strconv.FormatInt(s[k], 10))
	}
	return b.String()
}

// Emit is the single exit helper: every batch a stream returns passes
// here, counting its rows and the compute time since start.
func (m *Metrics) Emit(b arrow.RecordBatch, start time.Time) (arrow.RecordBatch, error) {
	m.ElapsedCompute.Add(int64(time.Since(start)))
	m.OutputRows.Add(b.NumRows())
	m.OutputBatches.Add(1)
	return b, nil
}

// Since adds the compute time since start.
func (m *Metrics) Since(start time.Time) { m.ElapsedCompute.Add(int64(time.Since(start))) }
