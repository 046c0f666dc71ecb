// Command stablerow is the CLI of the stablerow library.
//
//	stablerow demo -d DIR        run the main job on an embedded local table
//	stablerow inspect FILE       describe a .rowmap file
package main

import (
	"context"
	"fmt"
	"os"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  stablerow demo [-d DIR] [-rows N] [-ids N]   the take-by-row-id job on a local table
  stablerow inspect FILE.rowmap                header, destinations, counts and blocks of a row map`)
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
	case "inspect":
		err = runInspect(ctx, os.Args[2:])
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
