package engine

import "github.com/stablerow/stablerow/table/store"

// SetTableStoreForTest replaces how CREATE TABLE opens the store of a
// table directory (to inject store failures) until restore is called.
func SetTableStoreForTest(f func(dir string) (store.Store, error)) (restore func()) {
	old := newTableStore
	newTableStore = f
	return func() { newTableStore = old }
}

// SetSweepHookForTest runs f after VACUUM moved an unfinished CREATE's
// directory aside and before it checks it again, until restore is called.
func SetSweepHookForTest(f func(aside string)) (restore func()) {
	old := sweepHook
	sweepHook = f
	return func() { sweepHook = old }
}
