package btree

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/store"
)

// The benchmark table: _rowid 0..N-1 over fragments of 1M rows, either
// append-only (row id i at fragment i/1M, offset i%1M) or shuffled (the
// table reclustered by a random key: the addresses are a random
// permutation). benchRows is N: 10M, 1M with -short, or STABLEROW_BENCH_ROWS.
func benchRows() int {
	if s := os.Getenv("STABLEROW_BENCH_ROWS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return 1_000_000
	}
	return 10_000_000
}

const fragRows = 1_000_000

type benchTable struct {
	name  string
	keys  []uint64 // in scan (address) order
	addrs []uint64

	mapOnce sync.Once
	m       map[uint64]uint64 // the baseline, built once
	mapRes  int64             // its resident bytes
}

// baseline returns the table's Go map and its resident bytes.
func (tb *benchTable) baseline() (map[uint64]uint64, int64) {
	tb.mapOnce.Do(func() {
		v, res := heapDelta(func() any { return buildMap(tb.keys, tb.addrs) })
		tb.m, tb.mapRes = v.(map[uint64]uint64), res
	})
	return tb.m, tb.mapRes
}

var (
	benchOnce   sync.Once
	benchTables []*benchTable
)

func tables() []*benchTable {
	benchOnce.Do(func() {
		n := benchRows()
		app := &benchTable{name: "append", keys: make([]uint64, n), addrs: make([]uint64, n)}
		for i := range n {
			app.keys[i] = uint64(i)
			app.addrs[i] = uint64(i/fragRows)<<32 | uint64(i%fragRows)
		}
		// Shuffled: scanning in address order meets the row ids in random order.
		shuf := &benchTable{name: "shuffled", keys: make([]uint64, n), addrs: app.addrs}
		for i, p := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
			shuf.keys[i] = uint64(p)
		}
		benchTables = []*benchTable{app, shuf}
	})
	return benchTables
}

// records cuts (keys, addrs) into 64K-row batches for Train.
func records(mem memory.Allocator, keys, addrs []uint64) (*arrow.Schema, []arrow.RecordBatch) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64},
	}, nil)
	var recs []arrow.RecordBatch
	kb, ab := array.NewUint64Builder(mem), array.NewUint64Builder(mem)
	defer kb.Release()
	defer ab.Release()
	for lo := 0; lo < len(keys); lo += 1 << 16 {
		hi := min(lo+1<<16, len(keys))
		kb.AppendValues(keys[lo:hi], nil)
		ab.AppendValues(addrs[lo:hi], nil)
		k, a := kb.NewArray(), ab.NewArray()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{k, a}, int64(hi-lo)))
		k.Release()
		a.Release()
	}
	return schema, recs
}

func trainBench(b *testing.B, st store.Store, prefix string, keys, addrs []uint64, opt Options) *Index {
	b.Helper()
	mem := memory.NewGoAllocator()
	schema, recs := records(mem, keys, addrs)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	ix, err := Train(context.Background(), st, prefix, arrow.PrimitiveTypes.Uint64, rr, Meta{Column: "_rowid"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// heapDelta measures the live heap that build leaves behind.
func heapDelta(build func() any) (any, int64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	return v, int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
}

// buildMap is the baseline's build: pre-sized, its best case.
func buildMap(keys, addrs []uint64) map[uint64]uint64 {
	m := make(map[uint64]uint64, len(keys))
	for i, k := range keys {
		m[k] = addrs[i]
	}
	return m
}

func BenchmarkBuild(b *testing.B) {
	for _, tb := range tables() {
		n := len(tb.keys)
		inputs := []struct {
			name       string
			keys, addr []uint64
		}{{"scan-order", tb.keys, tb.addrs}}
		if tb.name == "append" {
			// The same entries in a random order force the sort path.
			keys, addrs := make([]uint64, n), make([]uint64, n)
			for i, p := range rand.New(rand.NewPCG(3, 4)).Perm(n) {
				keys[i], addrs[i] = tb.keys[p], tb.addrs[p]
			}
			inputs = append(inputs, struct {
				name       string
				keys, addr []uint64
			}{"forced-sort", keys, addrs})
		}
		for _, in := range inputs {
			b.Run(tb.name+"/"+in.name, func(b *testing.B) {
				var ix *Index
				for b.Loop() {
					ix = trainBench(b, store.NewMemory(), "ix/", in.keys, in.addr, Options{Cache: NewPageCache(0)})
				}
				s := ix.Stats()
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(s.DiskBytes)/float64(n), "disk_B/row")
				b.ReportMetric(float64(s.ResidentBytes), "resident_B")
			})
		}
		b.Run(tb.name+"/map-baseline", func(b *testing.B) {
			for b.Loop() {
				buildMap(tb.keys, tb.addrs)
			}
			_, res := tb.baseline()
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(res), "resident_B")
		})
	}
}

func BenchmarkLookup10K(b *testing.B) { benchLookup(b, 10_000) }
func BenchmarkLookup1M(b *testing.B)  { benchLookup(b, 1_000_000) }

func benchLookup(b *testing.B, nkeys int) {
	ctx := context.Background()
	for _, tb := range tables() {
		n := len(tb.keys)
		r := rand.New(rand.NewPCG(5, uint64(nkeys)))
		probes := make([]uint64, nkeys)
		for i := range probes {
			probes[i] = r.Uint64N(uint64(n))
		}
		st, err := store.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		trainBench(b, st, "ix/", tb.keys, tb.addrs, Options{Cache: NewPageCache(0)})
		for _, warm := range []bool{true, false} {
			name := tb.name + "/cold"
			if warm {
				name = tb.name + "/warm"
			}
			b.Run(name, func(b *testing.B) {
				cache := NewPageCache(1 << 30)
				ix, err := Open(ctx, st, "ix/", Options{Cache: cache})
				if err != nil {
					b.Fatal(err)
				}
				if warm {
					if _, err := ix.LookupUint64(ctx, probes); err != nil {
						b.Fatal(err)
					}
				}
				var res *LookupResult
				runtime.GC() // keep the fixtures' garbage out of the CPU figure
				cpu0 := cpuTime()
				for b.Loop() {
					if !warm {
						cache.Clear()
					}
					if res, err = ix.LookupUint64(ctx, probes); err != nil {
						b.Fatal(err)
					}
				}
				for i, k := range probes {
					if !res.Found[i] || res.Addrs[i] != tb.addrs[addrIndex(tb, k)] {
						b.Fatalf("wrong answer for %d", k)
					}
				}
				reportRate(b, nkeys, cpuTime()-cpu0)
				b.ReportMetric(float64(ix.Stats().ResidentBytes), "resident_B")
				b.ReportMetric(float64(cache.Stats().UsedBytes), "cache_B")
				b.ReportMetric(float64(res.PagesVisited), "pages")
			})
		}
		b.Run(tb.name+"/map-baseline", func(b *testing.B) {
			m, res := tb.baseline()
			out := make([]uint64, nkeys)
			found := make([]bool, nkeys)
			runtime.GC()
			cpu0 := cpuTime()
			for b.Loop() {
				for i, k := range probes {
					out[i], found[i] = m[k]
				}
			}
			reportRate(b, nkeys, cpuTime()-cpu0)
			b.ReportMetric(float64(res), "resident_B")
		})
	}
}

// addrIndex is where key k sits in the table's scan order (k itself for
// the append-only table).
func addrIndex(tb *benchTable, k uint64) int {
	if tb.name == "append" {
		return int(k)
	}
	inv := shuffledInverse(tb)
	return int(inv[k])
}

var (
	invOnce sync.Once
	inv     []uint32
)

func shuffledInverse(tb *benchTable) []uint32 {
	invOnce.Do(func() {
		inv = make([]uint32, len(tb.keys))
		for i, k := range tb.keys {
			inv[k] = uint32(i)
		}
	})
	return inv
}

// cpuTime is the process's user+system CPU time. The benchmark machine is
// shared, so CPU time per key is reported beside the wall-clock rate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportRate(b *testing.B, nkeys int, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(nkeys), "cpu_ns/key")
	el := b.Elapsed()
	if el <= 0 {
		el = time.Nanosecond
	}
	b.ReportMetric(float64(nkeys)*float64(b.N)/el.Seconds(), "keys/s")
	b.ReportMetric(float64(el.Nanoseconds())/float64(b.N)/float64(nkeys), "ns/key")
}
