// Package gcstart holds back a short-lived process's first garbage
// collection: importing it (for its side effect) turns the first
// collection off until the process's Go memory reaches Heap, then hands
// pacing back to GOGC and GOMEMLIMIT as the environment set them.
//
// It works at package initialization, not from main, because the other
// packages' initialization is where the first collection used to start:
// stablerow's dependencies allocate ~3.3 MB in their init functions, the
// default first goal is 4 MB, so a cycle began as main was entered and ran
// its mark phase (18-35 ms of clock on a loaded machine, write barriers and
// assists on the main goroutine) through a `stablerow sql -e` run that
// then allocates ~4 MB more and exits.
//
// Go initializes packages in import path order among those whose imports
// are done. This package imports only runtime, sync and unsafe (it reaches
// runtime/debug's two setters by their runtime names: gcstart.go says why),
// so it runs ~11th of the CLI's 276 initializers, before any heavy one.
// Package warm imports it, so the warm-up's allocations come after it too.
//
// Only package main of cmd/stablerow imports it: a library must not change
// its importer's collector.
package gcstart
