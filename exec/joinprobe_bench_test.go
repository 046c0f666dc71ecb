package exec_test

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// BenchmarkJoinProbe is the hash join's probe cost per left row: 64
// batches of 8192 int64 keys drawn from [1, 200000] (an l_partkey column)
// probe a build side of distinct keys from the same range: tiny (203
// keys, Q17's part side), medium (20K), all (200K, every row matches),
// and a wide-range build (200K keys spread over 2^38, no dense range);
// and keys of [1, 6M] (l_orderkey) probe 64K of them (Q21's semi joins,
// about 94 values of the range per build row) and 57 (Q18's IN list).
// cpu-ns/row is the process's CPU time (getrusage: the machine is shared,
// so wall time is not the figure) per probed row, the whole join
// (lookup, pairs, output).
func BenchmarkJoinProbe(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(5, 6))
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	const batch, batches = 8192, 64
	probes := map[int64]*exec.ValuesExec{} // by key range
	probeOf := func(keyRange int64) *exec.ValuesExec {
		if v := probes[keyRange]; v != nil {
			return v
		}
		var bs []arrow.RecordBatch
		for range batches {
			kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
			for i := range batch {
				kb.Append(1 + r.Int64N(keyRange))
				vb.Append(int64(i))
			}
			k, v := kb.NewArray(), vb.NewArray()
			bs = append(bs, array.NewRecordBatch(sc, []arrow.Array{k, v}, batch))
			k.Release()
			v.Release()
			kb.Release()
			vb.Release()
		}
		v, err := exec.NewValuesExec(sc, bs)
		if err != nil {
			b.Fatal(err)
		}
		for _, x := range bs {
			x.Release()
		}
		probes[keyRange] = v
		return v
	}
	defer func() {
		for _, v := range probes {
			v.Release()
		}
	}()
	buildOf := func(keys []int64) *exec.ValuesExec {
		kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		kb.AppendValues(keys, nil)
		vb.AppendValues(keys, nil)
		k, v := kb.NewArray(), vb.NewArray()
		bt := array.NewRecordBatch(sc, []arrow.Array{k, v}, int64(len(keys)))
		k.Release()
		v.Release()
		kb.Release()
		vb.Release()
		x, err := exec.NewValuesExec(sc, []arrow.RecordBatch{bt})
		if err != nil {
			b.Fatal(err)
		}
		bt.Release()
		return x
	}
	// sample is n distinct keys of 1..keyRange, times scale.
	sample := func(n int, keyRange, scale int64) []int64 {
		perm := r.Perm(int(keyRange))[:n]
		keys := make([]int64, n)
		for i, p := range perm {
			keys[i] = (int64(p) + 1) * scale
		}
		return keys
	}
	for _, tc := range []struct {
		name     string
		keyRange int64 // of the probe keys
		keys     []int64
	}{
		{"tiny-203", 200_000, sample(203, 200_000, 1)},
		{"medium-20K", 200_000, sample(20_000, 200_000, 1)},
		{"all-200K", 200_000, sample(200_000, 200_000, 1)},
		{"sparse-200K", 200_000, sample(200_000, 200_000, 1<<20)},
		{"orders-64K-of-6M", 6_000_000, sample(64_000, 6_000_000, 1)},
		{"orders-57-of-6M", 6_000_000, sample(57, 6_000_000, 1)},
	} {
		left := probeOf(tc.keyRange)
		right := buildOf(tc.keys)
		for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinSemi, exec.JoinLeft} {
			b.Run(fmt.Sprintf("%s/%s", tc.name, typ), func(b *testing.B) {
				j, err := exec.NewHashJoinExec(left, right, []int{0}, []int{0}, typ)
				if err != nil {
					b.Fatal(err)
				}
				cpu0 := cpuNanos()
				for b.Loop() {
					s, _ := j.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192})
					out, err := exec.Collect(b.Context(), s)
					if err != nil {
						b.Fatal(err)
					}
					for _, o := range out {
						o.Release()
					}
					s.Close()
				}
				b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N*batch*batches), "cpu-ns/row")
			})
		}
		right.Release()
	}
}

// cpuNanos is the process's user and system CPU time.
func cpuNanos() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
