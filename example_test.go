package stablerow_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
)

// Example is the Go API of the README: the part between the README
// markers is the README's Go example, word for word (checked by
// cmd/stablerow's TestREADMEGoExample), so the README's example compiles,
// runs and prints what the Output block says.
func Example() {
	tmp, err := os.MkdirTemp("", "stablerow-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "db")

	// README:begin
	ctx := context.Background()
	db, err := engine.Open(dir, engine.Options{Mem: memory.DefaultAllocator, Create: true})
	if err != nil {
		log.Fatal(err)
	}
	// Statements run in order; Exec returns the last one's result.
	res, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, 'row' FROM generate_series(1, 1000) AS g(g);
		DELETE FROM t WHERE k = 4;
		CREATE INDEX rid ON t USING btree (_rowid)`, nil)
	if err != nil {
		log.Fatal(err)
	}
	res.Release()

	// The seed query: rows by stable row id, in the order asked, NULL for a
	// row id that is deleted or was never given out.
	const seedQuery = `SELECT v.ord, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`
	rows, err := db.Query(ctx, seedQuery, map[string]any{"ids": []int64{5, 3, 999999, 0}})
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() { // streams: memory bounded by the batch, not the result
		b := rows.Batch() // an arrow.RecordBatch, valid until the next Next
		ord, k := b.Column(0).(*array.Int64), b.Column(1).(*array.Int64)
		for i := range int(b.NumRows()) {
			if k.IsNull(i) {
				fmt.Printf("ord %d: no row\n", ord.Value(i))
			} else {
				fmt.Printf("ord %d: k = %d\n", ord.Value(i), k.Value(i))
			}
		}
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// rows.Plan() is now the plan that ran with its counters (EXPLAIN ANALYZE).
	// README:end

	// Row ids are given out from 0 in insert order, so row id r holds k =
	// r+1; row id 3 (k = 4) is deleted and 999999 was never given out.

	// Output:
	// ord 1: k = 6
	// ord 2: no row
	// ord 3: no row
	// ord 4: k = 1
}
