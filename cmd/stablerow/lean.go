//go:build !stablerow_full

package main

import (
	"context"
	"os"
)

// The default build is the query path: `stablerow sql -e`, `substrait`,
// `demo`, `inspect` and `vacuum` on local databases, `version`, `help`. It
// links neither the Flight SQL server (package server, flightsql), nor the
// S3 store (s3store and the AWS SDK: 113 packages), nor the line editor:
// 127 packages whose initialization ran at every start (about 1 ms and
// 5,600 allocations by inittrace) and 14 MB more binary to page in, for
// commands that use none of them. (gRPC's client side and Flight's
// generated protobufs stay: Parquet's pqarrow imports them, and any
// statement may read Parquet.) What needs them runs the full build,
// stablerow-full beside this binary (execfull.go): a process that serves
// or edits lines at a terminal lives long enough that one more exec is
// nothing.

// fullBuild: this binary runs stablerow-full for serve, s3:// locations
// and a prompt on a terminal.
const fullBuild = false

// runServe is `stablerow serve`, which the full build runs (main execs it
// before dispatch; this is reached only if that check is bypassed).
func runServe(_ context.Context, args []string) error {
	return execFull(append([]string{"serve"}, args...))
}

// newLinerReader is not reached here (runSQL execs the full build for a
// prompt on a terminal before it opens the database); a plain reader that
// shows prompts keeps the session usable if it is.
func newLinerReader() lineReader { return newPlainReader(os.Stdin, os.Stdout, true) }
