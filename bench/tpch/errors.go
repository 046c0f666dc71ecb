package tpch

import "github.com/stablerow/stablerow/errkind"

// ErrUnexpectedType: a result column of a type the comparison does not
// read.
var ErrUnexpectedType = errkind.New(errkind.Unsupported, "tpch: unexpected result type")
