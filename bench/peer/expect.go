package peer

// ExpectTake is the reference model of the take: what any correct engine
// returns for ids over t. It is deliberately naive (a hash map), and is used
// by tests to check each engine on its own, not only against the other.
func ExpectTake(t *Table, ids []uint64, payload bool) *TakeRows {
	at := make(map[uint64]int, t.Len())
	for i, id := range t.RowID {
		at[id] = i
	}
	a := &TakeRows{
		Ord:       make([]int64, len(ids)),
		Addr:      make([]uint64, len(ids)),
		AddrValid: make([]bool, len(ids)),
	}
	if payload {
		a.Payload = make([]float64, len(ids))
		a.PayloadValid = make([]bool, len(ids))
	}
	for i, id := range ids {
		a.Ord[i] = int64(i + 1)
		r, ok := at[id]
		if !ok {
			continue
		}
		a.Addr[i], a.AddrValid[i] = t.RowAddr[r], true
		if payload {
			a.Payload[i], a.PayloadValid[i] = t.Payload[r], true
		}
	}
	return a
}

// ExpectK is the reference model of `SELECT k, payload FROM t WHERE k IN
// (keys)`: every live row whose k is listed, once.
func ExpectK(t *Table, keys []int64) *KRows {
	want := make(map[int64]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	a := &KRows{}
	for i, k := range t.K {
		if want[k] {
			a.K = append(a.K, k)
			a.Payload = append(a.Payload, t.Payload[i])
		}
	}
	return a
}

// ExpectDelete is the reference model of `DELETE FROM t WHERE payload <
// limit`: t without those rows, and how many went.
func ExpectDelete(t *Table, limit float64) (*Table, int) {
	out := &Table{}
	for i := range t.RowID {
		if t.Payload[i] < limit {
			continue
		}
		out.RowID = append(out.RowID, t.RowID[i])
		out.RowAddr = append(out.RowAddr, t.RowAddr[i])
		out.K = append(out.K, t.K[i])
		out.Payload = append(out.Payload, t.Payload[i])
	}
	return out, t.Len() - out.Len()
}
