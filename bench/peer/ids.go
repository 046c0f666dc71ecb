package peer

import (
	"fmt"
	"math/rand/v2"
)

// The id lists of the take workloads: the seed's "random ids with ~5% misses
// and duplicates".
const (
	MissFraction = 0.05 // ids no row has
	DupFraction  = 0.05 // repeats of an id drawn earlier in the list
)

// IDs draws n ids for a take over t, deterministically from seed: about
// MissFraction of them above every row id (misses), about DupFraction
// repeats of an earlier id, the rest uniform over t's row ids. The same
// (t, n, seed) always gives the same list, so both engines get one list.
func IDs(t *Table, n int, seed uint64) ([]uint64, error) {
	if n < 0 || t.Len() == 0 {
		return nil, fmt.Errorf("peer: %d ids over %d rows: %w", n, t.Len(), ErrInvalidArgument)
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	top := t.MaxRowID()
	ids := make([]uint64, n)
	for i := range ids {
		switch u := r.Float64(); {
		case u < MissFraction:
			ids[i] = top + 1 + r.Uint64N(uint64(t.Len())+1)
		case u < MissFraction+DupFraction && i > 0:
			ids[i] = ids[r.IntN(i)]
		default:
			ids[i] = t.RowID[r.IntN(t.Len())]
		}
	}
	return ids, nil
}

// Keys draws n values of k for an IN-list over t, deterministically from
// seed: about MissFraction of them keys of rows never generated (generated is
// the number of rows the generator produced, so K(generated+j) is absent),
// the rest keys of live rows, with repeats left in (an IN-list ignores them).
func Keys(t *Table, generated uint64, n int, seed uint64) ([]int64, error) {
	if n < 0 || t.Len() == 0 {
		return nil, fmt.Errorf("peer: %d keys over %d rows: %w", n, t.Len(), ErrInvalidArgument)
	}
	r := rand.New(rand.NewPCG(seed^0x6b657973, uint64(n)))
	keys := make([]int64, n)
	for i := range keys {
		if r.Float64() < MissFraction {
			keys[i] = K(generated + r.Uint64N(uint64(n)+1))
			continue
		}
		keys[i] = t.K[r.IntN(t.Len())]
	}
	return keys, nil
}
