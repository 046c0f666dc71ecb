package engine

import "github.com/stablerow/stablerow/table/store"

// SetTableStoreForTest replaces how CREATE TABLE opens the store of a
// table directory (to inject store failures) until restore is called.
func SetTableStoreForTest(f func(dir string) (store.Store, error)) (restore func()) {
	old := newTableStore
	newTableStore = f
	return func() { newTableStore = old }
}
