package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/stablerow/stablerow/engine"
)

// runSubstrait runs a Substrait plan file (JSON or binary), or with -emit
// prints the plan SQL lowers to.
func runSubstrait(ctx context.Context, args []string) error {
	fs := newFlags("substrait", "substrait [-d DIR] -f PLAN [-p 1=5,3,9] | -emit SQL: run a Substrait plan (protobuf JSON or binary), or print the one SQL lowers to")
	dir := fs.String("d", ".stablerow", "database directory")
	file := fs.String("f", "", "plan file to run (protobuf JSON or binary)")
	emit := fs.String("emit", "", "print the Substrait JSON plan of this SELECT instead")
	noIdx := fs.Bool("no-index", false, "plan without indexes")
	var opt sqlOptions
	output := outputFlags(fs, &opt)
	debugFlag(fs)
	params := paramFlags{}
	fs.Var(params, "p", "bind parameter $k by number: -p 1=5,3,9, -p 1=5 or -p 1=@FILE (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	bound := map[int]any{}
	for name, v := range params {
		k, err := strconv.Atoi(name)
		if err != nil || k < 1 {
			return usageError{fmt.Errorf("substrait: parameters are bound by number (-p 1=...), got %q", name)}
		}
		bound[k] = v
	}
	out, closeOut, err := output()
	if err != nil {
		return err
	}
	err = substraitOn(ctx, *dir, *noIdx, *emit, *file, bound, opt, out)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

func substraitOn(ctx context.Context, dir string, noIdx bool, emit, file string, bound map[int]any, opt sqlOptions, out io.Writer) error {
	db, err := openDB(dir, engine.Options{DisableIndexes: noIdx}, "stablerow sql -create makes one")
	if err != nil {
		return err
	}
	if emit != "" {
		js, names, err := db.SubstraitOf(ctx, emit)
		if err != nil {
			return err
		}
		out.Write(js)
		fmt.Fprintln(out)
		for i, n := range names {
			fmt.Fprintf(os.Stderr, "parameter $%d = :%s\n", i+1, n)
		}
		return nil
	}
	if file == "" {
		return usageError{fmt.Errorf("substrait: give -f PLAN or -emit SQL")}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	start := time.Now()
	rows, err := db.QuerySubstrait(ctx, data, bound)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := printRows(out, rows, opt); err != nil {
		return err
	}
	status := opt.statusTo(out)
	fmt.Fprint(status, rows.Plan())
	fmt.Fprintf(status, "time: %s\n", time.Since(start).Round(time.Microsecond))
	return nil
}
