package tpch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchRows is the number of rows in each batch the generator emits.
const batchRows = 1 << 16

// Dates of TPC-H 4.2.3: orders fall in [startDate, endDate-151 days];
// currentDate decides the return flag and the line status.
var (
	startDate   = days(1992, 1, 1)
	currentDate = days(1995, 6, 17)
	endDate     = days(1998, 12, 31)
)

func days(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// Sizes are a scale factor's row counts (4.2.5): SF × 10,000 suppliers,
// 200,000 parts (4 partsupp rows each), 150,000 customers, 1,500,000
// orders (1 to 7 lineitems each).
type Sizes struct{ Supplier, Part, Customer, Orders int64 }

// SizesOf is the row counts at scale factor sf (at least one row each).
func SizesOf(sf float64) Sizes {
	n := func(base float64) int64 { return max(1, int64(sf*base)) }
	return Sizes{Supplier: n(10_000), Part: n(200_000), Customer: n(150_000), Orders: n(1_500_000)}
}

// Generator makes the tables of one scale factor from one seed; the same
// (sf, seed) makes the same rows.
type Generator struct {
	SF   float64
	Seed uint64
	Mem  memory.Allocator
	n    Sizes
	pool string
}

// NewGenerator prepares a generator (it builds the comment text pool).
func NewGenerator(sf float64, seed uint64, mem memory.Allocator) *Generator {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return &Generator{SF: sf, Seed: seed, Mem: mem, n: SizesOf(sf), pool: textPool(seed)}
}

// rng is the random stream of one table: each table draws from its own,
// so tables can be generated in any order or at once.
func (g *Generator) rng(table int) *rand.Rand {
	return rand.New(rand.NewPCG(g.Seed, uint64(table)*0x9e3779b97f4a7c15+1))
}

// Emit receives one batch of a table; the generator releases it after
// Emit returns.
type Emit func(table string, b arrow.RecordBatch) error

// builder fills one table's batches.
type builder struct {
	name string
	rb   *array.RecordBuilder
	emit Emit
	n    int
}

func (g *Generator) builder(i int, emit Emit) *builder {
	return &builder{name: Tables[i].Name, rb: array.NewRecordBuilder(g.Mem, Tables[i].Schema), emit: emit}
}

func (b *builder) i64(c int, v int64)  { b.rb.Field(c).(*array.Int64Builder).Append(v) }
func (b *builder) str(c int, v string) { b.rb.Field(c).(*array.StringBuilder).Append(v) }
func (b *builder) date(c int, v int32) { b.rb.Field(c).(*array.Date32Builder).Append(arrow.Date32(v)) }
func (b *builder) dec(c int, cents int64) {
	b.rb.Field(c).(*array.Decimal128Builder).Append(decimal128.FromI64(cents))
}

// row ends a row and emits a full batch.
func (b *builder) row() error {
	b.n++
	if b.n < batchRows {
		return nil
	}
	return b.flush()
}

func (b *builder) flush() error {
	if b.n == 0 {
		return nil
	}
	rec := b.rb.NewRecordBatch()
	defer rec.Release()
	b.n = 0
	return b.emit(b.name, rec)
}

func (b *builder) release() { b.rb.Release() }

// Generate emits every table's batches, table by table in Tables order
// (orders and lineitem interleaved: they are made together).
func (g *Generator) Generate(ctx context.Context, emit Emit) error {
	steps := []func(context.Context, Emit) error{g.region, g.nation, g.supplier, g.part, g.partsupp, g.customer, g.ordersAndLines}
	for _, s := range steps {
		if err := s(ctx, emit); err != nil {
			return err
		}
	}
	return nil
}

func (g *Generator) region(_ context.Context, emit Emit) error {
	r, b := g.rng(0), g.builder(0, emit)
	defer b.release()
	for k, name := range regions {
		b.i64(0, int64(k))
		b.str(1, name)
		b.str(2, text(r, g.pool, 31, 115))
		if err := b.row(); err != nil {
			return err
		}
	}
	return b.flush()
}

func (g *Generator) nation(_ context.Context, emit Emit) error {
	r, b := g.rng(1), g.builder(1, emit)
	defer b.release()
	for k, n := range nations {
		b.i64(0, int64(k))
		b.str(1, n.name)
		b.i64(2, n.region)
		b.str(3, text(r, g.pool, 31, 114))
		if err := b.row(); err != nil {
			return err
		}
	}
	return b.flush()
}

// phone is 4.2.2.9's phone number: the country code is the nation key +
// 10 (Q22 selects customers by it).
func phone(r *rand.Rand, nation int64) string {
	return fmt.Sprintf("%d-%d-%d-%d", nation+10, 100+r.IntN(900), 100+r.IntN(900), 1000+r.IntN(9000))
}

// acctbal is uniform in [-999.99, 9999.99], in cents.
func acctbal(r *rand.Rand) int64 { return -99_999 + r.Int64N(1_099_999) }

func (g *Generator) supplier(ctx context.Context, emit Emit) error {
	r, b := g.rng(2), g.builder(2, emit)
	defer b.release()
	for k := int64(1); k <= g.n.Supplier; k++ {
		nk := r.Int64N(25)
		b.i64(0, k)
		b.str(1, fmt.Sprintf("Supplier#%09d", k))
		b.str(2, vstring(r, 10, 40))
		b.i64(3, nk)
		b.str(4, phone(r, nk))
		b.dec(5, acctbal(r))
		// 4.2.3: SF × 5 suppliers' comments hold "Customer ...
		// Complaints" and SF × 5 "Customer ... Recommends" (Q16).
		c := text(r, g.pool, 25, 100)
		switch x := r.IntN(10_000); {
		case x < 5:
			c = customerRemark(r, c, "Complaints")
		case x < 10:
			c = customerRemark(r, c, "Recommends")
		}
		b.str(6, c)
		if err := b.row(); err != nil {
			return err
		}
		if k%batchRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return b.flush()
}

// customerRemark overwrites part of a comment with "Customer " + some
// text + word, keeping its length.
func customerRemark(r *rand.Rand, c, word string) string {
	const lead = "Customer "
	need := len(lead) + len(word) + 1
	if len(c) < need {
		return (lead + word)[:min(len(c), need)]
	}
	start := r.IntN(len(c) - need + 1)
	mid := r.IntN(len(c) - start - need + 1)
	return c[:start] + lead + c[start+len(lead):start+len(lead)+mid] + word + c[start+len(lead)+mid+len(word):]
}

// retailPrice is 4.2.3's P_RETAILPRICE of a part, in cents.
func retailPrice(pk int64) int64 { return 90000 + (pk/10)%20001 + 100*(pk%1000) }

func (g *Generator) part(ctx context.Context, emit Emit) error {
	r, b := g.rng(3), g.builder(3, emit)
	defer b.release()
	var name strings.Builder
	var picked [5]int
	for k := int64(1); k <= g.n.Part; k++ {
		// P_NAME: five distinct colors.
		name.Reset()
		for i := range picked {
		again:
			c := r.IntN(len(colors))
			for _, p := range picked[:i] {
				if p == c {
					goto again
				}
			}
			picked[i] = c
			if i > 0 {
				name.WriteByte(' ')
			}
			name.WriteString(colors[c])
		}
		m := 1 + r.IntN(5)
		b.i64(0, k)
		b.str(1, name.String())
		b.str(2, "Manufacturer#"+strconv.Itoa(m))
		b.str(3, "Brand#"+strconv.Itoa(m)+strconv.Itoa(1+r.IntN(5)))
		b.str(4, typeS1[r.IntN(len(typeS1))]+" "+typeS2[r.IntN(len(typeS2))]+" "+typeS3[r.IntN(len(typeS3))])
		b.i64(5, 1+r.Int64N(50))
		b.str(6, containerS1[r.IntN(len(containerS1))]+" "+containerS2[r.IntN(len(containerS2))])
		b.dec(7, retailPrice(k))
		b.str(8, text(r, g.pool, 5, 22))
		if err := b.row(); err != nil {
			return err
		}
		if k%batchRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return b.flush()
}

// partSupplier is the i-th (0..3) supplier of part pk (4.2.3's
// PS_SUPPKEY), s the number of suppliers.
func partSupplier(pk, i, s int64) int64 {
	return (pk+i*(s/4+(pk-1)/s))%s + 1
}

func (g *Generator) partsupp(ctx context.Context, emit Emit) error {
	r, b := g.rng(4), g.builder(4, emit)
	defer b.release()
	for pk := int64(1); pk <= g.n.Part; pk++ {
		for i := int64(0); i < 4; i++ {
			b.i64(0, pk)
			b.i64(1, partSupplier(pk, i, g.n.Supplier))
			b.i64(2, 1+r.Int64N(9999))
			b.dec(3, 100+r.Int64N(99_901))
			b.str(4, text(r, g.pool, 49, 198))
			if err := b.row(); err != nil {
				return err
			}
		}
		if pk%batchRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return b.flush()
}

func (g *Generator) customer(ctx context.Context, emit Emit) error {
	r, b := g.rng(5), g.builder(5, emit)
	defer b.release()
	for k := int64(1); k <= g.n.Customer; k++ {
		nk := r.Int64N(25)
		b.i64(0, k)
		b.str(1, fmt.Sprintf("Customer#%09d", k))
		b.str(2, vstring(r, 10, 40))
		b.i64(3, nk)
		b.str(4, phone(r, nk))
		b.dec(5, acctbal(r))
		b.str(6, segments[r.IntN(len(segments))])
		b.str(7, text(r, g.pool, 29, 116))
		if err := b.row(); err != nil {
			return err
		}
		if k%batchRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return b.flush()
}

// orderKey is the i-th (0-based) order key: 4.2.3 uses only the first 8
// of every 32 keys, so the keys are sparse.
func orderKey(i int64) int64 { return (i/8)*32 + i%8 + 1 }

// line is one lineitem while its order is being made.
type line struct {
	part, supp, qty, price, disc, tax int64
	ship, commit, receipt             int32
	flag, status                      string
}

func (g *Generator) ordersAndLines(ctx context.Context, emit Emit) error {
	r, ob, lb := g.rng(6), g.builder(6, emit), g.builder(7, emit)
	defer ob.release()
	defer lb.release()
	clerks := max(1, int64(g.SF*1000))
	var lines [7]line
	for i := int64(0); i < g.n.Orders; i++ {
		ok := orderKey(i)
		// O_CUSTKEY: customers whose key is a multiple of 3 place no
		// orders (Q13 and Q22 count them).
		ck := 1 + r.Int64N(g.n.Customer)
		for g.n.Customer >= 3 && ck%3 == 0 {
			ck = 1 + r.Int64N(g.n.Customer)
		}
		od := startDate + r.Int32N(endDate-151-startDate+1)
		nl := 1 + r.IntN(7)
		var total int64
		nF, nO := 0, 0
		for j := range lines[:nl] {
			l := &lines[j]
			l.part = 1 + r.Int64N(g.n.Part)
			l.supp = partSupplier(l.part, r.Int64N(4), g.n.Supplier)
			l.qty = 1 + r.Int64N(50)
			l.price = l.qty * retailPrice(l.part)
			l.disc = r.Int64N(11) // 0.00 .. 0.10
			l.tax = r.Int64N(9)   // 0.00 .. 0.08
			l.ship = od + 1 + r.Int32N(121)
			l.commit = od + 30 + r.Int32N(61)
			l.receipt = l.ship + 1 + r.Int32N(30)
			l.flag = "N"
			if l.receipt <= currentDate {
				l.flag = [2]string{"R", "A"}[r.IntN(2)]
			}
			l.status = "O"
			if l.ship <= currentDate {
				l.status = "F"
				nF++
			} else {
				nO++
			}
			// O_TOTALPRICE sums extendedprice × (1 + tax) × (1 − discount),
			// each line rounded to the cent.
			total += (l.price*(100+l.tax)*(100-l.disc) + 5000) / 10000
		}
		status := "P"
		switch {
		case nO == 0:
			status = "F"
		case nF == 0:
			status = "O"
		}
		ob.i64(0, ok)
		ob.i64(1, ck)
		ob.str(2, status)
		ob.dec(3, total)
		ob.date(4, od)
		ob.str(5, priorities[r.IntN(len(priorities))])
		ob.str(6, fmt.Sprintf("Clerk#%09d", 1+r.Int64N(clerks)))
		ob.i64(7, 0)
		ob.str(8, text(r, g.pool, 19, 78))
		if err := ob.row(); err != nil {
			return err
		}
		for j, l := range lines[:nl] {
			lb.i64(0, ok)
			lb.i64(1, l.part)
			lb.i64(2, l.supp)
			lb.i64(3, int64(j+1))
			lb.dec(4, l.qty*100)
			lb.dec(5, l.price)
			lb.dec(6, l.disc)
			lb.dec(7, l.tax)
			lb.str(8, l.flag)
			lb.str(9, l.status)
			lb.date(10, l.ship)
			lb.date(11, l.commit)
			lb.date(12, l.receipt)
			lb.str(13, instructs[r.IntN(len(instructs))])
			lb.str(14, modes[r.IntN(len(modes))])
			lb.str(15, text(r, g.pool, 10, 43))
			if err := lb.row(); err != nil {
				return err
			}
		}
		if i%batchRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := ob.flush(); err != nil {
		return err
	}
	return lb.flush()
}
