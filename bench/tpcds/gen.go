package tpcds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchRows is the number of rows in each batch the generator emits.
const batchRows = 1 << 16

// Surrogate date keys are Julian day numbers (d_date_sk 2415022 is
// 1900-01-02, the first row of date_dim); the Unix epoch is 2440588.
const julianEpoch = 2440588

// The calendar of clause 3.5: date_dim covers 1900-01-02 to 2100-01-01
// (73,049 days); sales fall in 1998-01-02 .. 2003-01-02.
var (
	dateFirst = days(1900, 1, 2)
	dateLast  = days(2100, 1, 1)
	salesFrom = days(1998, 1, 2)
	salesTo   = days(2003, 1, 2)
	recStart  = days(1997, 10, 27)
)

func days(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// dateSK is a date's surrogate key.
func dateSK(d int32) int64 { return int64(d) + julianEpoch }

// ErrSchema: a generator row that does not fit its table's columns (a bug
// of this package, reported instead of writing a broken file).
var ErrSchema = fmt.Errorf("tpcds: generated row does not match the schema")

// Generator makes the tables of one scale factor from one seed; the same
// (sf, seed) makes the same rows.
type Generator struct {
	SF   float64
	Seed uint64
	Mem  memory.Allocator
	n    Sizes
}

// NewGenerator prepares a generator.
func NewGenerator(sf float64, seed uint64, mem memory.Allocator) *Generator {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return &Generator{SF: sf, Seed: seed, Mem: mem, n: SizesOf(sf)}
}

// Emit receives one batch of a table; the generator releases it after
// Emit returns.
type Emit func(table string, b arrow.RecordBatch) error

// rng is the random stream of one table: each table draws from its own,
// so a table's rows do not depend on the others' generation.
func (g *Generator) rng(table string) *rand.Rand {
	var h uint64 = 14695981039346656037
	for _, c := range []byte(table) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(g.Seed, h))
}

// builder fills one table's batches, a row at a time, the columns in
// order (the cursor c).
type builder struct {
	name string
	rb   *array.RecordBuilder
	emit Emit
	n, c int
	err  error
}

func (g *Generator) builder(name string, emit Emit) *builder {
	return &builder{name: name, rb: array.NewRecordBuilder(g.Mem, Tables[tableIndex[name]].Schema), emit: emit}
}

func (b *builder) next() array.Builder { b.c++; return b.rb.Field(b.c - 1) }

func (b *builder) i(v int64) {
	if x, ok := b.next().(*array.Int32Builder); ok {
		x.Append(int32(v))
	} else if b.err == nil {
		b.err = fmt.Errorf("%w: %s column %d is not INTEGER", ErrSchema, b.name, b.c)
	}
}

func (b *builder) s(v string) {
	if x, ok := b.next().(*array.StringBuilder); ok {
		x.Append(v)
	} else if b.err == nil {
		b.err = fmt.Errorf("%w: %s column %d is not text", ErrSchema, b.name, b.c)
	}
}

// d appends a decimal given in hundredths.
func (b *builder) d(cents int64) {
	if x, ok := b.next().(*array.Decimal128Builder); ok {
		x.Append(decimal128.FromI64(cents))
	} else if b.err == nil {
		b.err = fmt.Errorf("%w: %s column %d is not DECIMAL", ErrSchema, b.name, b.c)
	}
}

func (b *builder) date(v int32) {
	if x, ok := b.next().(*array.Date32Builder); ok {
		x.Append(arrow.Date32(v))
	} else if b.err == nil {
		b.err = fmt.Errorf("%w: %s column %d is not DATE", ErrSchema, b.name, b.c)
	}
}

func (b *builder) null() { b.next().AppendNull() }

// row ends a row (every column must have been given) and emits a full
// batch.
func (b *builder) row() error {
	if b.err != nil {
		return b.err
	}
	if b.c != len(b.rb.Fields()) {
		return fmt.Errorf("%w: %s row has %d of %d columns", ErrSchema, b.name, b.c, len(b.rb.Fields()))
	}
	b.c = 0
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

// table runs one table's row loop and flushes its last batch.
func (g *Generator) table(ctx context.Context, name string, emit Emit, rows func(b *builder, r *rand.Rand) error) error {
	b := g.builder(name, emit)
	defer b.release()
	if err := rows(b, g.rng(name)); err != nil {
		return fmt.Errorf("tpcds: %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.flush()
}

// Generate emits every table's batches, table by table; the returns are
// made with their sales.
func (g *Generator) Generate(ctx context.Context, emit Emit) error {
	steps := []func(context.Context, Emit) error{g.dateDim, g.timeDim, g.incomeBand, g.householdDemographics,
		g.customerDemographics, g.customerAddress, g.customer, g.item, g.promotion, g.reason, g.shipMode, g.store,
		g.warehouse, g.callCenter, g.catalogPage, g.webSite, g.webPage, g.inventory, g.storeSales, g.catalogSales, g.webSales}
	for _, s := range steps {
		if err := s(ctx, emit); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// bkey is a business key (the *_id columns): 16 characters of A..P, the
// key's hexadecimal digits, as dsdgen's mk_bkey writes them.
func bkey(n int64) string {
	var b [16]byte
	for i := range b {
		b[i] = 'A'
	}
	for i := 15; i >= 8 && n > 0; i-- {
		b[i] = byte('A' + n&15)
		n >>= 4
	}
	return string(b[:])
}

// word is a name made of syllables, one per decimal digit of n (dsdgen's
// mk_word): 'ought' for 0, 'able' for 1, 'pri' for 2, 'ese' for 3, ...
func word(n int64) string {
	if n == 0 {
		return syllables[0]
	}
	var parts []string
	for ; n > 0; n /= 10 {
		parts = append(parts, syllables[n%10])
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "")
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// between is a uniform integer in [lo, hi].
func between(r *rand.Rand, lo, hi int64) int64 { return lo + r.Int64N(hi-lo+1) }

// text is a sentence of n..m words from the word list.
func text(r *rand.Rand, n, m, maxLen int) string {
	k := int(between(r, int64(n), int64(m)))
	ws := make([]string, k)
	for i := range ws {
		ws[i] = pick(r, wordsForText)
	}
	s := strings.Join(ws, " ")
	if len(s) > maxLen {
		s = strings.TrimSpace(s[:maxLen])
	}
	return s
}

func name(r *rand.Rand) string { return pick(r, firstNames) + " " + pick(r, lastNames) }

func yn(r *rand.Rand, pY float64) string {
	if r.Float64() < pY {
		return "Y"
	}
	return "N"
}

// address writes the ten address columns (street number, name, type,
// suite, city, county, state, zip, country, GMT offset). local puts it
// among the places the store-side queries name (Williamson County,
// Midway/Fairview, TN), as the specification's few stores cluster.
func address(b *builder, r *rand.Rand, local bool) {
	st := pick(r, states)
	county, city := pick(r, counties), pick(r, cities)
	// The stores, warehouses, call centers and sites cluster where the
	// queries look (3 in 4), and a fifth of the customers live there too,
	// so joins on the same county and state (q54) or zip (q24) find rows.
	if (local && r.IntN(4) > 0) || (!local && r.IntN(5) == 0) {
		st, county, city = states[0], counties[0], cities[r.IntN(2)]
	}
	zip := fmt.Sprintf("%05d", between(r, 10000, 99999))
	if r.IntN(2) == 0 {
		zip = pick(r, queryZips)
	}
	b.s(fmt.Sprint(between(r, 1, 999)))
	b.s(pick(r, streetNames) + " " + pick(r, streetNames))
	b.s(pick(r, streetTypes))
	b.s(fmt.Sprintf("Suite %d", between(r, 0, 490)))
	b.s(city)
	b.s(county)
	b.s(st.code)
	b.s(zip)
	b.s("United States")
	b.d(st.gmt)
}
