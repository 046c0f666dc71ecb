package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/server"
)

const seed = `SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
	LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// unordered is the seed query without ORDER BY: the server partitions it
// (a statement that asks for an order keeps one ordered endpoint).
const unordered = `SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
	LEFT JOIN t ON t._rowid = v.rowid`

// config is the command line.
type config struct {
	sizes, idCounts, clientCounts []int
	runs                          int
	dur                           time.Duration
	partIDs, readers              []int
	partitions, fragments         int
}

func main() {
	rows := flag.String("rows", "1000000", "table sizes, comma-separated")
	idsFlag := flag.String("ids", "10000,1000000", "id counts of the seed query, comma-separated")
	clients := flag.String("clients", "1,4,16", "concurrent client counts")
	runs := flag.Int("runs", 5, "timed runs per case (median)")
	dur := flag.Duration("duration", 5*time.Second, "how long each concurrency case runs")
	partIDs := flag.String("partids", "1000000", "id counts of the partitioned take, comma-separated (empty: none)")
	readers := flag.String("readers", "1,2,4", "concurrent partition readers")
	partitions := flag.Int("max-endpoints", 4, "the server's most endpoints per take (server.Options.MaxEndpoints)")
	flag.IntVar(partitions, "partitions", 4, "deprecated: -max-endpoints")
	fragments := flag.Int("fragments", 8, "appends that build the table (its fragments)")
	flag.Parse()
	if err := run(config{sizes: ints(*rows), idCounts: ints(*idsFlag), clientCounts: ints(*clients), runs: *runs, dur: *dur,
		partIDs: ints(*partIDs), readers: ints(*readers), partitions: *partitions, fragments: *fragments}); err != nil {
		fmt.Fprintln(os.Stderr, "flightbench:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(os.Stderr, "flightbench: bad number %q\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func run(cfg config) error {
	ctx := context.Background()
	sizes, idCounts, clientCounts, runs, dur := cfg.sizes, cfg.idCounts, cfg.clientCounts, cfg.runs, cfg.dur
	fmt.Printf("| rows | ids | in process | Flight SQL | Flight SQL / in process |\n| --- | --- | --- | --- | --- |\n")
	var conc, parts []string
	for _, n := range sizes {
		dir, err := os.MkdirTemp("", "flightbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db, err := engine.Open(dir, engine.Options{})
		if err != nil {
			return err
		}
		t0 := time.Now()
		if err := build(ctx, db, n, cfg.fragments); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "built %d rows in %s\n", n, time.Since(t0).Round(time.Millisecond))

		srv, err := server.New(db, server.Options{MaxEndpoints: cfg.partitions})
		if err != nil {
			return err
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		go srv.Serve(lis)
		addr := lis.Addr().String()

		cl, err := newClient(ctx, addr)
		if err != nil {
			return err
		}
		for _, k := range idCounts {
			ids := someIDs(k, n, uint64(k))
			local, err := inProcess(ctx, db, ids)
			if err != nil {
				return err
			}
			remote, err := cl.take(ctx, ids)
			if err != nil {
				return err
			}
			if local != remote {
				return fmt.Errorf("%d ids: in process %+v, Flight SQL %+v", k, local, remote)
			}
			tl, tr := medians(runs,
				func() error { _, err := inProcess(ctx, db, ids); return err },
				func() error { _, err := cl.take(ctx, ids); return err })
			fmt.Printf("| %d | %d | %s | %s | %.2f |\n", n, k, tl.Round(10*time.Microsecond), tr.Round(10*time.Microsecond), float64(tr)/float64(tl))
		}
		cl.close()

		for _, k := range cfg.partIDs {
			lines, err := partitioned(ctx, db, addr, n, k, cfg)
			if err != nil {
				return err
			}
			parts = append(parts, lines...)
		}

		for _, c := range clientCounts {
			q, err := concurrent(ctx, addr, n, c, dur)
			if err != nil {
				return err
			}
			conc = append(conc, fmt.Sprintf("| %d | %d | %.1f | %.0f |", n, c, q, q*10000))
		}
		srv.Shutdown()
	}
	fmt.Printf("\nConcurrent clients, each taking 10K ids in a loop for %s:\n\n| rows | clients | queries/s | ids/s |\n| --- | --- | --- | --- |\n", dur)
	for _, l := range conc {
		fmt.Println(l)
	}
	if len(parts) > 0 {
		fmt.Printf("\nPartitioned take (the seed query without ORDER BY, at most %d endpoints), partitions read by R goroutines at once;\n"+
			"one endpoint is the same take with ORDER BY v.ord (one ordered stream):\n\n"+
			"| rows | ids | endpoints | readers | GetFlightInfo | total | one endpoint | one endpoint / total |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n", cfg.partitions)
		for _, l := range parts {
			fmt.Println(l)
		}
	}
	return nil
}

// build makes t(k, payload) of n rows in the given number of appends (so
// as many fragments) and indexes _rowid.
func build(ctx context.Context, db *engine.DB, n, appends int) error {
	if _, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, payload FLOAT8)", nil); err != nil {
		return err
	}
	appends = max(appends, 1)
	for i := range appends {
		lo, hi := n*i/appends, n*(i+1)/appends-1
		if hi < lo {
			continue
		}
		if _, err := db.Exec(ctx, fmt.Sprintf("INSERT INTO t SELECT g, g * 0.5 FROM generate_series(%d, %d) AS g(g)", lo, hi), nil); err != nil {
			return err
		}
	}
	_, err := db.Exec(ctx, "CREATE INDEX rid ON t USING btree (_rowid)", nil)
	return err
}

// partitioned measures the partitioned take of k ids with each reader
// count: GetFlightInfo (binding, resolving and grouping the ids) and the
// whole take (that plus reading every partition), medians of cfg.runs,
// next to the same take as one ordered endpoint.
func partitioned(ctx context.Context, db *engine.DB, addr string, n, k int, cfg config) ([]string, error) {
	ids := someIDs(k, n, uint64(k)+17)
	local, err := inProcess(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	pc, err := newClientOf(ctx, addr, unordered)
	if err != nil {
		return nil, err
	}
	defer pc.close()
	oc, err := newClientOf(ctx, addr, seed)
	if err != nil {
		return nil, err
	}
	defer oc.close()
	var lines []string
	for _, r := range cfg.readers {
		a, eps, _, err := pc.takeParts(ctx, ids, r)
		if err != nil {
			return nil, err
		}
		if a != local {
			return nil, fmt.Errorf("%d ids, %d readers: in process %+v, partitions %+v", k, r, local, a)
		}
		var plan []time.Duration
		one, total := medians(cfg.runs,
			func() error { _, err := oc.take(ctx, ids); return err },
			func() error {
				_, _, p, err := pc.takeParts(ctx, ids, r)
				plan = append(plan, p)
				return err
			})
		slices.Sort(plan)
		lines = append(lines, fmt.Sprintf("| %d | %d | %d | %d | %s | %s | %s | %.2f |", n, k, eps, r,
			plan[len(plan)/2].Round(100*time.Microsecond), total.Round(100*time.Microsecond), one.Round(100*time.Microsecond),
			float64(one)/float64(total)))
	}
	return lines, nil
}

// answer summarises a take's result for the check both paths agree: the
// rows, the misses (NULL _rowaddr), and sums over ord and address.
type answer struct{ rows, nulls, ordSum, addrSum int64 }

func (a *answer) add(b arrow.RecordBatch) {
	ord := b.Column(0).(*array.Int64)
	addr := b.Column(1)
	for i := 0; i < int(b.NumRows()); i++ {
		a.rows++
		a.ordSum += ord.Value(i)
		if addr.IsNull(i) {
			a.nulls++
			continue
		}
		switch c := addr.(type) {
		case *array.Uint64:
			a.addrSum += int64(c.Value(i))
		case *array.Int64:
			a.addrSum += c.Value(i)
		}
	}
}

func inProcess(ctx context.Context, db *engine.DB, ids []int64) (answer, error) {
	var a answer
	rows, err := db.Query(ctx, seed, map[string]any{"ids": ids})
	if err != nil {
		return a, err
	}
	defer rows.Close()
	for rows.Next() {
		a.add(rows.Batch())
	}
	return a, rows.Close()
}

// client is one Flight SQL connection with the seed query prepared.
type client struct {
	cl   *flightsql.Client
	prep *flightsql.PreparedStatement
}

func newClient(ctx context.Context, addr string) (*client, error) {
	return newClientOf(ctx, addr, seed)
}

// newClientOf connects and prepares query.
func newClientOf(ctx context.Context, addr, query string) (*client, error) {
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		return nil, err
	}
	prep, err := cl.Prepare(ctx, query)
	if err != nil {
		cl.Close()
		return nil, err
	}
	return &client{cl: cl, prep: prep}, nil
}

func (c *client) close() {
	c.prep.Close(context.Background())
	c.cl.Close()
}

// bind binds ids as one list<int64>.
func (c *client) bind(ids []int64) {
	b := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64)
	b.Append(true)
	b.ValueBuilder().(*array.Int64Builder).AppendValues(ids, nil)
	l := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "ids", Type: l.DataType()}}, nil), []arrow.Array{l}, 1)
	l.Release()
	c.prep.SetParameters(rec)
	rec.Release()
}

// takeParts binds ids, executes, and reads the endpoints with up to
// readers DoGets at once; it returns the answer, the number of endpoints
// and how long Execute (GetFlightInfo) took.
func (c *client) takeParts(ctx context.Context, ids []int64, readers int) (answer, int, time.Duration, error) {
	t0 := time.Now()
	c.bind(ids)
	info, err := c.prep.Execute(ctx)
	plan := time.Since(t0)
	if err != nil {
		return answer{}, 0, 0, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total answer
		first error
	)
	next := make(chan int, len(info.Endpoint))
	for i := range info.Endpoint {
		next <- i
	}
	close(next)
	for range min(readers, len(info.Endpoint)) {
		wg.Go(func() {
			var a answer
			var err error
			for i := range next {
				var rdr *flight.Reader
				if rdr, err = c.cl.DoGet(ctx, info.Endpoint[i].Ticket); err != nil {
					break
				}
				for rdr.Next() {
					a.add(rdr.RecordBatch())
				}
				err = rdr.Err()
				rdr.Release()
				if err != nil {
					break
				}
			}
			mu.Lock()
			total.rows += a.rows
			total.nulls += a.nulls
			total.ordSum += a.ordSum
			total.addrSum += a.addrSum
			if err != nil && first == nil {
				first = err
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return total, len(info.Endpoint), plan, first
}

// take binds ids as one list<int64>, executes and reads every batch.
func (c *client) take(ctx context.Context, ids []int64) (answer, error) {
	var a answer
	c.bind(ids)
	info, err := c.prep.Execute(ctx)
	if err != nil {
		return a, err
	}
	for _, e := range info.Endpoint {
		rdr, err := c.cl.DoGet(ctx, e.Ticket)
		if err != nil {
			return a, err
		}
		for rdr.Next() {
			a.add(rdr.RecordBatch())
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return a, err
		}
	}
	return a, nil
}

// concurrent runs n clients taking 10K ids each in a loop for d and
// returns the queries per second of all of them.
func concurrent(ctx context.Context, addr string, rows, n int, d time.Duration) (float64, error) {
	cls := make([]*client, n)
	for i := range cls {
		c, err := newClient(ctx, addr)
		if err != nil {
			return 0, err
		}
		defer c.close()
		cls[i] = c
	}
	var (
		done  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	stop := time.Now().Add(d)
	t0 := time.Now()
	for i, c := range cls {
		wg.Go(func() {
			ids := someIDs(10000, rows, uint64(1000+i))
			for time.Now().Before(stop) {
				if _, err := c.take(ctx, ids); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return 0, first
	}
	return float64(done.Load()) / time.Since(t0).Seconds(), nil
}

// someIDs are k ids over a table of n rows, random, ~5% misses past the end.
func someIDs(k, n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 7))
	ids := make([]int64, k)
	for i := range ids {
		ids[i] = r.Int64N(int64(n) + int64(n)/20)
	}
	return ids
}

// medians times a and b runs times each, alternating which goes first
// so both see the same machine (GC before each run), and returns their
// medians.
func medians(runs int, a, b func() error) (time.Duration, time.Duration) {
	var ta, tb []time.Duration
	for i := range runs {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, j := range order {
			f := a
			if j == 1 {
				f = b
			}
			runtime.GC()
			t0 := time.Now()
			if err := f(); err != nil {
				fmt.Fprintln(os.Stderr, "flightbench:", err)
				os.Exit(1)
			}
			if d := time.Since(t0); j == 0 {
				ta = append(ta, d)
			} else {
				tb = append(tb, d)
			}
		}
	}
	slices.Sort(ta)
	slices.Sort(tb)
	return ta[len(ta)/2], tb[len(tb)/2]
}
