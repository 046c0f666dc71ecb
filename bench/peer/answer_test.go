package peer

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleTake(payload bool) *TakeRows {
	tb := SyntheticTable(1000, 100)
	return ExpectTake(tb, []uint64{5, 999, 5000, 5, 0}, payload)
}

func cloneTake(a *TakeRows) *TakeRows {
	return &TakeRows{
		Ord: slices.Clone(a.Ord), Addr: slices.Clone(a.Addr), AddrValid: slices.Clone(a.AddrValid),
		Payload: slices.Clone(a.Payload), PayloadValid: slices.Clone(a.PayloadValid),
	}
}

// TestTakeCompareCatchesDifferences changes one thing at a time in a copy
// of a correct answer; the checker must accept the copy and reject every
// change.
func TestTakeCompareCatchesDifferences(t *testing.T) {
	for _, payload := range []bool{false, true} {
		want := sampleTake(payload)
		require.NoError(t, want.CheckShape(5))
		require.NoError(t, want.Compare(cloneTake(want)))
		require.Equal(t, 4, want.Hits())
		require.False(t, want.AddrValid[2], "id 5000 is a miss")

		mutations := map[string]func(a *TakeRows){
			"ord":           func(a *TakeRows) { a.Ord[1] = 7 },
			"address":       func(a *TakeRows) { a.Addr[0]++ },
			"miss to hit":   func(a *TakeRows) { a.AddrValid[2] = true },
			"hit to miss":   func(a *TakeRows) { a.AddrValid[3] = false },
			"row dropped":   func(a *TakeRows) { a.Ord, a.Addr, a.AddrValid = a.Ord[:4], a.Addr[:4], a.AddrValid[:4] },
			"rows swapped":  func(a *TakeRows) { a.Addr[0], a.Addr[1] = a.Addr[1], a.Addr[0] },
			"payload added": func(a *TakeRows) { a.Payload, a.PayloadValid = make([]float64, 5), make([]bool, 5) },
		}
		if payload {
			delete(mutations, "payload added")
			mutations["payload value"] = func(a *TakeRows) { a.Payload[4] = math.Nextafter(a.Payload[4], 2) }
			mutations["payload NULL"] = func(a *TakeRows) { a.PayloadValid[0] = false }
			mutations["payload dropped"] = func(a *TakeRows) { a.Payload, a.PayloadValid = nil, nil }
		}
		for name, mutate := range mutations {
			got := cloneTake(want)
			if !payload {
				got.Payload, got.PayloadValid = nil, nil
			}
			mutate(got)
			require.ErrorIs(t, want.Compare(got), ErrMismatch, "%s (payload=%v)", name, payload)
			require.ErrorIs(t, got.Compare(want), ErrMismatch, "%s reversed (payload=%v)", name, payload)
		}
		// The value under a NULL does not matter.
		got := cloneTake(want)
		got.Addr[2] = 12345
		require.NoError(t, want.Compare(got))
	}
	require.ErrorIs(t, sampleTake(false).Compare(&KRows{}), ErrMismatch)
}

// TestTakeCheckShape checks the take contract on one answer alone.
func TestTakeCheckShape(t *testing.T) {
	a := sampleTake(true)
	require.ErrorIs(t, a.CheckShape(6), ErrMismatch)
	b := cloneTake(a)
	b.Ord[0], b.Ord[1] = 2, 1
	require.ErrorIs(t, b.CheckShape(5), ErrMismatch)
	c := cloneTake(a)
	c.PayloadValid = c.PayloadValid[:2]
	require.ErrorIs(t, c.CheckShape(5), ErrUnexpectedSchema)
}

// TestKCompare checks the bag comparison: order ignored, anything else not.
func TestKCompare(t *testing.T) {
	tb := SyntheticTable(1000, 100)
	want := ExpectK(tb, []int64{K(3), K(900), K(5000), K(3)})
	require.Equal(t, 2, want.Len(), "absent keys and repeats add no rows")
	rev := &KRows{K: []int64{want.K[1], want.K[0]}, Payload: []float64{want.Payload[1], want.Payload[0]}}
	require.NoError(t, want.Compare(rev))
	for name, got := range map[string]*KRows{
		"payload":   {K: slices.Clone(want.K), Payload: []float64{want.Payload[0], 0.5}},
		"key":       {K: []int64{want.K[0], want.K[0]}, Payload: slices.Clone(want.Payload)},
		"extra row": {K: append(slices.Clone(want.K), K(4)), Payload: append(slices.Clone(want.Payload), Payload(4))},
		"pairing":   {K: slices.Clone(want.K), Payload: []float64{want.Payload[1], want.Payload[0]}},
	} {
		require.ErrorIs(t, want.Compare(got), ErrMismatch, name)
	}
	require.ErrorIs(t, want.Compare(&KRows{K: []int64{1}}), ErrUnexpectedSchema)
	require.ErrorIs(t, want.Compare(sampleTake(false)), ErrMismatch)
}
