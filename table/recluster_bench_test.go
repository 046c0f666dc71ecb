package table_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stablerow/stablerow/table"
)

// BenchmarkRecluster2M: reclustering 2M rows in 20 fragments by k into 10
// destinations, as 1, 2 and 4 tasks on as many local workers (each task
// reads every source, so T tasks read the sources T times and write them
// once).
func BenchmarkRecluster2M(b *testing.B) {
	const n = 2_000_000
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				tb := smallFragmentTable(b, n)
				b.StartTimer()
				nt, err := tb.Recluster(context.Background(), "k", table.ReclusterOptions{Destinations: 10, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				if len(nt.Fragments()) != 10 || nt.LiveRows() != n {
					b.Fatalf("%d fragments, %d rows", len(nt.Fragments()), nt.LiveRows())
				}
			}
		})
	}
}
