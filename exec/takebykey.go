package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
)

// KeyIndex is what TakeByKeyExec needs from an index on the key column.
type KeyIndex interface {
	// Probe finds one indexed address per key, in input order (duplicate
	// keys repeated, NULL keys not found).
	Probe(ctx context.Context, keys arrow.Array) (*ProbeResult, error)
	// ProbeAll returns every indexed address of keys[i]; TakeByKeyExec asks
	// for it when Probe reports more than one entry for a key.
	ProbeAll(ctx context.Context, keys arrow.Array, i int) ([]uint64, error)
	// Covers reports whether the index holds every row the fragment had when
	// the index was built (its fragment_bitmap).
	Covers(fragment uint32) bool
	String() string
}

// ProbeResult is one batched probe.
type ProbeResult struct {
	Addrs        []uint64
	Found        []bool
	Multi        []int // input positions whose key has more than one entry
	PagesDecoded int
}

// DefaultProbeBatch is how many driving keys TakeByKeyExec gathers before
// probing: large batches decode each index page once for many keys; the
// bound keeps memory proportional to it, not to the driving input.
const DefaultProbeBatch = 1 << 20

// TakeByKeyExec is an ordered left index-nested-loop join on a unique
// indexed key: for each driving row, in driving order, the table row whose
// key equals the driving key, or NULLs. A duplicate driving key yields a
// duplicate row; a NULL key is a miss; two live rows for one key are an
// ErrNotUnique error (the uniqueness assertion).
//
// Keys the index cannot answer — their row lives in a fragment outside the
// index's coverage (appended or moved by an update after the build), or
// the indexed address is deleted — are resolved by the
// UnindexedFallbackScan child, so partial coverage is always correct.
//
// Output: the driving columns, then the requested table columns (nullable).
// Ordering: the driving ordering (so a sort on it above is redundant).
type TakeByKeyExec struct {
	driving    Node
	keyCol     int
	t          *table.Table
	keyColumn  string
	index      KeyIndex
	columns    []string
	fallback   *UnindexedFallbackScan // nil when the index covers every fragment
	remap      *RowAddrRemapExec      // probe-side remap (nil: index is current)
	probeBatch int
	schema     *arrow.Schema
	metrics    Metrics
}

// TakeByKeyOptions tune TakeByKeyExec.
type TakeByKeyOptions struct {
	ProbeBatch int // keys per probe (default DefaultProbeBatch)
	// Remap, when set, translates the index's addresses (written before
	// rewrites) to current ones; the plan shows it as a RowAddrRemapExec
	// over the index probe. The index's Covers must then answer with the
	// derived coverage.
	Remap Remapper
}

// IndexProbeExec stands for the batched index probe inside TakeByKeyExec
// in EXPLAIN output; it yields (key, _rowaddr) pairs only as part of the
// take and cannot run on its own.
type IndexProbeExec struct {
	index   KeyIndex
	schema  *arrow.Schema
	metrics Metrics
}

func (n *IndexProbeExec) Name() string           { return "IndexProbeExec" }
func (n *IndexProbeExec) Schema() *arrow.Schema  { return n.schema }
func (n *IndexProbeExec) Children() []Node       { return nil }
func (n *IndexProbeExec) Metrics() *Metrics      { return &n.metrics }
func (n *IndexProbeExec) Properties() Properties { return Properties{} }
func (n *IndexProbeExec) String() string         { return "IndexProbeExec: " + n.index.String() }
func (n *IndexProbeExec) Execute(context.Context, *TaskContext) (Stream, error) {
	return nil, fmt.Errorf("%w: IndexProbeExec runs inside TakeByKeyExec", ErrInvalidArgument)
}

// NewTakeByKeyExec builds the node. The driving key column must have the
// table key column's type. index may be nil: every key then goes to the
// fallback (a full scan of the key column), which is correct but slow.
func NewTakeByKeyExec(driving Node, keyCol int, t *table.Table, keyColumn string, index KeyIndex, columns []string, opt TakeByKeyOptions) (*TakeByKeyExec, error) {
	ds := driving.Schema()
	if keyCol < 0 || keyCol >= ds.NumFields() {
		return nil, fmt.Errorf("%w: take: driving key column %d of %d", ErrInvalidArgument, keyCol, ds.NumFields())
	}
	ki := t.ColumnIndex(keyColumn)
	if ki < 0 {
		return nil, fmt.Errorf("%w: take: unknown key column %q", ErrInvalidArgument, keyColumn)
	}
	kt := t.Schema().Field(ki).Type
	if !arrow.TypeEqual(ds.Field(keyCol).Type, kt) {
		return nil, fmt.Errorf("%w: take: driving key %s is %s, table key %s is %s", ErrSchema, ds.Field(keyCol).Name, ds.Field(keyCol).Type, keyColumn, kt)
	}
	fields := append([]arrow.Field{}, ds.Fields()...)
	for _, c := range columns {
		i := t.ColumnIndex(c)
		if i < 0 {
			return nil, fmt.Errorf("%w: take: unknown column %q", ErrInvalidArgument, c)
		}
		f := t.Schema().Field(i)
		fields = append(fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: true, Metadata: f.Metadata})
	}
	n := &TakeByKeyExec{driving: driving, keyCol: keyCol, t: t, keyColumn: t.Schema().Field(ki).Name, index: index,
		columns: columns, probeBatch: opt.ProbeBatch, schema: arrow.NewSchema(fields, nil)}
	if n.probeBatch <= 0 {
		n.probeBatch = DefaultProbeBatch
	}
	if opt.Remap != nil && index != nil {
		probe := &IndexProbeExec{index: index, schema: arrow.NewSchema([]arrow.Field{
			{Name: n.keyColumn, Type: kt, Nullable: true},
			{Name: table.RowAddr, Type: arrow.PrimitiveTypes.Uint64, Nullable: true}}, nil)}
		rm, err := NewRowAddrRemapExec(probe, 1, opt.Remap, RemapNull)
		if err != nil {
			return nil, err
		}
		n.remap = rm
	}
	var uncovered []uint32
	for _, f := range t.Fragments() {
		if index == nil || !index.Covers(f.ID) {
			uncovered = append(uncovered, f.ID)
		}
	}
	if len(uncovered) > 0 {
		fb, err := NewUnindexedFallbackScan(t, n.keyColumn, uncovered)
		if err != nil {
			return nil, err
		}
		n.fallback = fb
	}
	return n, nil
}

func (n *TakeByKeyExec) Name() string          { return "TakeByKeyExec" }
func (n *TakeByKeyExec) Schema() *arrow.Schema { return n.schema }
func (n *TakeByKeyExec) Metrics() *Metrics     { return &n.metrics }
func (n *TakeByKeyExec) Properties() Properties {
	return Properties{Ordering: n.driving.Properties().Ordering}
}

func (n *TakeByKeyExec) Children() []Node {
	c := []Node{n.driving}
	if n.remap != nil {
		c = append(c, n.remap)
	}
	if n.fallback != nil {
		c = append(c, n.fallback)
	}
	return c
}

func (n *TakeByKeyExec) String() string {
	idx := "none"
	if n.index != nil {
		idx = n.index.String()
	}
	return fmt.Sprintf("TakeByKeyExec: key=%s = t.%s, index=%s, columns=[%s], version=%d",
		n.driving.Schema().Field(n.keyCol).Name, n.keyColumn, idx, strings.Join(n.columns, ", "), n.t.Version())
}

func (n *TakeByKeyExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := n.driving.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &takeStream{n: n, tc: tc, in: in, mem: tc.mem()}, nil
}

// takeState is the stream's state machine: gather a probe batch of driving
// rows, resolve all its keys, emit its batches one by one, repeat.
type takeState int

const (
	takeGather takeState = iota
	takeEmit
	takeDone
)

type takeStream struct {
	n     *TakeByKeyExec
	tc    *TaskContext
	in    Stream
	mem   memory.Allocator
	state takeState

	pending []arrow.RecordBatch // driving batches of the current probe batch
	addrs   []uint64            // resolved address per pending row
	valid   []bool              // hit per pending row
	emitted int                 // pending batches already emitted
	rowBase int                 // first row of pending[emitted]
	taken   arrow.RecordBatch   // table columns of all pending rows (one Take per probe batch)
	fb      *fallbackMap        // lazily built fallback lookups
	eof     bool

	// frags[id] is fragment id of the snapshot, live[id] reports whether the
	// index may answer for it: built once so that checking a hit costs two
	// slice reads and, only for fragments with deletions, a bitmap probe.
	frags   []*table.Fragment
	covered []bool
}

func (s *takeStream) Schema() *arrow.Schema { return s.n.schema }

func (s *takeStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	defer func() { s.n.metrics.ElapsedCompute.Add(int64(time.Since(start))) }()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch s.state {
		case takeGather:
			if s.eof {
				s.state = takeDone
				continue
			}
			if err := s.gather(ctx); err != nil {
				return nil, err
			}
			if len(s.pending) == 0 {
				s.state = takeDone
				continue
			}
			if err := s.resolve(ctx); err != nil {
				return nil, err
			}
			s.state = takeEmit
		case takeEmit:
			if s.emitted == len(s.pending) {
				s.releasePending()
				s.state = takeGather
				continue
			}
			b := s.pending[s.emitted]
			out, err := s.output(ctx, b, s.rowBase)
			if err != nil {
				return nil, err
			}
			s.rowBase += int(b.NumRows())
			s.emitted++
			s.n.metrics.OutputRows.Add(out.NumRows())
			s.n.metrics.OutputBatches.Add(1)
			return out, nil
		case takeDone:
			return nil, io.EOF
		}
	}
}

// gather pulls driving batches until probeBatch keys are pending or the
// input ends.
func (s *takeStream) gather(ctx context.Context) error {
	rows := 0
	for rows < s.n.probeBatch {
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			s.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		s.pending = append(s.pending, b)
		rows += int(b.NumRows())
	}
	return nil
}

func (s *takeStream) releasePending() {
	for _, b := range s.pending {
		b.Release()
	}
	if s.taken != nil {
		s.taken.Release()
		s.taken = nil
	}
	s.pending, s.emitted, s.rowBase = s.pending[:0], 0, 0
}

// resolve finds the live address of every pending key.
func (s *takeStream) resolve(ctx context.Context) error {
	cols := make([]arrow.Array, len(s.pending))
	total := 0
	for i, b := range s.pending {
		cols[i] = b.Column(s.n.keyCol)
		total += int(b.NumRows())
	}
	keys, err := array.Concatenate(cols, s.mem)
	if err != nil {
		return fmt.Errorf("exec: take: %w", err)
	}
	defer keys.Release()
	m0 := &s.n.metrics
	m0.Add("probe_batches", 1)
	m0.Max("max_probe_rows", int64(total))
	s.addrs = resize(s.addrs, total)
	s.valid = resizeBool(s.valid, total)
	m := &s.n.metrics
	m.Add("keys_probed", int64(total))
	var unresolved []int
	if s.n.index != nil {
		res, err := s.probe(ctx, keys)
		if err != nil {
			return fmt.Errorf("exec: take: probe %s: %w", s.n.index, err)
		}
		if len(res.Addrs) != total || len(res.Found) != total {
			return fmt.Errorf("%w: take: index answered %d of %d keys", ErrInvalidArgument, len(res.Found), total)
		}
		m.Add("pages_decoded", int64(res.PagesDecoded))
		if err := s.remapProbe(res); err != nil {
			return err
		}
		multi := map[int]bool{}
		for _, i := range res.Multi {
			multi[i] = true
		}
		for i := 0; i < total; i++ {
			if keys.IsNull(i) {
				continue
			}
			if multi[i] {
				all, err := s.n.index.ProbeAll(ctx, keys, i)
				if err != nil {
					return fmt.Errorf("exec: take: probe %s: %w", s.n.index, err)
				}
				if all, err = s.remapAll(all); err != nil {
					return err
				}
				live := 0
				for _, a := range all {
					if s.liveCovered(a) {
						s.addrs[i], s.valid[i] = a, true
						live++
					}
				}
				if live > 1 {
					return fmt.Errorf("%w: take: key %v has %d live rows in index %s", ErrNotUnique, keyString(keys, i), live, s.n.index)
				}
				if live == 1 {
					continue
				}
			} else if res.Found[i] && s.liveCovered(res.Addrs[i]) {
				s.addrs[i], s.valid[i] = res.Addrs[i], true
				continue
			}
			if s.n.fallback != nil {
				unresolved = append(unresolved, i)
			}
		}
	} else {
		for i := 0; i < total; i++ {
			if !keys.IsNull(i) {
				unresolved = append(unresolved, i)
			}
		}
	}
	if len(unresolved) > 0 {
		m.Add("fallback_keys", int64(len(unresolved)))
		if err := s.resolveFallback(ctx, keys, unresolved); err != nil {
			return err
		}
	}
	var hits int64
	for _, v := range s.valid[:total] {
		if v {
			hits++
		}
	}
	m.Add("hits", hits)
	m.Add("misses", int64(total)-hits)
	if !s.n.systemOnly() {
		// One take for the whole probe batch: each data batch touched is
		// decoded once, however the driving rows are chunked.
		tb, err := s.n.t.Take(ctx, s.addrs, s.valid, s.n.columns, s.mem)
		if err != nil {
			return fmt.Errorf("exec: take: %w", err)
		}
		s.taken = tb
	}
	return nil
}

// systemOnly: every requested table column is _rowid or _rowaddr, so the
// answer needs no data file.
func (n *TakeByKeyExec) systemOnly() bool {
	for _, c := range n.columns {
		if !table.IsSystemColumn(c) {
			return false
		}
	}
	return true
}

// parallelProbeMin is the probe batch above which the keys are split
// across cores: each part sorts and walks its own pages, and the index is
// safe for concurrent probes.
const parallelProbeMin = 1 << 16

// probe runs the index probe, in parallel parts for large batches.
func (s *takeStream) probe(ctx context.Context, keys arrow.Array) (*ProbeResult, error) {
	n := keys.Len()
	parts := min(runtime.GOMAXPROCS(0), 8)
	if n < parallelProbeMin || parts < 2 {
		return s.n.index.Probe(ctx, keys)
	}
	results := make([]*ProbeResult, parts)
	g, gctx := errgroup.WithContext(ctx)
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		g.Go(func() error {
			part := array.NewSlice(keys, int64(lo), int64(hi))
			defer part.Release()
			r, err := s.n.index.Probe(gctx, part)
			if err != nil {
				return err
			}
			if len(r.Addrs) != hi-lo || len(r.Found) != hi-lo {
				return fmt.Errorf("%w: take: index answered %d of %d keys", ErrInvalidArgument, len(r.Found), hi-lo)
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
	s.n.metrics.Add("parallel_probes", int64(parts))
	return out, nil
}

// remapProbe translates the found addresses of a probe through the
// fragment reuse history (when the index predates rewrites).
func (s *takeStream) remapProbe(res *ProbeResult) error {
	if s.n.remap == nil {
		return nil
	}
	start := time.Now()
	live := make([]bool, len(res.Addrs))
	if err := s.n.remap.remap.Translate(res.Addrs, res.Addrs, live); err != nil {
		return fmt.Errorf("exec: take: remap: %w", err)
	}
	dead := 0
	for i := range live {
		if res.Found[i] && !live[i] {
			res.Found[i] = false
			dead++
		}
	}
	rm := &s.n.remap.metrics
	rm.Add("addresses_remapped", int64(len(live)))
	rm.Add("deleted", int64(dead))
	rm.OutputRows.Add(int64(len(live) - dead))
	rm.ElapsedCompute.Add(int64(time.Since(start)))
	return nil
}

func (s *takeStream) remapAll(all []uint64) ([]uint64, error) {
	if s.n.remap == nil || len(all) == 0 {
		return all, nil
	}
	live := make([]bool, len(all))
	if err := s.n.remap.remap.Translate(all, all, live); err != nil {
		return nil, fmt.Errorf("exec: take: remap: %w", err)
	}
	out := all[:0]
	for i, a := range all {
		if live[i] {
			out = append(out, a)
		}
	}
	return out, nil
}

// liveCovered: an index answer counts only if the row is live in this
// version and its fragment is one the index covers.
func (s *takeStream) liveCovered(a uint64) bool {
	if s.frags == nil {
		m := s.n.t.Manifest()
		s.frags = make([]*table.Fragment, m.NextFragmentID)
		s.covered = make([]bool, m.NextFragmentID)
		for _, f := range m.Fragments {
			s.frags[f.ID] = f
			s.covered[f.ID] = s.n.index.Covers(f.ID)
		}
	}
	ad := rowid.Address(a)
	id := ad.Fragment()
	if int(id) >= len(s.frags) || !s.covered[id] {
		return false
	}
	f := s.frags[id]
	return f != nil && f.IsLive(ad.Offset())
}

func (s *takeStream) resolveFallback(ctx context.Context, keys arrow.Array, idx []int) error {
	if s.fb == nil {
		s.fb = newFallbackMap()
	}
	if err := s.fb.load(ctx, s.n.fallback, s.tc, keys, idx, &s.n.metrics); err != nil {
		return err
	}
	for _, i := range idx {
		a, ok, err := s.fb.get(keys, i)
		if err != nil {
			return err
		}
		if ok {
			s.addrs[i], s.valid[i] = a, true
		}
	}
	return nil
}

// output appends the taken table columns to driving batch b, whose rows are
// pending rows [base, base+len).
func (s *takeStream) output(ctx context.Context, b arrow.RecordBatch, base int) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	addrs, valid := s.addrs[base:base+n], s.valid[base:base+n]
	cols := make([]arrow.Array, 0, len(s.n.schema.Fields()))
	for _, c := range b.Columns() {
		c.Retain()
		cols = append(cols, c)
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if s.taken == nil {
		// _rowaddr is the answer itself and _rowid sits in the row id
		// sequence: no data file is read.
		for _, c := range s.n.columns {
			cols = append(cols, s.systemColumn(c, addrs, valid))
		}
	} else {
		part := s.taken.NewSlice(int64(base), int64(base+n))
		for _, c := range part.Columns() {
			c.Retain()
			cols = append(cols, c)
		}
		part.Release()
	}
	return array.NewRecordBatch(s.n.schema, cols, int64(n)), nil
}

func (s *takeStream) systemColumn(name string, addrs []uint64, valid []bool) arrow.Array {
	bld := array.NewUint64Builder(s.mem)
	defer bld.Release()
	bld.Reserve(len(addrs))
	for i, a := range addrs {
		if !valid[i] {
			bld.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if name == table.RowAddr {
			bld.UnsafeAppend(a)
		} else {
			id, _ := s.n.t.RowIDAt(a)
			bld.UnsafeAppend(id)
		}
	}
	return bld.NewArray()
}

func (s *takeStream) Close() error {
	s.releasePending()
	s.state = takeDone
	if s.in != nil {
		err := s.in.Close()
		s.in = nil
		return err
	}
	return nil
}

func resize(v []uint64, n int) []uint64 {
	if cap(v) < n {
		return make([]uint64, n)
	}
	v = v[:n]
	clear(v)
	return v
}

func resizeBool(v []bool, n int) []bool {
	if cap(v) < n {
		return make([]bool, n)
	}
	v = v[:n]
	clear(v)
	return v
}

func keyString(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	return a.ValueStr(i)
}
