package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"
)

var benchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "payload", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// genReader yields k = 0..n-1, payload = k/2 in 64K-row batches.
type genReader struct {
	next, n int
	cur     arrow.RecordBatch
}

func (g *genReader) Retain()                        {}
func (g *genReader) Release()                       {}
func (g *genReader) Schema() *arrow.Schema          { return benchSchema }
func (g *genReader) RecordBatch() arrow.RecordBatch { return g.cur }
func (g *genReader) Record() arrow.RecordBatch      { return g.cur }
func (g *genReader) Err() error                     { return nil }
func (g *genReader) Next() bool {
	if g.cur != nil {
		g.cur.Release()
		g.cur = nil
	}
	if g.next >= g.n {
		return false
	}
	m := min(1<<16, g.n-g.next)
	kb, pb := array.NewInt64Builder(memory.DefaultAllocator), array.NewFloat64Builder(memory.DefaultAllocator)
	for i := 0; i < m; i++ {
		kb.Append(int64(g.next + i))
		pb.Append(float64(g.next+i) / 2)
	}
	k, p := kb.NewArray(), pb.NewArray()
	g.cur = array.NewRecordBatch(benchSchema, []arrow.Array{k, p}, int64(m))
	k.Release()
	p.Release()
	kb.Release()
	pb.Release()
	g.next += m
	return true
}

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

const benchRows = 10_000_000

// benchDB builds, once per process, a 10M-row table with a BTree on _rowid.
func benchDB(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "stablerow-bench-")
		if benchErr != nil {
			return
		}
		ctx := context.Background()
		db, err := engine.Open(benchDir, engine.Options{})
		if err != nil {
			benchErr = err
			return
		}
		if _, benchErr = db.CreateTable(ctx, "t", benchSchema); benchErr != nil {
			return
		}
		if _, benchErr = db.Append(ctx, "t", &genReader{n: benchRows}); benchErr != nil {
			return
		}
		benchErr = db.CreateIndex(ctx, "t", "rid", "_rowid")
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// benchIDs: random ids over the table, ~5% never assigned, ~2% duplicates.
func benchIDs(n int) []int64 {
	r := rand.New(rand.NewPCG(uint64(n), 5))
	ids := make([]int64, n)
	for i := range ids {
		switch {
		case i > 0 && r.IntN(50) == 0:
			ids[i] = ids[r.IntN(i)]
		case r.IntN(20) == 0:
			ids[i] = benchRows + r.Int64N(benchRows)
		default:
			ids[i] = r.Int64N(benchRows)
		}
	}
	return ids
}

var printed sync.Map

func benchSeed(b *testing.B, nids int, sql string, noIndex bool) {
	db, err := engine.Open(benchDB(b), engine.Options{DisableIndexes: noIndex})
	if err != nil {
		b.Fatal(err)
	}
	timeQuery(b, db, sql, nids)
}

// timeQuery times sql with :ids bound to nids benchmark ids, after one
// untimed run that maps the files and warms the page cache (the figures
// are for a warm process, as a server would run), and prints the plan of
// the last run once per benchmark.
func timeQuery(b *testing.B, db *engine.DB, sql string, nids int) {
	params := map[string]any{"ids": benchIDs(nids)}
	ctx := context.Background()
	if res, err := db.Exec(ctx, sql, params); err != nil {
		b.Fatal(err)
	} else {
		res.Release()
	}
	b.ResetTimer()
	var plan string
	for b.Loop() {
		res, err := db.Exec(ctx, sql, params)
		if err != nil {
			b.Fatal(err)
		}
		if res.NumRows() != int64(nids) {
			b.Fatalf("%d rows for %d ids", res.NumRows(), nids)
		}
		plan = res.Plan
		res.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/query")
	if _, dup := printed.LoadOrStore(b.Name(), true); !dup {
		fmt.Printf("plan of %s (last run, with metrics):\n%s\n", b.Name(), plan)
	}
}

const seedSQL = `SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`
const payloadSQL = `SELECT v.ord, t._rowaddr, t.payload FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// The seed query over 10M rows (1M-row fragments, BTree on _rowid).
func BenchmarkSeedQuery10M_100(b *testing.B)        { benchSeed(b, 100, seedSQL, false) }
func BenchmarkSeedQuery10M_10K(b *testing.B)        { benchSeed(b, 10_000, seedSQL, false) }
func BenchmarkSeedQuery10M_1M(b *testing.B)         { benchSeed(b, 1_000_000, seedSQL, false) }
func BenchmarkSeedQueryPayload10M_10K(b *testing.B) { benchSeed(b, 10_000, payloadSQL, false) }
func BenchmarkSeedQueryPayload10M_1M(b *testing.B)  { benchSeed(b, 1_000_000, payloadSQL, false) }
func BenchmarkSeedQueryNoIndex10M_10K(b *testing.B) { benchSeed(b, 10_000, seedSQL, true) }

var (
	reclOnce sync.Once
	reclDir  string
	reclErr  error
)

// reclusteredDBs builds, once per process, two copies of the 10M-row table
// reclustered by a random key with the index remap deferred: "deferred"
// keeps the history, "optimized" then runs OptimizeIndex.
func reclusteredDBs(b *testing.B) string {
	reclOnce.Do(func() {
		reclDir, reclErr = os.MkdirTemp("", "stablerow-bench-recluster-")
		if reclErr != nil {
			return
		}
		ctx := context.Background()
		db, err := engine.Open(reclDir, engine.Options{})
		if err != nil {
			reclErr = err
			return
		}
		for _, name := range []string{"deferred", "optimized"} {
			if _, reclErr = db.CreateTable(ctx, name, benchSchema); reclErr != nil {
				return
			}
			if _, reclErr = db.Append(ctx, name, &shuffledReader{genReader: genReader{n: benchRows}}); reclErr != nil {
				return
			}
			if reclErr = db.CreateIndex(ctx, name, "rid", "_rowid"); reclErr != nil {
				return
			}
			t, err := db.Table(ctx, name)
			if err != nil {
				reclErr = err
				return
			}
			if _, reclErr = t.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 10, DeferIndexRemap: true}); reclErr != nil {
				return
			}
		}
		reclErr = db.OptimizeIndex(ctx, "optimized", "rid")
	})
	if reclErr != nil {
		b.Fatal(reclErr)
	}
	return reclDir
}

// shuffledReader is genReader with k a random permutation-ish key, so a
// recluster by k moves every row.
type shuffledReader struct{ genReader }

func (s *shuffledReader) Next() bool {
	if !s.genReader.Next() {
		return false
	}
	k := s.cur.Column(0).(*array.Int64)
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < k.Len(); i++ {
		x := uint64(k.Value(i))
		kb.Append(int64((x*0x9E3779B97F4A7C15)>>40) % benchRows)
	}
	nk := kb.NewArray()
	kb.Release()
	nb := array.NewRecordBatch(benchSchema, []arrow.Array{nk, s.cur.Column(1)}, s.cur.NumRows())
	nk.Release()
	s.cur.Release()
	s.cur = nb
	return true
}

func benchRecluster(b *testing.B, name string, nids int) {
	db, err := engine.Open(reclusteredDBs(b), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	timeQuery(b, db, strings.Replace(seedSQL, "JOIN t ON t.", "JOIN "+name+" t ON t.", 1), nids)
}

// The seed query after a recluster of all 10M rows by a random key: with
// the index remap deferred (answers translated through the rowmap) and
// after OptimizeIndex.
func BenchmarkReclusterDeferred10M_10K(b *testing.B)  { benchRecluster(b, "deferred", 10_000) }
func BenchmarkReclusterOptimized10M_10K(b *testing.B) { benchRecluster(b, "optimized", 10_000) }
func BenchmarkReclusterDeferred10M_1M(b *testing.B)   { benchRecluster(b, "deferred", 1_000_000) }
func BenchmarkReclusterOptimized10M_1M(b *testing.B)  { benchRecluster(b, "optimized", 1_000_000) }
