// Command tpchpg writes TPC-H data for PostgreSQL: the generator's
// tables at a scale factor as tab-separated files in PostgreSQL's text
// form, and load.sql, which creates the tables with the specification's
// column types and copies the files in (tpch.Generator.WritePGLoad).
// plan/testdata/producers/tpch-pg/answers.sh runs it to have PostgreSQL
// answer the consumer test suite's SQL over the data the engine reads.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/stablerow/stablerow/bench/tpch"
)

func main() {
	sf := flag.Float64("sf", 0.01, "scale factor")
	dir := flag.String("dir", ".", "output directory")
	flag.Parse()
	if err := tpch.NewGenerator(*sf, 1, nil).WritePGLoad(context.Background(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "tpchpg:", err)
		os.Exit(1)
	}
}
