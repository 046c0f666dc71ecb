package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The hash table at a size bigger than the caches (1.5M keys: 32 MiB of
// slots and 12 MiB of keys, about Q18's orders or Q5's lineitem-side
// build), where a probe or an insert is a cache miss: CPU per row is the
// figure (ns/op is per row: b.N rows are probed or inserted).

const benchTableKeys = 1_500_000

// benchKeyArray is n int64 keys drawn from keys (hit of every 1/missEvery
// is replaced by a key absent from the table; missEvery 0: all hit).
func benchKeyArray(mem memory.Allocator, r *rand.Rand, keys []int64, n, missEvery int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := range n {
		k := keys[r.IntN(len(keys))]
		if missEvery > 0 && i%missEvery == 0 {
			k = -k - 1
		}
		b.Append(k)
	}
	return b.NewArray()
}

// benchDistinctKeys is n distinct positive int64 keys in random order,
// spread over a wide range (an orderkey column's shape).
func benchDistinctKeys(r *rand.Rand, n int) []int64 {
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = int64(i)*4 + 1
	}
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

// BenchmarkKeyIndexProbe probes a keyIndex of 1.5M one-word build keys
// (and of two-word keys, the generic path) with 8192-row batches, half
// the rows hitting.
func BenchmarkKeyIndexProbe(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	keys := benchDistinctKeys(r, benchTableKeys)
	build := array.NewInt64Builder(mem)
	build.AppendValues(keys, nil)
	barr := build.NewArray()
	build.Release()
	defer barr.Release()
	const batch = 8192
	const batches = 64
	probes := make([]arrow.Array, batches)
	for i := range probes {
		probes[i] = benchKeyArray(mem, r, keys, batch, 2)
	}
	defer physexpr.ReleaseAll(probes)
	for _, tc := range []struct {
		name  string
		build []arrow.Array
		probe func(i int) []arrow.Array
	}{
		{"oneword", []arrow.Array{barr}, func(i int) []arrow.Array { return []arrow.Array{probes[i]} }},
		{"twoword", []arrow.Array{barr, barr}, func(i int) []arrow.Array { return []arrow.Array{probes[i], probes[i]} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			x := newKeyIndex(tc.build, benchTableKeys)
			var p keyCols
			var hashes []uint64
			var heads []int32
			var scratch []uint64
			hits := 0
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				p.normalize(tc.probe((i/batch)%batches), batch)
				hashes, heads, scratch = x.probe(&p, batch, hashes, heads, scratch)
				for _, h := range heads {
					if h >= 0 {
						hits++
					}
				}
			}
			if hits == 0 {
				b.Fatal("no probe row hit")
			}
		})
	}
}

// BenchmarkGroupTableInsert assigns 1.5M distinct one-word keys (a
// group-by of orderkeys, Q18's) in 8192-row batches: every row an insert
// into a table that grows past the caches. An op is the whole table;
// ns/row is the figure.
func BenchmarkGroupTableInsert(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(3, 4))
	keys := benchDistinctKeys(r, benchTableKeys)
	const batch = 8192
	var arrs []arrow.Array
	for lo := 0; lo < len(keys); lo += batch {
		bb := array.NewInt64Builder(mem)
		bb.AppendValues(keys[lo:min(len(keys), lo+batch)], nil)
		arrs = append(arrs, bb.NewArray())
		bb.Release()
	}
	defer physexpr.ReleaseAll(arrs)
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	b.ResetTimer()
	for b.Loop() {
		t := newGroupTable(mem, types)
		var ids []uint32
		for _, a := range arrs {
			var err error
			if ids, err = t.assign([]arrow.Array{a}, a.Len(), ids); err != nil {
				b.Fatal(err)
			}
		}
		if t.len() != len(keys) {
			b.Fatalf("%d groups, want %d", t.len(), len(keys))
		}
		t.release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/row")
}
