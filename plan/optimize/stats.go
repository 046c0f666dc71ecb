package optimize

// Stats is what the optimizer knows about the data: a named table's live
// row count (ok false when unknown). The engine's catalog offers it.
type Stats interface {
	TableRows(name string) (rows uint64, ok bool)
}

// ZoneReader is Stats that also knows a numeric table column's zone
// map (the engine's catalog: table.Manifest.ColumnRanges): per batch,
// its rows, nulls and bounds. The estimator reads it for the fraction of
// rows a constant range keeps (rangeKeeps) and for the range of a join
// key's values that pass a relation's filters (keySpan, cost.go's
// containment). ok is false when unknown: the estimator keeps its fixed
// guesses.
type ZoneReader interface {
	ColumnZones(table, column string) (ColumnZones, bool)
}

// ColumnZones is a column's zone map: its batches in storage order.
// Integral: the values are integers (a range [a, b] holds b-a+1 of them).
type ColumnZones struct {
	Batches  []Zone
	Integral bool
}

// Zone is one batch of a column: its rows and nulls, and its values'
// bounds when Bounded (not all null).
type Zone struct {
	Rows, Nulls float64
	Min, Max    float64
	Bounded     bool
}
