// Package errkind holds the few kinds of failure that every layer of
// stablerow shares, so a caller can ask one question of any error from any
// package: errors.Is(err, errkind.Corrupt).
//
// Each package keeps its own sentinels (rowmap.ErrCorrupt, table.ErrCorrupt,
// btree.ErrCorrupt, ...) because their messages name where the failure was
// found; New makes such a sentinel also match its kind. A sentinel is still
// matched by identity, so errors.Is(err, table.ErrCorrupt) keeps working:
//
//	ErrCorrupt = errkind.New(errkind.Corrupt, "table: corrupt file")
//
//	errors.Is(fmt.Errorf("read x: %w", ErrCorrupt), ErrCorrupt)       // true
//	errors.Is(fmt.Errorf("read x: %w", ErrCorrupt), errkind.Corrupt)  // true
//
// For a person rather than a program, Message drops the sentinels' texts
// that each layer's %w stacks in front of a message, and Located marks an
// error with the line and column of the statement it was found at, so a
// CLI can echo that line with a caret; neither changes err.Error() nor
// what errors.Is matches.
//
// The kinds map one to one onto what a client is told (the CLI's exit
// status, a server's status code): a kind is a promise about what the caller
// can do next, not a description of the bug.
package errkind
