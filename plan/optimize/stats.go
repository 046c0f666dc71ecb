package optimize

// Stats is what the optimizer knows about the data: a named table's live
// row count (ok false when unknown). The engine's catalog offers it.
type Stats interface {
	TableRows(name string) (rows uint64, ok bool)
}
