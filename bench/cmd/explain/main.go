package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/bench/tpcds"
	"github.com/stablerow/stablerow/bench/tpch"
	"github.com/stablerow/stablerow/engine"
)

func main() {
	suite := flag.String("suite", "tpch", "tpch or tpcds")
	dir := flag.String("dir", "", "the directory of the suite's Parquet files (one scale, e.g. /work/tpcdsdata/sf1-seed1)")
	sf := flag.Float64("sf", 1, "scale factor (TPC-H's Q11 fraction)")
	qs := flag.String("q", "", "queries, e.g. 1,6,14 (default all)")
	analyze := flag.Bool("analyze", false, "EXPLAIN ANALYZE: run each query, actual rows beside the estimates")
	threads := flag.Int("threads", 1, "stablerow's threads")
	flag.Parse()
	ctx := context.Background()
	want := map[int]bool{}
	for _, s := range strings.Split(*qs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				log.Fatalf("-q: %v", err)
			}
			want[n] = true
		}
	}
	type query struct {
		n   int
		sql string
	}
	var queries []query
	var db *engine.DB
	switch *suite {
	case "tpch":
		s, err := tpch.OpenSrow(ctx, *dir, "", tpch.DDLSpec, memory.DefaultAllocator)
		if err != nil {
			log.Fatal(err)
		}
		db = s.DB
		all, err := tpch.Queries(*sf)
		if err != nil {
			log.Fatal(err)
		}
		for _, q := range all {
			queries = append(queries, query{q.N, q.SQL})
		}
	case "tpcds":
		s, err := tpcds.OpenSrow(ctx, *dir, *threads, memory.DefaultAllocator)
		if err != nil {
			log.Fatal(err)
		}
		db = s.DB
		all, err := tpcds.Queries()
		if err != nil {
			log.Fatal(err)
		}
		for _, q := range all {
			queries = append(queries, query{q.N, q.SQL})
		}
	default:
		log.Fatalf("-suite: %q is neither tpch nor tpcds", *suite)
	}
	if err := db.SetThreads(*threads); err != nil {
		log.Fatal(err)
	}
	prefix := "EXPLAIN "
	if *analyze {
		prefix = "EXPLAIN ANALYZE "
	}
	for _, q := range queries {
		if len(want) > 0 && !want[q.n] {
			continue
		}
		fmt.Printf("== Q%d\n", q.n)
		rows, err := db.Query(ctx, prefix+q.sql, nil)
		if err != nil {
			fmt.Printf("error: %v\n", err)
			continue
		}
		for rows.Next() {
			b := rows.Batch()
			for i := 0; i < int(b.NumRows()); i++ {
				for c := 0; c < int(b.NumCols()); c++ {
					fmt.Println(b.Column(c).ValueStr(i))
				}
			}
		}
		if err := rows.Err(); err != nil {
			fmt.Printf("error: %v\n", err)
		}
		rows.Close()
	}
}
