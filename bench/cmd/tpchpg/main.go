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
