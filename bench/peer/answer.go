package peer

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Answer is one engine's result for one Query, in a form two engines'
// results can be compared by.
type Answer interface {
	// Len is the number of result rows.
	Len() int
	// Compare returns nil when other holds exactly the same rows, else an
	// error wrapping ErrMismatch that names the first difference.
	Compare(other Answer) error
}

// TakeRows is the answer of a take: one row per requested id, in request
// order. A miss (or a deleted row) has Addr NULL.
type TakeRows struct {
	Ord       []int64  // 1-based position in the id list
	Addr      []uint64 // _rowaddr; meaningful where AddrValid
	AddrValid []bool
	// Payload and PayloadValid are nil unless the query selected t.payload.
	Payload      []float64
	PayloadValid []bool
	// NoAddr is set by an engine that has no stablerow addresses (LanceDB
	// has its own): Addr is then meaningless and only AddrValid (hit or
	// miss) is compared.
	NoAddr bool
}

var (
	_ Answer = (*TakeRows)(nil)
	_ Answer = (*KRows)(nil)
)

// Len implements Answer.
func (a *TakeRows) Len() int { return len(a.Ord) }

// Hits counts rows with a non-NULL address.
func (a *TakeRows) Hits() int {
	n := 0
	for _, v := range a.AddrValid {
		if v {
			n++
		}
	}
	return n
}

// CheckShape checks what the take contract promises whatever the data: one
// row per id, ord = 1..n in order, consistent column lengths.
func (a *TakeRows) CheckShape(nIDs int) error {
	if len(a.Ord) != nIDs {
		return fmt.Errorf("%w: %d rows for %d ids", ErrMismatch, len(a.Ord), nIDs)
	}
	if len(a.Addr) != nIDs || len(a.AddrValid) != nIDs {
		return fmt.Errorf("%w: _rowaddr has %d values, %d flags for %d rows", ErrUnexpectedSchema, len(a.Addr), len(a.AddrValid), nIDs)
	}
	if a.Payload != nil && (len(a.Payload) != nIDs || len(a.PayloadValid) != nIDs) {
		return fmt.Errorf("%w: payload has %d values, %d flags for %d rows", ErrUnexpectedSchema, len(a.Payload), len(a.PayloadValid), nIDs)
	}
	for i, o := range a.Ord {
		if o != int64(i+1) {
			return fmt.Errorf("%w: row %d has ord %d, want %d", ErrMismatch, i, o, i+1)
		}
	}
	return nil
}

// Compare implements Answer: same length, and per row the same ord, the same
// address or NULL, and (when both selected it) the same payload bits or NULL.
func (a *TakeRows) Compare(other Answer) error {
	b, ok := other.(*TakeRows)
	if !ok {
		return fmt.Errorf("%w: take answer against %T", ErrMismatch, other)
	}
	if len(a.Ord) != len(b.Ord) {
		return fmt.Errorf("%w: %d rows against %d", ErrMismatch, len(a.Ord), len(b.Ord))
	}
	if (a.Payload == nil) != (b.Payload == nil) {
		return fmt.Errorf("%w: payload selected on one side only", ErrMismatch)
	}
	for i := range a.Ord {
		if a.Ord[i] != b.Ord[i] {
			return fmt.Errorf("%w: row %d: ord %d against %d", ErrMismatch, i, a.Ord[i], b.Ord[i])
		}
		xa, xb := a.Addr[i], b.Addr[i]
		if a.NoAddr || b.NoAddr {
			xa, xb = 0, 0
		}
		if err := sameNullable(i, "_rowaddr", a.AddrValid[i], b.AddrValid[i], xa, xb); err != nil {
			return err
		}
		if a.Payload != nil {
			pa, pb := math.Float64bits(a.Payload[i]), math.Float64bits(b.Payload[i])
			if err := sameNullable(i, "payload", a.PayloadValid[i], b.PayloadValid[i], pa, pb); err != nil {
				return err
			}
		}
	}
	return nil
}

func sameNullable(row int, col string, va, vb bool, xa, xb uint64) error {
	switch {
	case va != vb:
		return fmt.Errorf("%w: row %d: %s NULL on one side only (valid %v against %v)", ErrMismatch, row, col, va, vb)
	case va && xa != xb:
		return fmt.Errorf("%w: row %d: %s %#x against %#x", ErrMismatch, row, col, xa, xb)
	}
	return nil
}

// KRows is the answer of a filter on k: a bag of (k, payload) rows in no
// particular order.
type KRows struct {
	K       []int64
	Payload []float64
}

// Len implements Answer.
func (a *KRows) Len() int { return len(a.K) }

type kRow struct {
	k int64
	p uint64 // payload bits: exact comparison, NaN-safe
}

func (a *KRows) sorted() []kRow {
	rows := make([]kRow, len(a.K))
	for i := range rows {
		rows[i] = kRow{a.K[i], math.Float64bits(a.Payload[i])}
	}
	slices.SortFunc(rows, func(x, y kRow) int {
		return cmp.Or(cmp.Compare(x.k, y.k), cmp.Compare(x.p, y.p))
	})
	return rows
}

// Compare implements Answer: the same multiset of rows, order ignored (SQL
// promises none without ORDER BY).
func (a *KRows) Compare(other Answer) error {
	b, ok := other.(*KRows)
	if !ok {
		return fmt.Errorf("%w: k answer against %T", ErrMismatch, other)
	}
	if len(a.K) != len(a.Payload) || len(b.K) != len(b.Payload) {
		return fmt.Errorf("%w: k and payload lengths differ", ErrUnexpectedSchema)
	}
	if len(a.K) != len(b.K) {
		return fmt.Errorf("%w: %d rows against %d", ErrMismatch, len(a.K), len(b.K))
	}
	ra, rb := a.sorted(), b.sorted()
	for i := range ra {
		if ra[i] != rb[i] {
			return fmt.Errorf("%w: sorted row %d: (k %d, payload %v) against (k %d, payload %v)", ErrMismatch, i,
				ra[i].k, math.Float64frombits(ra[i].p), rb[i].k, math.Float64frombits(rb[i].p))
		}
	}
	return nil
}
