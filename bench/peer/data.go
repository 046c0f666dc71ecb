package peer

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// kMul is odd, so multiplying by it is a bijection modulo 2^63: K never maps
// two rows to one key, and K(i) for i >= rows is a key the table lacks.
const kMul = 0x9E3779B97F4A7C15

// K is the user key of generated row i: unique and scattered, so an IN-list
// on k touches rows all over the table.
func K(i uint64) int64 { return int64((i * kMul) & (1<<63 - 1)) }

// Payload is the payload of generated row i, uniform in [0, 1).
func Payload(i uint64) float64 { return float64(mix64(i)>>11) / (1 << 53) }

// mix64 is the splitmix64 finalizer: cheap, deterministic, well spread.
func mix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// UserSchema is the schema of t as created: the user columns only.
var UserSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "payload", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// GenBatch builds generated rows [lo, hi) as a UserSchema batch. The caller
// releases it.
func GenBatch(mem memory.Allocator, lo, hi uint64) (arrow.RecordBatch, error) {
	if hi < lo {
		return nil, fmt.Errorf("peer: rows [%d, %d): %w", lo, hi, ErrInvalidArgument)
	}
	kb := array.NewInt64Builder(mem)
	defer kb.Release()
	pb := array.NewFloat64Builder(mem)
	defer pb.Release()
	n := int(hi - lo)
	kb.Reserve(n)
	pb.Reserve(n)
	for i := lo; i < hi; i++ {
		kb.UnsafeAppend(K(i))
		pb.UnsafeAppend(Payload(i))
	}
	ka, pa := kb.NewArray(), pb.NewArray()
	defer ka.Release()
	defer pa.Release()
	return array.NewRecordBatch(UserSchema, []arrow.Array{ka, pa}, int64(n)), nil
}

// Table is t as the engines hold it: one entry per live row, in scan order.
// It is what DuckDB is loaded from and what id lists are drawn from.
type Table struct {
	RowID   []uint64
	RowAddr []uint64
	K       []int64
	Payload []float64
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.RowID) }

// Validate checks that the columns have one length and row ids are unique.
func (t *Table) Validate() error {
	n := len(t.RowID)
	if len(t.RowAddr) != n || len(t.K) != n || len(t.Payload) != n {
		return fmt.Errorf("peer: table columns of lengths %d/%d/%d/%d: %w",
			n, len(t.RowAddr), len(t.K), len(t.Payload), ErrInvalidArgument)
	}
	// Row ids are dense from 0 here, so a bitset is the cheap uniqueness
	// test; sparse ids fall back to sorting a copy.
	if top := t.MaxRowID(); top < uint64(4*n+64) {
		seen := make([]uint64, top/64+1)
		for _, id := range t.RowID {
			w, b := id/64, uint64(1)<<(id%64)
			if seen[w]&b != 0 {
				return fmt.Errorf("peer: row id %d twice: %w", id, ErrInvalidArgument)
			}
			seen[w] |= b
		}
		return nil
	}
	ids := slices.Clone(t.RowID)
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return fmt.Errorf("peer: row id %d twice: %w", ids[i], ErrInvalidArgument)
		}
	}
	return nil
}

// MaxRowID is the largest row id (0 for an empty table).
func (t *Table) MaxRowID() uint64 {
	var m uint64
	for _, id := range t.RowID {
		m = max(m, id)
	}
	return m
}

// SyntheticTable is the table stablerow builds from rows generated rows
// appended in fragments of fragRows, with row ids 0..rows-1 and addresses
// fragment<<32 | offset, computed instead of read back. Tests use it to check
// an engine without building a stablerow table.
func SyntheticTable(rows, fragRows uint64) *Table {
	t := &Table{
		RowID:   make([]uint64, rows),
		RowAddr: make([]uint64, rows),
		K:       make([]int64, rows),
		Payload: make([]float64, rows),
	}
	for i := range rows {
		t.RowID[i] = i
		t.RowAddr[i] = (i/fragRows)<<32 | i%fragRows
		t.K[i] = K(i)
		t.Payload[i] = Payload(i)
	}
	return t
}
