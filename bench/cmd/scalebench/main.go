package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type config struct {
	rows       []int
	dir        string
	out, plot  string
	versitygw  string
	s3rows     []int
	runs       int
	buildOnly  bool
	seed       uint64
	rowmapRows int
}

func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func main() {
	// The cold take runs in a child process: this binary again.
	if len(os.Args) > 1 {
		child := map[string]func([]string) error{"cold-child": coldChild, "warm-child": warmChild}[os.Args[1]]
		if child != nil {
			if err := child(os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "scalebench %s: %v\n", os.Args[1], err)
				os.Exit(1)
			}
			return
		}
	}
	fs := flag.NewFlagSet("scalebench", flag.ExitOnError)
	rows := fs.String("rows", "1000000,10000000,100000000", "table sizes, comma-separated")
	s3rows := fs.String("s3-rows", "1000000,10000000", "table sizes measured on S3 too (with -versitygw)")
	c := &config{}
	fs.StringVar(&c.dir, "dir", "scale-tables", "directory of the tables (kept and reused)")
	fs.StringVar(&c.out, "out", "", "write the markdown report here too")
	fs.StringVar(&c.plot, "plot", "", "write the PNG plot here")
	fs.StringVar(&c.versitygw, "versitygw", "", "versitygw binary: also measure on S3 against it")
	fs.IntVar(&c.runs, "runs", 5, "timed runs per measurement (3 for 1M ids)")
	fs.BoolVar(&c.buildOnly, "build-only", false, "build the missing tables and stop")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the id lists")
	fs.IntVar(&c.rowmapRows, "rowmap-rows", 1_000_000, "rows of the table reclustered to size a rowmap")
	replot := fs.String("replot", "", "redraw -plot from the figures a run wrote (its -out with .json) and stop")
	_ = fs.Parse(os.Args[1:])
	var err error
	if c.rows, err = parseInts(*rows); err == nil {
		c.s3rows, err = parseInts(*s3rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(2)
	}
	if *replot != "" {
		b, err := os.ReadFile(*replot)
		var results []*result
		if err == nil {
			err = json.Unmarshal(b, &results)
		}
		if err == nil {
			err = writePlot(c.plot, results)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scalebench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}
