//go:build stablerow_full

package main

// The full build (go build -tags stablerow_full -o stablerow-full): every
// subcommand, with the Flight SQL server (serve.go), the S3 store
// (engine/s3db) and the terminal line editor (lineinput_liner.go). The
// default build, the query path, leaves those three out and runs this one
// for what needs them (lean.go, execfull.go).

import _ "github.com/stablerow/stablerow/engine/s3db" // s3:// locations

// fullBuild: this binary serves, opens s3:// and edits lines itself.
const fullBuild = true
