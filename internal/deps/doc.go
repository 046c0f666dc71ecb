//go:build tools

// Package deps pinned the module's dependencies in go.mod before the
// packages that use them existed (the project skeleton). Only the tools
// build tag builds it, so no binary links it. Today every dependency it
// names is imported by the packages that use it except arrow-go's
// compute/exprs, which it alone keeps in go.mod and go.sum.
package deps
