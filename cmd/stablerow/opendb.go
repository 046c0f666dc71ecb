package main

import (
	"errors"
	"fmt"

	"github.com/stablerow/stablerow/engine"
)

// openDB opens the database of -d. A directory that does not exist is an
// error (engine.ErrNoDatabase, exit status 1), not a new empty database:
// only `sql -create` and `demo` create one. hint says how to create it.
func openDB(dir string, opt engine.Options, hint string) (*engine.DB, error) {
	db, err := engine.Open(dir, opt)
	if errors.Is(err, engine.ErrNoDatabase) && hint != "" {
		return nil, fmt.Errorf("%w (%s)", err, hint)
	}
	return db, err
}
