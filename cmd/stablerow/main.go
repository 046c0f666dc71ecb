// Command stablerow is the CLI of the stablerow library.
//
//	stablerow demo -d DIR            run the main job on an embedded local table
//	stablerow sql -d DIR [-e SQL]    run SQL (interactive prompt without -e)
//	stablerow substrait -f PLAN      run a Substrait plan (JSON or binary); -emit SQL prints one
//	stablerow inspect PATH           describe a table, a database or a .rowmap file
//	stablerow vacuum -d DIR          remove files no version references
package main

import (
	"context"
	"fmt"
	"os"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  stablerow demo [-d DIR] [-rows N] [-ids N]        the take-by-row-id job on a local table
  stablerow sql [-d DIR] [-e SQL] [-p ids=1,2,3] [-plan] [-no-index]
                                                    run SQL; without -e an interactive prompt
  stablerow substrait [-d DIR] -f PLAN [-p 1=5,3,9]  run a Substrait plan (protobuf JSON or binary)
  stablerow substrait [-d DIR] -emit 'SELECT ...'    print the Substrait JSON plan SQL lowers to
  stablerow inspect [-segments] PATH                a table or database directory (manifest,
                                                    fragments, row id segments, deletions,
                                                    indexes, versions) or a .rowmap file
  stablerow vacuum [-d DIR] [-table t] [-grace 1h] [-dry-run]
                                                    remove files no version references`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	ctx := context.Background()
	var err error
	switch os.Args[1] {
	case "demo":
		err = runDemo(ctx, os.Args[2:])
	case "sql":
		err = runSQL(ctx, os.Args[2:])
	case "substrait":
		err = runSubstrait(ctx, os.Args[2:])
	case "inspect":
		err = runInspect(ctx, os.Args[2:])
	case "vacuum":
		err = runVacuum(ctx, os.Args[2:])
	case "-h", "--help", "help":
		usage()
		return
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stablerow:", err)
		os.Exit(1)
	}
}
