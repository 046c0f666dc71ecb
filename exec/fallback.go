package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
)

// UnindexedFallbackScan finds the keys an index could not answer in the
// fragments the index does not cover, so partial coverage is always
// correct. It runs per probe batch under TakeByKeyExec, which binds the
// batch's keys and the positions still unresolved, and emits one
// (probe_row, _rowaddr) pair per live row whose key is one of them.
//
// For _rowid the fragments' row id sequences (in the manifest) are an
// exact index: access.RowIDSearch, the fallback step the bulk take runs
// too, searches each fragment whose id range can hold a wanted id by
// arithmetic on ranges and binary search on arrays, and no data is read. For any other key the uncovered fragments' key column is
// streamed against a hash of the batch's unresolved keys: state is bounded
// by the probe batch and one scan batch, however many rows the fragments
// hold.
//
//	┌───────┐ _rowid  ┌────────┐ fragment by fragment, no data read
//	│ start │────────>│ search │──────────────┐
//	└───────┘         └────────┘              v
//	    │ other key   ┌──────┐ batch by batch ┌──────┐ ≤ BatchSize pairs
//	    └────────────>│ scan │───────────────>│ emit │──────────────────> batch
//	                  └──────┘                └──────┘
//	search / scan exhausted, last pairs emitted -> done
//
// It cannot run on its own: Execute without a bound probe batch is
// ErrInvalidArgument.
type UnindexedFallbackScan struct {
	t          *table.Table
	keyColumn  string
	fragments  []uint32
	bySequence bool // keyColumn is _rowid: resolve through row id sequences
	metrics    Metrics
}

// NewUnindexedFallbackScan resolves keys of keyColumn in the given
// fragments.
func NewUnindexedFallbackScan(t *table.Table, keyColumn string, fragments []uint32) (*UnindexedFallbackScan, error) {
	ki := t.ColumnIndex(keyColumn)
	if ki < 0 {
		return nil, fmt.Errorf("%w: fallback: unknown column %q", physexpr.ErrInvalidArgument, keyColumn)
	}
	name := t.Schema().Field(ki).Name
	return &UnindexedFallbackScan{t: t, keyColumn: name, fragments: slices.Clone(fragments),
		bySequence: name == table.RowID}, nil
}

func (n *UnindexedFallbackScan) Name() string           { return "UnindexedFallbackScan" }
func (n *UnindexedFallbackScan) Schema() *arrow.Schema  { return pairSchema }
func (n *UnindexedFallbackScan) Children() []Node       { return nil }
func (n *UnindexedFallbackScan) Metrics() *Metrics      { return &n.metrics }
func (n *UnindexedFallbackScan) Properties() Properties { return Properties{} }
func (n *UnindexedFallbackScan) String() string {
	how := "scan of the key column"
	if n.bySequence {
		how = "row id sequences (no data read)"
	}
	return fmt.Sprintf("UnindexedFallbackScan: column=%s, fragments=%v, by %s", n.keyColumn, n.fragments, how)
}

// Execute implements Node; it needs the probe batch TakeByKeyExec binds.
func (n *UnindexedFallbackScan) Execute(_ context.Context, tc *TaskContext) (Stream, error) {
	feed, err := probeFeedOf(tc, n.Name())
	if err != nil {
		return nil, err
	}
	if n.bySequence {
		if _, ok := feed.keys.(*array.Uint64); !ok {
			return nil, fmt.Errorf("%w: fallback: _rowid keys are %s, not uint64", physexpr.ErrSchema, feed.keys.DataType())
		}
	}
	// The scan child runs without the probe binding.
	return &fallbackStream{n: n, tc: tc, parent: withProbe(tc, nil), feed: feed}, nil
}

type fallbackState int

const (
	fallbackStart fallbackState = iota
	fallbackSearch
	fallbackScan
	fallbackDone
)

type fallbackStream struct {
	n      *UnindexedFallbackScan
	tc     *TaskContext
	parent *TaskContext
	feed   *probeFeed
	state  fallbackState

	// search (_rowid): the row id sequence search, resumed batch by batch.
	search *access.RowIDSearch

	// scan (other keys): positions by key, the key column stream and the
	// batch being matched.
	hash *keyHash
	scan Stream
	cur  arrow.RecordBatch
	row  int

	pb *pairBuilder // pairs not yet emitted
}

func (s *fallbackStream) Schema() *arrow.Schema { return pairSchema }

func (s *fallbackStream) Close() error {
	s.state = fallbackDone
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.scan != nil {
		err := s.scan.Close()
		s.scan = nil
		return err
	}
	return nil
}

// Next implements Stream.
func (s *fallbackStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	if s.pb == nil {
		s.pb = newPairBuilder(s.tc.Allocator(), s.tc.RowsPerBatch())
	}
	pb := s.pb
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		switch s.state {
		case fallbackStart:
			// start -> search (_rowid) or scan (other keys).
			if s.n.bySequence {
				s.startSearch()
				s.state = fallbackSearch
			} else {
				err = s.startScan(ctx)
				s.state = fallbackScan
			}
		case fallbackSearch:
			if s.searchNext(pb) {
				s.state = fallbackDone
			}
		case fallbackScan:
			var end bool
			if end, err = s.match(ctx, pb); end {
				s.state = fallbackDone
			}
		case fallbackDone:
			// emit what is left, then EOF.
			if b := pb.flush(); b != nil {
				return s.n.metrics.Emit(b, start)
			}
			s.n.metrics.Since(start)
			return nil, io.EOF
		}
		if err != nil {
			s.n.metrics.Since(start)
			return nil, err
		}
		if pb.full() {
			// search/scan -> emit: a full batch of pairs.
			return s.n.metrics.Emit(pb.flush(), start)
		}
	}
}

// positions returns the probe rows to resolve.
func (s *fallbackStream) positions(yield func(i int32)) {
	if s.feed.sel != nil {
		for _, i := range s.feed.sel {
			if !s.feed.keys.IsNull(int(i)) {
				yield(i)
			}
		}
		return
	}
	for i := 0; i < s.feed.keys.Len(); i++ {
		if !s.feed.keys.IsNull(i) {
			yield(int32(i))
		}
	}
}

// startSearch collects the wanted ids with their probe rows and starts
// the row id sequence search.
func (s *fallbackStream) startSearch() {
	keys := s.feed.keys.(*array.Uint64)
	var ids []uint64
	var pos []int32
	s.positions(func(i int32) {
		ids = append(ids, keys.Value(int(i)))
		pos = append(pos, i)
	})
	s.search = access.NewRowIDSearch(s.n.t, s.n.fragments, ids, pos)
	s.n.metrics.Add("fragments_searched", int64(s.search.Fragments()))
}

// searchNext resolves wanted ids until pb is full; it reports whether
// every candidate fragment is done.
func (s *fallbackStream) searchNext(pb *pairBuilder) bool {
	done, lookups := s.search.Next(pb.add, pb.full)
	s.n.metrics.Add("sequence_lookups", lookups)
	return done
}

// startScan hashes the unresolved keys and opens the key column scan.
func (s *fallbackStream) startScan(ctx context.Context) error {
	s.hash = newKeyHash()
	s.positions(func(i int32) { s.hash.add(s.feed.keys, int(i)) })
	if s.hash.len() == 0 || len(s.n.fragments) == 0 {
		return nil
	}
	sc, err := NewScanExec(s.n.t, []string{s.n.keyColumn, table.RowAddr}, s.n.fragments)
	if err != nil {
		return err
	}
	st, err := sc.Execute(ctx, s.parent)
	if err != nil {
		return err
	}
	s.scan = st
	s.n.metrics.Add("fragments_scanned", int64(len(s.n.fragments)))
	return nil
}

// match streams the key column against the hash until pb is full; it
// reports whether the scan is exhausted.
func (s *fallbackStream) match(ctx context.Context, pb *pairBuilder) (bool, error) {
	if s.scan == nil {
		return true, nil
	}
	for !pb.full() {
		if s.cur == nil {
			b, err := s.scan.Next(ctx)
			if errors.Is(err, io.EOF) {
				return true, nil
			}
			if err != nil {
				return false, err
			}
			s.cur, s.row = b, 0
			s.n.metrics.Add("data_rows_read", b.NumRows())
		}
		k, a := s.cur.Column(0), s.cur.Column(1).(*array.Uint64)
		for ; s.row < k.Len() && !pb.full(); s.row++ {
			if k.IsNull(s.row) {
				continue
			}
			for _, p := range s.hash.get(k, s.row) {
				pb.add(p, a.Value(s.row))
			}
		}
		if s.row == k.Len() {
			s.cur.Release()
			s.cur = nil
		}
	}
	return false, nil
}

// keyHash maps the keys of a probe batch to their probe rows: integer
// keys by their bits, other kinds by value.
type keyHash struct {
	ints  map[uint64][]int32
	other map[any][]int32
}

func newKeyHash() *keyHash { return &keyHash{ints: map[uint64][]int32{}, other: map[any][]int32{}} }

func (h *keyHash) len() int { return len(h.ints) + len(h.other) }

func intKey(a arrow.Array, i int) (uint64, bool) {
	switch c := a.(type) {
	case *array.Uint64:
		return c.Value(i), true
	case *array.Int64:
		return uint64(c.Value(i)), true
	case *array.Int32:
		return uint64(c.Value(i)), true
	case *array.Uint32:
		return uint64(c.Value(i)), true
	}
	return 0, false
}

func anyKey(a arrow.Array, i int) any {
	switch c := a.(type) {
	case *array.Float64:
		return c.Value(i)
	case *array.String:
		return c.Value(i)
	case *array.Boolean:
		return c.Value(i)
	}
	return a.ValueStr(i)
}

func (h *keyHash) add(a arrow.Array, i int) {
	if k, ok := intKey(a, i); ok {
		h.ints[k] = append(h.ints[k], int32(i))
		return
	}
	k := anyKey(a, i)
	h.other[k] = append(h.other[k], int32(i))
}

// get returns the probe rows whose key equals a[i] (a has the key type).
func (h *keyHash) get(a arrow.Array, i int) []int32 {
	if k, ok := intKey(a, i); ok {
		return h.ints[k]
	}
	return h.other[anyKey(a, i)]
}
