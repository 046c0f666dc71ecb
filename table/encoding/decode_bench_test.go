package encoding

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchChunks are 4096-row chunks (a data file batch) shaped like TPC-H
// lineitem's columns: a decimal price, a date, an ascending key, a
// three-value flag (dictionary) and a comment (LZ4).
func benchChunks(b *testing.B) map[string]struct {
	t     arrow.DataType
	chunk []byte
} {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 4096
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	db := array.NewDecimal128Builder(memory.DefaultAllocator, dec)
	dt := array.NewDate32Builder(memory.DefaultAllocator)
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	fb := array.NewStringBuilder(memory.DefaultAllocator)
	cb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range n {
		db.Append(decimal128.FromI64(90_000 + rng.Int64N(10_000_000)))
		dt.Append(arrow.Date32(8036 + rng.IntN(2500)))
		kb.Append(int64(1_000_000 + i/4))
		fb.Append([]string{"A", "N", "R"}[rng.IntN(3)])
		cb.Append(fmt.Sprintf("%s %s %d", words[rng.IntN(4)], words[rng.IntN(4)], rng.IntN(1000)))
	}
	out := map[string]struct {
		t     arrow.DataType
		chunk []byte
	}{}
	for name, bld := range map[string]array.Builder{"decimal": db, "date": dt, "key": kb, "flag": fb, "comment": cb} {
		a := bld.NewArray()
		c, err := Encode(nil, a)
		if err != nil {
			b.Fatal(err)
		}
		out[name] = struct {
			t     arrow.DataType
			chunk []byte
		}{a.DataType(), c}
		a.Release()
		bld.Release()
	}
	return out
}

// BenchmarkDecode decodes one 4096-row chunk of each shape whole (a scan)
// and at 10 positions (a point take's rows in a batch).
func BenchmarkDecode(b *testing.B) {
	chunks := benchChunks(b)
	pos := []int32{7, 300, 301, 999, 1500, 2047, 2048, 3000, 4000, 4095}
	for _, name := range []string{"decimal", "date", "key", "flag", "comment"} {
		c := chunks[name]
		b.Run(name+"/whole", func(b *testing.B) {
			defer reportCPU(b)()
			for range b.N {
				a, err := Decode(c.t, 4096, c.chunk, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		})
		b.Run(name+"/rows=10", func(b *testing.B) {
			defer reportCPU(b)()
			for range b.N {
				a, err := DecodeRows(c.t, 4096, c.chunk, pos, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		})
	}
}

// reportCPU adds the process's CPU time per op (user + system, GC
// included) to b's report when the returned func runs: on a shared,
// loaded machine wall time mostly measures the other processes.
func reportCPU(b *testing.B) func() {
	cpu := func() int64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0
		}
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}

// BenchmarkUnpack unpacks a chunk's worth (4096) of bit-packed values at
// the widths TPC-H's lineitem chunks have (2: flags' dictionary codes, 12:
// dates, 24: prices) into int32s (dates, codes, lengths) and into decimal
// words, the unpack alone, without the chunk's allocation.
func BenchmarkUnpack(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, width := range []uint{2, 12, 24} {
		vals := make([]uint64, 4096)
		for i := range vals {
			vals[i] = 1000 + rng.Uint64()&(1<<width-1)
		}
		src := pack(nil, vals, 1000, width)
		b.Run(fmt.Sprintf("int32/width=%d", width), func(b *testing.B) {
			dst := make([]int32, len(vals))
			defer reportCPU(b)()
			for range b.N {
				unpack(dst, src, 1000, width, signBit)
			}
		})
		b.Run(fmt.Sprintf("decimal/width=%d", width), func(b *testing.B) {
			nums := make([]uint64, 2*len(vals))
			defer reportCPU(b)()
			for range b.N {
				unpackDecimal(nums, src, 1000, width, 1<<40, 0)
			}
		})
	}
}
