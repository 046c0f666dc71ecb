package exec

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/table"
)

// UnindexedFallbackScan reads the key column (and _rowaddr) of the
// fragments an index does not cover, so that keys living there are still
// found. For _rowid the fragments are pruned by each fragment's row id
// range against the keys being resolved, so after a small append only the
// new fragments are read, and only when a key can be in them.
type UnindexedFallbackScan struct {
	t         *table.Table
	keyColumn string
	fragments []uint32
	schema    *arrow.Schema
	metrics   Metrics
}

// NewUnindexedFallbackScan scans keyColumn of the given fragments.
func NewUnindexedFallbackScan(t *table.Table, keyColumn string, fragments []uint32) (*UnindexedFallbackScan, error) {
	ki := t.ColumnIndex(keyColumn)
	if ki < 0 {
		return nil, fmt.Errorf("%w: fallback: unknown column %q", ErrInvalidArgument, keyColumn)
	}
	k := t.Schema().Field(ki)
	a := t.Schema().Field(t.ColumnIndex(table.RowAddr))
	return &UnindexedFallbackScan{t: t, keyColumn: k.Name, fragments: slices.Clone(fragments),
		schema: arrow.NewSchema([]arrow.Field{k, a}, nil)}, nil
}

func (n *UnindexedFallbackScan) Name() string           { return "UnindexedFallbackScan" }
func (n *UnindexedFallbackScan) Schema() *arrow.Schema  { return n.schema }
func (n *UnindexedFallbackScan) Children() []Node       { return nil }
func (n *UnindexedFallbackScan) Metrics() *Metrics      { return &n.metrics }
func (n *UnindexedFallbackScan) Properties() Properties { return Properties{} }
func (n *UnindexedFallbackScan) String() string {
	prune := ""
	if n.keyColumn == table.RowID {
		prune = ", pruned by row id range"
	}
	return fmt.Sprintf("UnindexedFallbackScan: column=%s, fragments=%v%s", n.keyColumn, n.fragments, prune)
}

// Execute scans every uncovered fragment (no pruning).
func (n *UnindexedFallbackScan) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return n.scan(ctx, tc, n.fragments)
}

func (n *UnindexedFallbackScan) scan(ctx context.Context, tc *TaskContext, frags []uint32) (Stream, error) {
	sc, err := NewScanExec(n.t, []string{n.keyColumn, table.RowAddr}, frags)
	if err != nil {
		return nil, err
	}
	return sc.Execute(ctx, tc)
}

// candidates returns the fragments that can hold any of keys[idx].
func (n *UnindexedFallbackScan) candidates(keys arrow.Array, idx []int) []uint32 {
	u, ok := keys.(*array.Uint64)
	if n.keyColumn != table.RowID || !ok {
		return n.fragments
	}
	want := make([]uint64, 0, len(idx))
	for _, i := range idx {
		want = append(want, u.Value(i))
	}
	slices.Sort(want)
	var out []uint32
	for _, id := range n.fragments {
		f := n.t.Manifest().Fragment(id)
		lo, hi, ok := f.RowIDs.MinMax()
		if !ok || f.LiveRows() == 0 {
			continue
		}
		j, _ := slices.BinarySearch(want, lo)
		if j < len(want) && want[j] <= hi {
			out = append(out, id)
		}
	}
	return out
}

// fallbackMap holds key -> address for the fragments loaded so far.
type fallbackMap struct {
	loaded map[uint32]bool
	u      map[uint64]uint64 // uint64 keys (_rowid)
	g      map[any]uint64    // other key types
	dup    map[any]int       // keys with more than one live row
}

func newFallbackMap() *fallbackMap {
	return &fallbackMap{loaded: map[uint32]bool{}, u: map[uint64]uint64{}, g: map[any]uint64{}, dup: map[any]int{}}
}

func keyAny(a arrow.Array, i int) any {
	switch c := a.(type) {
	case *array.Uint64:
		return c.Value(i)
	case *array.Int64:
		return c.Value(i)
	case *array.Int32:
		return c.Value(i)
	case *array.Float64:
		return c.Value(i)
	case *array.String:
		return c.Value(i)
	case *array.Boolean:
		return c.Value(i)
	}
	return a.ValueStr(i)
}

func (m *fallbackMap) load(ctx context.Context, n *UnindexedFallbackScan, tc *TaskContext, keys arrow.Array, idx []int, metrics *Metrics) error {
	var need []uint32
	for _, id := range n.candidates(keys, idx) {
		if !m.loaded[id] {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return nil
	}
	st, err := n.scan(ctx, tc, need)
	if err != nil {
		return err
	}
	defer st.Close()
	rows := int64(0)
	for {
		b, err := st.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		k, a := b.Column(0), b.Column(1).(*array.Uint64)
		rows += b.NumRows()
		for i := 0; i < k.Len(); i++ {
			if k.IsNull(i) {
				continue
			}
			if u, ok := k.(*array.Uint64); ok {
				key := u.Value(i)
				if _, seen := m.u[key]; seen {
					m.dup[key]++
				}
				m.u[key] = a.Value(i)
				continue
			}
			key := keyAny(k, i)
			if _, seen := m.g[key]; seen {
				m.dup[key]++
			}
			m.g[key] = a.Value(i)
		}
		b.Release()
	}
	for _, id := range need {
		m.loaded[id] = true
	}
	metrics.Add("fallback_fragments", int64(len(need)))
	metrics.Add("fallback_rows_scanned", rows)
	n.metrics.OutputRows.Add(rows)
	return nil
}

func (m *fallbackMap) get(keys arrow.Array, i int) (uint64, bool, error) {
	var key any
	var a uint64
	var ok bool
	if u, isU := keys.(*array.Uint64); isU {
		key = u.Value(i)
		a, ok = m.u[u.Value(i)]
	} else {
		key = keyAny(keys, i)
		a, ok = m.g[key]
	}
	if ok && m.dup[key] > 0 {
		return 0, false, fmt.Errorf("%w: take: key %v has %d live rows in unindexed fragments", ErrNotUnique, key, m.dup[key]+1)
	}
	return a, ok, nil
}
