package main

import (
	"fmt"
	"io"
	"runtime"
	rdebug "runtime/debug"
)

// printVersion prints what build this is, from what the Go toolchain
// recorded in the binary: the module version (a tag when installed with
// `go install …@vX`, "(devel)" when built in a checkout) and, for a
// checkout, the commit, its time and whether the tree had changes. No
// version string is kept by hand, so it cannot go stale.
//
//	stablerow (devel) 8d4247f3a9c1 2026-12-05T23:58:10Z+dirty go1.26.8 linux/amd64
func printVersion(w io.Writer) {
	version, rev, when, dirty := "(unknown)", "", "", false
	if bi, ok := rdebug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "stablerow " + version
	if rev != "" {
		line += " " + rev[:min(12, len(rev))]
		if when != "" {
			line += " " + when
		}
		if dirty {
			line += "+dirty"
		}
	}
	fmt.Fprintf(w, "%s %s %s/%s\n", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
