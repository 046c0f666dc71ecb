package vacuumstress

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// Config sizes a run.
type Config struct {
	Rounds  int // rounds of concurrent writers
	Writers int // writers per round
	// MinRows and MaxRows bound the rows of one append (drawn uniformly).
	MinRows, MaxRows int
	Seed             uint64
}

// EnvVar overrides the configuration for a long run, e.g.
//
//	STABLEROW_VACUUM_STRESS="rounds=20,writers=3,rows=1000000-20000000"
const EnvVar = "STABLEROW_VACUUM_STRESS"

// FromEnv returns def changed by EnvVar's fields (rounds, writers,
// rows=MIN-MAX, seed).
func FromEnv(def Config) (Config, error) {
	s := os.Getenv(EnvVar)
	if s == "" {
		return def, nil
	}
	c := def
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return c, fmt.Errorf("%s: %q is not key=value", EnvVar, kv)
		}
		var err error
		switch k {
		case "rounds":
			c.Rounds, err = strconv.Atoi(v)
		case "writers":
			c.Writers, err = strconv.Atoi(v)
		case "seed":
			c.Seed, err = strconv.ParseUint(v, 10, 64)
		case "rows":
			lo, hi, ok := strings.Cut(v, "-")
			if !ok {
				hi = lo
			}
			if c.MinRows, err = strconv.Atoi(lo); err == nil {
				c.MaxRows, err = strconv.Atoi(hi)
			}
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			return c, fmt.Errorf("%s: %s: %w", EnvVar, kv, err)
		}
	}
	if c.Rounds < 1 || c.Writers < 1 || c.MinRows < 1 || c.MaxRows < c.MinRows {
		return c, fmt.Errorf("%s: bad configuration %+v", EnvVar, c)
	}
	return c, nil
}

// Schema is the stress table's: k is writer<<32 | row.
var Schema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)

// Result says what happened.
type Result struct {
	Appends, Failed int
	RowsWritten     int64 // by the appends that succeeded
	Vacuums         int
	FilesRemoved    int // by the VACUUMs (orphans of failed appends)
	FailureKinds    map[string]int
}

// Run creates a table in st and runs cfg.Rounds rounds of cfg.Writers
// concurrent appends while VACUUM (MinAge -1, no grace) loops, then reads
// every row back. It returns an error when an append reported success and
// its rows do not read back exactly, when a failed append left rows, or
// when VACUUM or the read fails.
func Run(ctx context.Context, st store.Store, mem memory.Allocator, cfg Config, opts table.Options, logf func(string, ...any)) (*Result, error) {
	tb, err := table.Create(ctx, st, Schema, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{FailureKinds: map[string]int{}}
	r := rand.New(rand.NewPCG(cfg.Seed, 26))
	want := map[int64]int64{} // writer -> rows it reported written
	writer := int64(0)
	for round := range cfg.Rounds {
		stop := make(chan struct{})
		var vacErr error
		var vwg sync.WaitGroup
		vwg.Add(1)
		go func() {
			defer vwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
				if err != nil {
					vacErr = fmt.Errorf("vacuum: %w", err)
					return
				}
				res.Vacuums++
				res.FilesRemoved += rep.FilesDeleted + rep.TempFilesDeleted
			}
		}()
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range cfg.Writers {
			writer++
			w := writer
			n := int64(cfg.MinRows + r.IntN(cfg.MaxRows-cfg.MinRows+1))
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each writer appends to the snapshot it opened; commits
				// rebase over each other (appends commute).
				rdr := newSeqReader(mem, w, n)
				_, err := tb.Append(ctx, rdr, mem)
				rdr.Release()
				mu.Lock()
				defer mu.Unlock()
				res.Appends++
				if err != nil {
					res.Failed++
					res.FailureKinds[failureKind(err)]++
					logf("round %d: append %d of %d rows failed: %v", round, w, n, err)
					return
				}
				want[w] = n
				res.RowsWritten += n
			}()
		}
		wg.Wait()
		close(stop)
		vwg.Wait()
		if vacErr != nil {
			return res, vacErr
		}
	}
	// One more VACUUM with nothing running: it must keep every row.
	if _, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1}); err != nil {
		return res, fmt.Errorf("final vacuum: %w", err)
	}
	got, err := countByWriter(ctx, st, mem, opts)
	if err != nil {
		return res, fmt.Errorf("read back: %w", err)
	}
	for w := int64(1); w <= writer; w++ {
		if got[w] != want[w] {
			return res, fmt.Errorf("append %d: %d rows read back, %d reported written", w, got[w], want[w])
		}
	}
	return res, nil
}

func failureKind(err error) string {
	switch {
	case errors.Is(err, table.ErrMissingFile):
		return "missing file"
	case errors.Is(err, table.ErrIntentLost):
		return "intent lost"
	case errors.Is(err, table.ErrConflict):
		return "conflict"
	}
	return err.Error()
}

// countByWriter scans the latest version and counts the rows of each
// writer, checking each writer's rows are exactly 0..n-1 (by their sum).
func countByWriter(ctx context.Context, st store.Store, mem memory.Allocator, opts table.Options) (map[int64]int64, error) {
	tb, err := table.Open(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	sc, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{"k"}, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer sc.Release()
	n := map[int64]int64{}
	sum := map[int64]int64{}
	for sc.Next() {
		for _, k := range sc.RecordBatch().Column(0).(*array.Int64).Int64Values() {
			n[k>>32]++
			sum[k>>32] += k & (1<<32 - 1)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for w, c := range n {
		if sum[w] != c*(c-1)/2 {
			return nil, fmt.Errorf("append %d: its %d rows are not 0..%d", w, c, c-1)
		}
	}
	return n, nil
}

// seqReader yields rows w<<32 | i for i in [0, n), 64Ki at a time.
type seqReader struct {
	mem  memory.Allocator
	w, n int64
	next int64
	cur  arrow.RecordBatch
}

func newSeqReader(mem memory.Allocator, w, n int64) *seqReader {
	return &seqReader{mem: mem, w: w, n: n}
}

func (r *seqReader) Retain()               {}
func (r *seqReader) Schema() *arrow.Schema { return Schema }
func (r *seqReader) Err() error            { return nil }
func (r *seqReader) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
func (r *seqReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *seqReader) Record() arrow.RecordBatch      { return r.cur }
func (r *seqReader) Next() bool {
	r.Release()
	if r.next >= r.n {
		return false
	}
	m := min(r.n-r.next, 1<<16)
	b := array.NewInt64Builder(r.mem)
	defer b.Release()
	b.Reserve(int(m))
	for i := range m {
		b.UnsafeAppend(r.w<<32 | (r.next + i))
	}
	col := b.NewArray()
	defer col.Release()
	r.cur = array.NewRecordBatch(Schema, []arrow.Array{col}, m)
	r.next += m
	return true
}
