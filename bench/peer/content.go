package peer

import (
	"fmt"
	"math"
)

// ContentSQL is the content check of a take over list parameter param: for
// each id, in request order, the row's user columns (k, payload), NULL for a
// miss. It is what every engine, whatever its notion of a row address, must
// answer identically, and what Model predicts from the generator alone.
func ContentSQL(param string) string {
	return "SELECT v.ord, t.k, t.payload FROM UNNEST(" + param + ") WITH ORDINALITY AS v(rowid, ord) " +
		"LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord"
}

// ContentRows is the answer of a KindContent query: one row per requested
// id, in request order; Valid is false for a miss (k and payload NULL).
type ContentRows struct {
	Ord     []int64
	K       []int64
	Payload []float64
	Valid   []bool
}

var _ Answer = (*ContentRows)(nil)

// Len implements Answer.
func (a *ContentRows) Len() int { return len(a.Ord) }

// Compare implements Answer: the same rows in the same order, k equal and
// payload bit-equal where valid, the same misses.
func (a *ContentRows) Compare(other Answer) error {
	b, ok := other.(*ContentRows)
	if !ok {
		return fmt.Errorf("%w: content answer against %T", ErrMismatch, other)
	}
	n := len(a.Ord)
	if len(a.K) != n || len(a.Payload) != n || len(a.Valid) != n ||
		len(b.K) != len(b.Ord) || len(b.Payload) != len(b.Ord) || len(b.Valid) != len(b.Ord) {
		return fmt.Errorf("%w: content columns of different lengths", ErrUnexpectedSchema)
	}
	if n != len(b.Ord) {
		return fmt.Errorf("%w: %d rows against %d", ErrMismatch, n, len(b.Ord))
	}
	for i := range n {
		switch {
		case a.Ord[i] != b.Ord[i]:
			return fmt.Errorf("%w: row %d: ord %d against %d", ErrMismatch, i, a.Ord[i], b.Ord[i])
		case a.Valid[i] != b.Valid[i]:
			return fmt.Errorf("%w: row %d: a miss on one side only (hit %v against %v)", ErrMismatch, i, a.Valid[i], b.Valid[i])
		case !a.Valid[i]:
		case a.K[i] != b.K[i]:
			return fmt.Errorf("%w: row %d: k %d against %d", ErrMismatch, i, a.K[i], b.K[i])
		case math.Float64bits(a.Payload[i]) != math.Float64bits(b.Payload[i]):
			return fmt.Errorf("%w: row %d: payload %v against %v", ErrMismatch, i, a.Payload[i], b.Payload[i])
		}
	}
	return nil
}

// Model is what the table holds, derived from the generator alone (never
// from an engine): rows [0, Generated) were appended in one go, so row i
// has row id i; Deleted says whether `DELETE FROM t WHERE DeletePredicate`
// has run since. Rewrites that keep content and row ids (recluster,
// compaction, an UPDATE that sets a column to itself) do not change it.
// It is the independent oracle of the differential check: an engine's
// answer is compared with Model's, not only with another engine's.
type Model struct {
	Generated uint64
	Deleted   bool
}

// Live reports whether row id id holds a row.
func (m Model) Live(id uint64) bool {
	return id < m.Generated && !(m.Deleted && Payload(id) < DeleteLimit)
}

// Content is the model's answer to a KindContent query over ids.
func (m Model) Content(ids []uint64) *ContentRows {
	a := &ContentRows{
		Ord:     make([]int64, len(ids)),
		K:       make([]int64, len(ids)),
		Payload: make([]float64, len(ids)),
		Valid:   make([]bool, len(ids)),
	}
	for i, id := range ids {
		a.Ord[i] = int64(i + 1)
		if m.Live(id) {
			a.K[i], a.Payload[i], a.Valid[i] = K(id), Payload(id), true
		}
	}
	return a
}

// NoAddr marks a row id without an address in CheckScan's result.
const NoAddr = ^uint64(0)

// Table is the model's live rows in row id order, with the given addresses
// (addr[id], from CheckScan; addresses are stablerow's alone, so they are
// the one column a peer must be given rather than derive). It is what
// DuckDB is loaded from: k and payload come from the generator, not from
// stablerow's scan.
func (m Model) Table(addr []uint64) (*Table, error) {
	if uint64(len(addr)) != m.Generated {
		return nil, fmt.Errorf("%w: %d addresses for %d generated rows", ErrInvalidArgument, len(addr), m.Generated)
	}
	t := &Table{}
	for id := range m.Generated {
		if !m.Live(id) {
			continue
		}
		if addr[id] == NoAddr {
			return nil, fmt.Errorf("%w: row id %d has no address in stablerow's scan", ErrMismatch, id)
		}
		t.RowID = append(t.RowID, id)
		t.RowAddr = append(t.RowAddr, addr[id])
		t.K = append(t.K, K(id))
		t.Payload = append(t.Payload, Payload(id))
	}
	return t, nil
}

// CheckScan checks a scan of t (stablerow's) against the model: exactly the
// live row ids, once each, each with the generator's k and payload. It
// returns the scan's addresses indexed by row id (NoAddr where none).
func (m Model) CheckScan(scan *Table) ([]uint64, error) {
	addr := make([]uint64, m.Generated)
	for i := range addr {
		addr[i] = NoAddr
	}
	for i, id := range scan.RowID {
		if !m.Live(id) {
			return nil, fmt.Errorf("%w: scan holds row id %d, the model does not", ErrMismatch, id)
		}
		if scan.K[i] != K(id) || math.Float64bits(scan.Payload[i]) != math.Float64bits(Payload(id)) {
			return nil, fmt.Errorf("%w: scan row id %d: (k %d, payload %v), the model (%d, %v)",
				ErrMismatch, id, scan.K[i], scan.Payload[i], K(id), Payload(id))
		}
		if addr[id] != NoAddr {
			return nil, fmt.Errorf("%w: scan holds row id %d twice", ErrMismatch, id)
		}
		addr[id] = scan.RowAddr[i]
	}
	live := 0
	for id := range m.Generated {
		if m.Live(id) {
			live++
		}
	}
	if live != scan.Len() {
		return nil, fmt.Errorf("%w: scan holds %d rows, the model %d", ErrMismatch, scan.Len(), live)
	}
	return addr, nil
}

// kInv is kMul's inverse modulo 2^64 (so also modulo 2^63): K(i)*kInv
// gives i back.
var kInv = func() uint64 {
	x := uint64(kMul) // Newton's iteration: each step doubles the correct bits
	for range 6 {
		x *= 2 - kMul*x
	}
	return x
}()

// KRows is the model's answer to `SELECT k, payload FROM t WHERE k IN
// (keys)`: each listed key of a live row once, with its payload.
func (m Model) KRows(keys []int64) *KRows {
	a := &KRows{}
	seen := make(map[int64]bool, len(keys))
	for _, k := range keys {
		if seen[k] || k < 0 {
			continue
		}
		seen[k] = true
		i := (uint64(k) * kInv) & (1<<63 - 1)
		if m.Live(i) && K(i) == k {
			a.K = append(a.K, k)
			a.Payload = append(a.Payload, Payload(i))
		}
	}
	return a
}
