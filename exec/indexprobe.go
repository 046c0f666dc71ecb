package exec

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/sync/errgroup"

	"github.com/stablerow/stablerow/access"
)

// KeyIndex is what TakeByKeyExec needs from an index on the key column:
// the access layer's contract (access.KeyIndex), which owns resolving
// keys to live addresses.
type KeyIndex = access.KeyIndex

// ProbeResult is one batched probe (access.ProbeResult).
type ProbeResult = access.ProbeResult

// IndexProbeExec probes a KeyIndex with the keys of the probe batch its
// TakeByKeyExec binds, and emits one (probe_row, _rowaddr) pair per index
// entry found: none for a key the index does not hold, several for a key
// it holds more than once (ProbeAll). Addresses are the index's as stored:
// a RowAddrRemapExec above it translates them when the index predates
// rewrites, and the take checks them live.
//
// It cannot run on its own: Execute without a bound probe batch is
// ErrInvalidArgument.
//
//	┌─────────┐ first Next ┌───────┐ pairs left ┌──────┐
//	│  start  │───────────>│ probe │───────────>│ emit │──┐ one batch of
//	└─────────┘            └───────┘            └──────┘<─┘ ≤ BatchSize pairs
//	                                               │ no pairs left
//	                                               v
//	                                             done
type IndexProbeExec struct {
	index   KeyIndex
	metrics Metrics
}

// NewIndexProbeExec probes index.
func NewIndexProbeExec(index KeyIndex) (*IndexProbeExec, error) {
	if index == nil {
		return nil, fmt.Errorf("%w: index probe: nil index", physexpr.ErrInvalidArgument)
	}
	return &IndexProbeExec{index: index}, nil
}

func (n *IndexProbeExec) Name() string           { return "IndexProbeExec" }
func (n *IndexProbeExec) Schema() *arrow.Schema  { return pairSchema }
func (n *IndexProbeExec) Children() []Node       { return nil }
func (n *IndexProbeExec) Metrics() *Metrics      { return &n.metrics }
func (n *IndexProbeExec) Properties() Properties { return Properties{} }
func (n *IndexProbeExec) String() string         { return "IndexProbeExec: " + n.index.String() }

// Execute implements Node; it needs the probe batch TakeByKeyExec binds.
func (n *IndexProbeExec) Execute(_ context.Context, tc *TaskContext) (Stream, error) {
	feed, err := probeFeedOf(tc, n.Name())
	if err != nil {
		return nil, err
	}
	return &indexProbeStream{n: n, tc: tc, keys: feed.keys}, nil
}

type probeState int

const (
	probeStart probeState = iota
	probeEmit
	probeDone
)

type indexProbeStream struct {
	n     *IndexProbeExec
	tc    *TaskContext
	keys  arrow.Array
	state probeState
	res   *ProbeResult
	multi []int // res.Multi, sorted
	next  int   // next key position to emit
	pb    *pairBuilder
}

func (s *indexProbeStream) Schema() *arrow.Schema { return pairSchema }
func (s *indexProbeStream) Close() error          { s.state, s.res = probeDone, nil; return nil }

// Next implements Stream.
func (s *indexProbeStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch s.state {
		case probeStart:
			// start -> emit: one batched probe of every key.
			if err := s.handleProbe(ctx); err != nil {
				return nil, err
			}
			s.state = probeEmit
		case probeEmit:
			b, err := s.handleEmit(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				// emit -> done: every key's entries are out.
				s.state, s.res = probeDone, nil
				continue
			}
			return s.n.metrics.Emit(b, start)
		case probeDone:
			s.n.metrics.Since(start)
			return nil, io.EOF
		}
	}
}

func (s *indexProbeStream) handleProbe(ctx context.Context) error {
	res, err := probeParallel(ctx, s.n.index, s.keys, &s.n.metrics)
	if err != nil {
		return fmt.Errorf("exec: index probe %s: %w", s.n.index, err)
	}
	s.res = res
	s.multi = slices.Clone(res.Multi)
	slices.Sort(s.multi)
	s.n.metrics.Add("keys_probed", int64(s.keys.Len()))
	s.n.metrics.Add("pages_decoded", int64(res.PagesDecoded))
	return nil
}

// handleEmit returns the next batch of pairs, or nil when none are left.
func (s *indexProbeStream) handleEmit(ctx context.Context) (arrow.RecordBatch, error) {
	if s.pb == nil {
		s.pb = newPairBuilder(s.tc.Allocator(), s.tc.RowsPerBatch())
	}
	pb := s.pb
	n, limit := s.keys.Len(), pb.limit
	found, addrs, nulls := s.res.Found, s.res.Addrs, s.keys.NullN() > 0
	for ; s.next < n && len(pb.pos) < limit; s.next++ {
		i := s.next
		if len(s.multi) > 0 && s.multi[0] == i {
			s.multi = s.multi[1:]
			if nulls && s.keys.IsNull(i) {
				continue
			}
			all, err := s.n.index.ProbeAll(ctx, s.keys, i)
			if err != nil {
				return nil, fmt.Errorf("exec: index probe %s: %w", s.n.index, err)
			}
			s.n.metrics.Add("multi_keys", 1)
			for _, a := range all {
				pb.add(int32(i), a)
			}
			continue
		}
		if found[i] && (!nulls || !s.keys.IsNull(i)) {
			pb.pos = append(pb.pos, uint32(i))
			pb.addr = append(pb.addr, addrs[i])
		}
	}
	return pb.flush(), nil
}

// parallelProbeMin is the probe batch above which the keys are split
// across cores: each part sorts and walks its own pages, and the index is
// safe for concurrent probes.
const parallelProbeMin = 1 << 16

// probeParallel runs the index probe, in parallel parts for large batches,
// and checks the index answered every key.
func probeParallel(ctx context.Context, ix KeyIndex, keys arrow.Array, m *Metrics) (*ProbeResult, error) {
	n := keys.Len()
	parts := min(runtime.GOMAXPROCS(0), 8)
	if n < parallelProbeMin || parts < 2 {
		r, err := ix.Probe(ctx, keys)
		if err != nil {
			return nil, err
		}
		if len(r.Addrs) != n || len(r.Found) != n {
			return nil, fmt.Errorf("%w: index answered %d of %d keys", physexpr.ErrInvalidArgument, len(r.Found), n)
		}
		return r, nil
	}
	results := make([]*ProbeResult, parts)
	g, gctx := errgroup.WithContext(ctx)
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		g.Go(func() error {
			part := array.NewSlice(keys, int64(lo), int64(hi))
			defer part.Release()
			r, err := ix.Probe(gctx, part)
			if err != nil {
				return err
			}
			if len(r.Addrs) != hi-lo || len(r.Found) != hi-lo {
				return fmt.Errorf("%w: index answered %d of %d keys", physexpr.ErrInvalidArgument, len(r.Found), hi-lo)
			}
			results[p] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := &ProbeResult{Addrs: make([]uint64, 0, n), Found: make([]bool, 0, n)}
	for p, r := range results {
		base := n * p / parts
		out.Addrs = append(out.Addrs, r.Addrs...)
		out.Found = append(out.Found, r.Found...)
		for _, i := range r.Multi {
			out.Multi = append(out.Multi, base+i)
		}
		out.PagesDecoded += r.PagesDecoded
	}
	m.Add("parallel_probes", int64(parts))
	return out, nil
}
