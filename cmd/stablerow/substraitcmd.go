package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/stablerow/stablerow/engine"
)

// runSubstrait runs a Substrait plan file (JSON or binary), or with -emit
// prints the plan SQL lowers to.
func runSubstrait(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("substrait", flag.ContinueOnError)
	dir := fs.String("d", ".stablerow", "database directory")
	file := fs.String("f", "", "plan file to run (protobuf JSON or binary)")
	emit := fs.String("emit", "", "print the Substrait JSON plan of this SELECT instead")
	noIdx := fs.Bool("no-index", false, "plan without indexes")
	params := paramFlags{}
	fs.Var(params, "p", "bind parameter $k by number: -p 1=5,3,9 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := engine.Open(*dir, engine.Options{DisableIndexes: *noIdx})
	if err != nil {
		return err
	}
	if *emit != "" {
		js, names, err := db.SubstraitOf(ctx, *emit)
		if err != nil {
			return err
		}
		os.Stdout.Write(js)
		fmt.Println()
		for i, n := range names {
			fmt.Fprintf(os.Stderr, "parameter $%d = :%s\n", i+1, n)
		}
		return nil
	}
	if *file == "" {
		return fmt.Errorf("substrait: give -f PLAN or -emit SQL")
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	bound := map[int]any{}
	for name, v := range params {
		k, err := strconv.Atoi(name)
		if err != nil || k < 1 {
			return fmt.Errorf("substrait: parameters are bound by number (-p 1=...), got %q", name)
		}
		bound[k] = v
	}
	start := time.Now()
	res, err := db.ExecSubstrait(ctx, data, bound)
	if err != nil {
		return err
	}
	defer res.Release()
	printResult(os.Stdout, res, 50)
	fmt.Print(res.Plan)
	fmt.Printf("time: %s\n", time.Since(start).Round(time.Microsecond))
	return nil
}
