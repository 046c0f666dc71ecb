package btree

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table/store"
)

// keyCase describes one key type for the generic tests: how to draw a
// random key from a domain of about d distinct values, and how keys
// compare in plain Go (the reference never sees the ordered encoding).
type keyCase struct {
	name string
	dt   arrow.DataType
	gen  func(r *rand.Rand, d int) any
	cmp  func(a, b any) int
}

var keyCases = []keyCase{
	{"int64", arrow.PrimitiveTypes.Int64,
		func(r *rand.Rand, d int) any { return int64(r.IntN(d)) - int64(d/2) },
		func(a, b any) int { return cmp.Compare(a.(int64), b.(int64)) }},
	{"uint64", arrow.PrimitiveTypes.Uint64,
		func(r *rand.Rand, d int) any {
			if r.IntN(10) == 0 {
				return ^uint64(0) - uint64(r.IntN(d))
			}
			return uint64(r.IntN(d))
		},
		func(a, b any) int { return cmp.Compare(a.(uint64), b.(uint64)) }},
	{"float64", arrow.PrimitiveTypes.Float64,
		func(r *rand.Rand, d int) any {
			v := float64(r.IntN(d)-d/2) / 4
			if v == 0 && r.IntN(2) == 0 {
				v = negZero()
			}
			return v
		},
		func(a, b any) int { return cmp.Compare(a.(float64), b.(float64)) }},
	{"string", arrow.BinaryTypes.String,
		func(r *rand.Rand, d int) any {
			v := r.IntN(d)
			return fmt.Sprintf("key/%d/%s", v%7, string(rune('a'+v%26))+fmt.Sprint(v))
		},
		func(a, b any) int { return cmp.Compare(a.(string), b.(string)) }},
	// The narrower SQL types (issue 26 §3): integer, smallint and date
	// map into int64's domain, real into float64's, numeric into
	// order-preserving 16-byte strings.
	{"int32", arrow.PrimitiveTypes.Int32,
		func(r *rand.Rand, d int) any {
			if r.IntN(10) == 0 {
				return int32(math.MinInt32 + r.IntN(d))
			}
			return int32(r.IntN(d) - d/2)
		},
		func(a, b any) int { return cmp.Compare(a.(int32), b.(int32)) }},
	{"int16", arrow.PrimitiveTypes.Int16,
		func(r *rand.Rand, d int) any { return int16(r.IntN(min(d, 60000)) - min(d, 60000)/2) },
		func(a, b any) int { return cmp.Compare(a.(int16), b.(int16)) }},
	{"float32", arrow.PrimitiveTypes.Float32,
		func(r *rand.Rand, d int) any {
			v := float32(r.IntN(d)-d/2) / 4
			if v == 0 && r.IntN(2) == 0 {
				v = float32(negZero())
			}
			return v
		},
		func(a, b any) int { return cmp.Compare(a.(float32), b.(float32)) }},
	{"date32", arrow.FixedWidthTypes.Date32,
		func(r *rand.Rand, d int) any { return arrow.Date32(r.IntN(d) - d/2) },
		func(a, b any) int { return cmp.Compare(a.(arrow.Date32), b.(arrow.Date32)) }},
	{"timestamp", &arrow.TimestampType{Unit: arrow.Microsecond},
		func(r *rand.Rand, d int) any { return arrow.Timestamp(int64(r.IntN(d)-d/2) * 1_000_003) },
		func(a, b any) int { return cmp.Compare(a.(arrow.Timestamp), b.(arrow.Timestamp)) }},
	{"bool", arrow.FixedWidthTypes.Boolean,
		func(r *rand.Rand, d int) any { return r.IntN(2) == 0 },
		func(a, b any) int {
			x, y := 0, 0
			if a.(bool) {
				x = 1
			}
			if b.(bool) {
				y = 1
			}
			return cmp.Compare(x, y)
		}},
	{"decimal", &arrow.Decimal128Type{Precision: 38, Scale: 2},
		func(r *rand.Rand, d int) any {
			v := decimal128.FromI64(int64(r.IntN(d) - d/2))
			if r.IntN(4) == 0 { // beyond 64 bits, both signs
				v = v.Mul(decimal128.FromI64(1 << 62)).Mul(decimal128.FromI64(1 << 20))
			}
			return v
		},
		func(a, b any) int { return a.(decimal128.Num).BigInt().Cmp(b.(decimal128.Num).BigInt()) }},
}

func negZero() float64 { z := 0.0; return -z }

// refEntry is one (key, address) pair of the reference; key nil = null.
type refEntry struct {
	key  any
	addr uint64
}

// ref is the reference model: a plain slice, scanned linearly.
type ref struct {
	kc      keyCase
	entries []refEntry
}

func (r *ref) eq(a, b any) bool { return r.kc.cmp(a, b) == 0 }

func (r *ref) rangeSet(lo, hi any, li, hiIncl bool) []uint64 {
	var out []uint64
	for _, e := range r.entries {
		if e.key == nil {
			continue
		}
		if lo != nil {
			c := r.kc.cmp(e.key, lo)
			if c < 0 || c == 0 && !li {
				continue
			}
		}
		if hi != nil {
			c := r.kc.cmp(e.key, hi)
			if c > 0 || c == 0 && !hiIncl {
				continue
			}
		}
		out = append(out, e.addr)
	}
	return out
}

func (r *ref) nullSet() []uint64 {
	var out []uint64
	for _, e := range r.entries {
		if e.key == nil {
			out = append(out, e.addr)
		}
	}
	return out
}

// lookup returns the expected probe answer for one key.
func (r *ref) lookup(k any) (addr uint64, found, multi bool) {
	if k == nil {
		return 0, false, false
	}
	n := 0
	for _, e := range r.entries {
		if e.key != nil && r.eq(e.key, k) {
			if n == 0 || e.addr < addr {
				addr = e.addr
			}
			n++
		}
	}
	return addr, n > 0, n > 1
}

// genEntries draws n entries with about n/3 distinct keys, nullPct% nulls
// and distinct addresses over a few fragments.
func genEntries(r *rand.Rand, kc keyCase, n, nullPct int) []refEntry {
	out := make([]refEntry, n)
	perm := r.Perm(n)
	for i := range out {
		var k any
		if r.IntN(100) >= nullPct {
			k = kc.gen(r, max(n/3, 1))
		}
		p := uint64(perm[i])
		out[i] = refEntry{k, (p%5)<<32 | p/5}
	}
	return out
}

func sortRef(kc keyCase, es []refEntry) {
	slices.SortFunc(es, func(a, b refEntry) int {
		switch {
		case a.key == nil && b.key == nil:
			return cmp.Compare(a.addr, b.addr)
		case a.key == nil:
			return -1
		case b.key == nil:
			return 1
		}
		if c := kc.cmp(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.addr, b.addr)
	})
}

// keyArray builds an Arrow array of keys (nil = null).
func keyArray(mem memory.Allocator, dt arrow.DataType, keys []any) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for _, k := range keys {
		if k == nil {
			b.AppendNull()
			continue
		}
		switch x := k.(type) {
		case int64:
			b.(*array.Int64Builder).Append(x)
		case uint64:
			b.(*array.Uint64Builder).Append(x)
		case float64:
			b.(*array.Float64Builder).Append(x)
		case string:
			b.(*array.StringBuilder).Append(x)
		case int32:
			b.(*array.Int32Builder).Append(x)
		case int16:
			b.(*array.Int16Builder).Append(x)
		case float32:
			b.(*array.Float32Builder).Append(x)
		case arrow.Date32:
			b.(*array.Date32Builder).Append(x)
		case decimal128.Num:
			b.(*array.Decimal128Builder).Append(x)
		case arrow.Timestamp:
			b.(*array.TimestampBuilder).Append(x)
		case bool:
			b.(*array.BooleanBuilder).Append(x)
		}
	}
	return b.NewArray()
}

// entryReader serves es as (key, address) batches of batch rows.
func entryReader(t testing.TB, mem memory.Allocator, dt arrow.DataType, es []refEntry, batch int) array.RecordReader {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: dt, Nullable: true},
		{Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64},
	}, nil)
	var recs []arrow.RecordBatch
	for lo := 0; lo < len(es); lo += batch {
		hi := min(lo+batch, len(es))
		keys := make([]any, 0, hi-lo)
		ab := array.NewUint64Builder(mem)
		for _, e := range es[lo:hi] {
			keys = append(keys, e.key)
			ab.Append(e.addr)
		}
		ka, aa := keyArray(mem, dt, keys), ab.NewArray()
		ab.Release()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{ka, aa}, int64(hi-lo)))
		ka.Release()
		aa.Release()
	}
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rr
}

// train builds an index from es (in the order given).
func train(t testing.TB, mem memory.Allocator, st store.Store, prefix string, kc keyCase, es []refEntry, opt Options) *Index {
	t.Helper()
	rr := entryReader(t, mem, kc.dt, es, 97)
	defer rr.Release()
	ix, err := Train(context.Background(), st, prefix, kc.dt, rr, Meta{Column: "k", FragmentIDs: []uint32{4, 0, 2}, DatasetVersion: 7}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func bitmapSlice(b *roaring64.Bitmap) []uint64 { return b.ToArray() }

func sortedCopy(v []uint64) []uint64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return slices.Compact(v)
}

// probeKeys draws keys for Lookup/SearchIn: existing keys (repeated), misses
// and nulls.
func probeKeys(r *rand.Rand, kc keyCase, es []refEntry, n int) []any {
	out := make([]any, n)
	for i := range out {
		switch r.IntN(6) {
		case 0:
			out[i] = nil
		case 1, 2:
			out[i] = kc.gen(r, 3*max(len(es), 1))
		default:
			if len(es) > 0 {
				out[i] = es[r.IntN(len(es))].key
			}
		}
	}
	return out
}

func newMem(t testing.TB) *memory.CheckedAllocator { return arrowtest.Mem(t) }
