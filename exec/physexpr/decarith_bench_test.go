package physexpr

import (
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkDecimalArith is ns per value of TPC-H Q1's decimal
// expressions over one 8192-row batch of decimal(15,2) columns (values
// like l_extendedprice, l_discount, l_tax): 1 - l_discount (a scalar
// operand), l_extendedprice * (1 - l_discount), and that times
// (1 + l_tax), whose 38-digit result needs the checked 128-bit path.
func BenchmarkDecimalArith(b *testing.B) {
	const n = 8192
	mem := memory.NewGoAllocator()
	d := func(p, s int32) *arrow.Decimal128Type { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	col := func(t *arrow.Decimal128Type, f func(i int) int64) arrow.Array {
		bl := array.NewDecimal128Builder(mem, t)
		defer bl.Release()
		for i := range n {
			bl.Append(decimal128.FromI64(f(i)))
		}
		return bl.NewArray()
	}
	price := col(d(15, 2), func(i int) int64 { return 90000 + int64(i*7919%10000000) })
	disc := col(d(15, 2), func(i int) int64 { return int64(i % 11) })
	charge := col(d(32, 4), func(i int) int64 { return 90000*95 + int64(i*7919%100000000) })
	tax := col(d(16, 2), func(i int) int64 { return 100 + int64(i%9) })
	tax15 := col(d(15, 2), func(i int) int64 { return int64(i % 9) })
	schema := arrow.NewSchema([]arrow.Field{{Name: "price", Type: price.DataType()}, {Name: "disc", Type: disc.DataType()},
		{Name: "charge", Type: charge.DataType()}, {Name: "tax", Type: tax.DataType()}, {Name: "tax15", Type: tax15.DataType()}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{price, disc, charge, tax, tax15}, n)
	defer rec.Release()
	one := Lit{Value: decimal128.FromI64(1), Type: d(1, 0)}
	for _, c := range []struct {
		name string
		e    Expr
	}{
		{"1-disc", DecimalArith{Op: OpSub, L: one, R: Col{Index: 1}}},
		{"price*disc", DecimalArith{Op: OpMul, L: Col{Index: 0}, R: Col{Index: 1}}},
		{"charge*tax", DecimalArith{Op: OpMul, L: Col{Index: 2}, R: Col{Index: 3}}},
		{"price+charge", DecimalArith{Op: OpAdd, L: Col{Index: 0}, R: Col{Index: 2}}},
		// Q1's sum_charge argument whole: fused (decfused.go), one output
		// column instead of four.
		{"price*(1-disc)*(1+tax)", DecimalArith{Op: OpMul,
			L: DecimalArith{Op: OpMul, L: Col{Index: 0}, R: DecimalArith{Op: OpSub, L: one, R: Col{Index: 1}}},
			R: DecimalArith{Op: OpAdd, L: one, R: Col{Index: 4}}}},
	} {
		// go: the engine's allocator (each batch's output freshly
		// allocated and zeroed, and collected); reuse: freed buffers
		// reused, so the figure is the kernel's own work.
		for _, a := range []struct {
			name string
			mem  memory.Allocator
		}{{"go", mem}, {"reuse", &reuseAllocator{free: map[int][][]byte{}}}} {
			b.Run(c.name+"/"+a.name, func(b *testing.B) {
				bd, err := Bind(c.e, schema)
				if err != nil {
					b.Fatal(err)
				}
				cpu0 := processCPU()
				for b.Loop() {
					out, err := bd.Eval(b.Context(), a.mem, rec)
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/value")
				b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N)/n, "cpu-ns/value")
			})
		}
	}
}

// processCPU is the process's user and system CPU time so far: on a
// loaded machine a benchmark's CPU per operation is steadier than its wall
// time (it includes the garbage collector's work on other threads).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reuseAllocator hands out freed buffers again (by size; one goroutine),
// so a benchmark measures a kernel without the allocation and garbage
// collection of its output.
type reuseAllocator struct{ free map[int][][]byte }

func (a *reuseAllocator) Allocate(size int) []byte {
	if l := a.free[size]; len(l) > 0 {
		b := l[len(l)-1]
		a.free[size] = l[:len(l)-1]
		return b
	}
	return make([]byte, size)
}

func (a *reuseAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *reuseAllocator) Free(b []byte) { a.free[len(b)] = append(a.free[len(b)], b) }
