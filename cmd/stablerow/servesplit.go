//go:build stablerow_full

package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/stablerow/stablerow/server"
)

// The flags of a take split into several endpoints (server/takesplit.go).
// They were -partitions and -partition-min-ids; those names stay as
// deprecated aliases (a warning on standard error when used), because
// "partition" names the executor's parallel streams (-threads) and a
// take's endpoints are not those.
var splitFlagAliases = map[string]string{"partitions": "max-endpoints", "partition-min-ids": "split-min-ids"}

// splitFlags declares -max-endpoints and -split-min-ids (and their
// deprecated aliases) on fs, and returns the function that checks them
// once parsed and sets them in opt.
func splitFlags(fs *flag.FlagSet) func(w io.Writer, opt *server.Options) error {
	maxEndpoints := fs.Int("max-endpoints", 8, "the most endpoints a take by bound ids is split into, each a group of fragments a client may read in parallel; 1: never split")
	minIDs := fs.Int("split-min-ids", 4096, "the fewest bound ids a take needs to be split into several endpoints; below it one endpoint serves it")
	fs.IntVar(maxEndpoints, "partitions", 8, "deprecated: -max-endpoints")
	fs.IntVar(minIDs, "partition-min-ids", 4096, "deprecated: -split-min-ids")
	return func(w io.Writer, opt *server.Options) error {
		// An error names the flag as the command line spelled it.
		spelled := map[string]string{"max-endpoints": "max-endpoints", "split-min-ids": "split-min-ids"}
		fs.Visit(func(f *flag.Flag) {
			if name, ok := splitFlagAliases[f.Name]; ok {
				spelled[name] = f.Name
				fmt.Fprintf(w, "stablerow serve: -%s is deprecated: use -%s\n", f.Name, name)
			}
		})
		for _, f := range []struct {
			name string
			v    int
		}{{"max-endpoints", *maxEndpoints}, {"split-min-ids", *minIDs}} {
			if f.v < 1 {
				return fmt.Errorf("%w: -%s %d must be at least 1", errServeArgs, spelled[f.name], f.v)
			}
		}
		opt.MaxEndpoints, opt.SplitMinIDs = *maxEndpoints, *minIDs
		return nil
	}
}
