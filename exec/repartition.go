package exec

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
)

// RepartitionExec redistributes the rows of its input's partitions into n
// output partitions: round-robin (whole batches, for balance) or by a hash
// of key columns (every row with the same key values, NULL included, goes
// to the same partition: the input of a per-partition final aggregation).
//
// One execution runs one producer goroutine per input partition, started
// by the first Next of any output stream. Each output partition has a
// channel of one batch, so memory stays bounded by batch size × (inputs +
// outputs) however large the input is; a producer waits while the
// partition it routes to is full.
//
//	                    ┌─────────────────── producers (one per input) ──────────────┐
//	first Next ──start─▶│ pull a batch ─▶ route: round-robin / hash split ─▶ send     │
//	                    │      ▲                                             │       │
//	                    │      └────────────── sent (or output closed) ◀─────┘       │
//	                    │ EOF: return · error: record, cancel the rest · ctx done    │
//	                    └────────────────────────────────────────────────────────────┘
//	                                      │ last producer returned: close every channel
//	output stream i:  running ── batch from channel i ──▶ caller
//	                     │ channel closed
//	                     ▼
//	                   done: io.EOF, or the first producer error
//
// Closing every output stream cancels the producers, waits for them (each
// closes its input stream) and releases what the channels still hold.
type RepartitionExec struct {
	input   Node
	n       int
	keys    []int // nil: round-robin
	metrics Metrics
}

// NewRepartitionExec distributes input over n partitions, by a hash of
// the columns keys, or round-robin when keys is empty.
func NewRepartitionExec(input Node, n int, keys []int) (*RepartitionExec, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: repartition into %d partitions", physexpr.ErrInvalidArgument, n)
	}
	sc := input.Schema()
	for _, k := range keys {
		if k < 0 || k >= sc.NumFields() {
			return nil, fmt.Errorf("%w: repartition key column %d out of range", physexpr.ErrInvalidArgument, k)
		}
		if !groupKeyOK(sc.Field(k).Type) {
			return nil, fmt.Errorf("%w: cannot hash type %s", physexpr.ErrInvalidArgument, sc.Field(k).Type)
		}
	}
	var ks []int
	if len(keys) > 0 {
		ks = append(ks, keys...)
	}
	return &RepartitionExec{input: input, n: n, keys: ks}, nil
}

func (r *RepartitionExec) Name() string           { return "RepartitionExec" }
func (r *RepartitionExec) Schema() *arrow.Schema  { return r.input.Schema() }
func (r *RepartitionExec) Children() []Node       { return []Node{r.input} }
func (r *RepartitionExec) Properties() Properties { return Properties{} }
func (r *RepartitionExec) Metrics() *Metrics      { return &r.metrics }
func (r *RepartitionExec) OutputPartitions() int  { return r.n }

func (r *RepartitionExec) String() string {
	in := OutputPartitions(r.input)
	if r.keys == nil {
		return fmt.Sprintf("RepartitionExec: partitioning=RoundRobin(%d), input_partitions=%d", r.n, in)
	}
	sc := r.input.Schema()
	ks := make([]string, len(r.keys))
	for i, k := range r.keys {
		ks[i] = fmt.Sprintf("%s@%d", sc.Field(k).Name, k)
	}
	return fmt.Sprintf("RepartitionExec: partitioning=Hash([%s], %d), input_partitions=%d", strings.Join(ks, ", "), r.n, in)
}

// Execute is every output partition merged into one stream.
func (r *RepartitionExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	outs, err := r.ExecutePartitions(ctx, tc)
	if err != nil {
		return nil, err
	}
	// The merge's metrics are this node's: its rows are counted once, by
	// the output streams.
	return &coalesceStream{schema: r.Schema(), m: new(Metrics), ins: outs, tc: tc}, nil
}

func (r *RepartitionExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	ins, err := ExecutePartitions(ctx, r.input, tc)
	if err != nil {
		return nil, err
	}
	sh := &repartShared{n: r, tc: tc, ins: ins, open: r.n}
	sh.chans = make([]chan arrow.RecordBatch, r.n)
	sh.gone = make([]chan struct{}, r.n)
	for i := range sh.chans {
		sh.chans[i] = make(chan arrow.RecordBatch, 1)
		sh.gone[i] = make(chan struct{})
	}
	outs := make([]Stream, r.n)
	for i := range outs {
		outs[i] = &repartStream{sh: sh, i: i}
	}
	return outs, nil
}

// repartShared is one execution's state, shared by its output streams.
type repartShared struct {
	n     *RepartitionExec
	tc    *TaskContext
	ins   []Stream // until started: then the producers own them
	chans []chan arrow.RecordBatch
	gone  []chan struct{} // closed when output i's stream is closed

	mu       sync.Mutex
	started  bool
	w        *workers
	finished chan struct{} // closed when every producer returned and chans are closed
	open     int           // output streams not yet closed
	stopped  bool
}

func (sh *repartShared) start(ctx context.Context) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.started {
		return
	}
	sh.started = true
	sh.w = newWorkers(ctx)
	sh.finished = make(chan struct{})
	for i, in := range sh.ins {
		sh.w.spawn(func(ctx context.Context) error { return sh.produce(ctx, in, i) })
	}
	sh.ins = nil
	go func() {
		sh.w.wg.Wait()
		for _, c := range sh.chans {
			close(c)
		}
		close(sh.finished)
	}()
}

// produce routes the batches of one input partition, closing it at the end.
func (sh *repartShared) produce(ctx context.Context, in Stream, first int) (err error) {
	defer func() {
		if cerr := in.Close(); err == nil {
			err = cerr
		}
	}()
	m := &sh.n.metrics
	rr := first
	var hasher *rowHasher
	if sh.n.keys != nil {
		hasher = newRowHasher(sh.n.keys, sh.n.n)
	}
	for {
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if hasher == nil {
			p := rr % sh.n.n
			rr++
			if err := sh.send(ctx, p, b); err != nil {
				return err
			}
			continue
		}
		start := time.Now()
		parts := hasher.split(b)
		m.Since(start)
		for p, rows := range parts {
			if len(rows) == 0 {
				continue
			}
			var out arrow.RecordBatch
			if len(rows) == int(b.NumRows()) {
				b.Retain()
				out = b
			} else {
				start := time.Now()
				out, err = physexpr.TakeRows(ctx, sh.tc.Allocator(), b, rows)
				m.Since(start)
				if err != nil {
					b.Release()
					return err
				}
			}
			if err := sh.send(ctx, p, out); err != nil {
				b.Release()
				return err
			}
		}
		b.Release()
	}
}

// send hands b to output p; b is released if p's stream is closed or the
// execution is cancelled.
func (sh *repartShared) send(ctx context.Context, p int, b arrow.RecordBatch) error {
	wait := time.Now()
	defer func() { sh.n.metrics.Add("send_wait_ns", int64(time.Since(wait))) }()
	select {
	case sh.chans[p] <- b:
		return nil
	case <-sh.gone[p]:
		b.Release()
		return nil
	case <-ctx.Done():
		b.Release()
		return ctx.Err()
	}
}

// closeOutput marks output i closed; the last one stops the producers and
// releases whatever the channels hold.
func (sh *repartShared) closeOutput(i int) error {
	sh.mu.Lock()
	close(sh.gone[i])
	sh.open--
	last := sh.open == 0
	started := sh.started
	var ins []Stream
	if last {
		ins, sh.ins = sh.ins, nil
	}
	sh.mu.Unlock()
	if !last {
		return nil
	}
	if !started {
		return closeStreams(ins)
	}
	sh.w.stop()
	<-sh.finished
	for _, c := range sh.chans {
		for b := range c {
			b.Release()
		}
	}
	return nil
}

// repartStream is output partition i.
type repartStream struct {
	sh     *repartShared
	i      int
	done   bool
	closed bool
}

func (s *repartStream) Schema() *arrow.Schema { return s.sh.n.Schema() }

func (s *repartStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if s.done {
		if err := s.sh.w.failure(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	s.sh.start(ctx)
	if err := s.sh.w.failure(); err != nil {
		s.done = true
		return nil, err
	}
	select {
	case b, ok := <-s.sh.chans[s.i]:
		return s.received(b, ok)
	default: // the producers run: give up the lease while waiting (idle)
		s.sh.tc.idle(ctx)
	}
	select {
	case b, ok := <-s.sh.chans[s.i]:
		return s.received(b, ok)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// received is Next's answer once a batch (or the channel's close: !ok)
// came from the producers.
func (s *repartStream) received(b arrow.RecordBatch, ok bool) (arrow.RecordBatch, error) {
	if !ok {
		s.done = true
		if err := s.sh.w.failure(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	return s.sh.n.metrics.Emit(b, time.Now())
}

func (s *repartStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.sh.closeOutput(s.i)
}

// rowHasher assigns rows to partitions by a hash of their key columns'
// group-key encoding (groupkey.go), so values that group together (NULL
// with NULL, NaN with NaN, -0 with 0) land in one partition.
type rowHasher struct {
	keys  []int
	n     int
	buf   []byte
	cols  []arrow.Array
	parts [][]int32
}

// repartSeed is one seed for the process: every producer of an execution
// must route a key to the same partition.
var repartSeed = maphash.MakeSeed()

func newRowHasher(keys []int, n int) *rowHasher {
	return &rowHasher{keys: keys, n: n, cols: make([]arrow.Array, len(keys)), parts: make([][]int32, n)}
}

// split returns the rows of b per partition (valid until the next call).
func (h *rowHasher) split(b arrow.RecordBatch) [][]int32 {
	for i, k := range h.keys {
		h.cols[i] = b.Column(k)
	}
	for p := range h.parts {
		h.parts[p] = h.parts[p][:0]
	}
	n := uint64(h.n)
	for r := range int(b.NumRows()) {
		h.buf = encodeGroupKey(h.buf[:0], h.cols, r)
		p := maphash.Bytes(repartSeed, h.buf) % n
		h.parts[p] = append(h.parts[p], int32(r))
	}
	return h.parts
}
