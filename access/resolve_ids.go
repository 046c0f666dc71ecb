package access

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table"
)

// ResolveIDs resolves row ids to their live addresses in snapshot t:
// a Resolution's steps as plain calls, for the bulk take (PlanTake),
// where the streaming take runs them as exec operators. ix is a unique
// index on _rowid valid for t (nil: none, every id goes to the row id
// sequences of every fragment) and remap its history (nil when the index
// postdates every rewrite):
//
//	probe ix (one batched lookup; every entry of a key the index holds
//	  more than once) ──> translate through remap, dead rows dropped
//	  ──> Resolution.Indexed (Valid: covered or derived, live)
//	  ──> Resolution.Unresolved ──> SearchRowIDs over ix.Uncovered()
//	  ──> Resolution.Fallback
//
// found[i] says whether ids[i] has a live row, at addrs[i].
func ResolveIDs(ctx context.Context, t *table.Table, ix KeyIndex, remap Remapper, ids []uint64) (addrs []uint64, found []bool, err error) {
	keys := uint64Array(ids)
	defer keys.Release()
	var res Resolution
	res.Reset(keys, ix)
	fragments := t.FragmentIDs()
	if ix != nil {
		pp, err := probePairs(ctx, ix, keys)
		if err != nil {
			return nil, nil, err
		}
		if remap != nil {
			if err := pp.translate(remap); err != nil {
				return nil, nil, err
			}
		}
		pos, addr := pp.arrays()
		err = res.Indexed(pos, addr)
		pos.Release()
		addr.Release()
		if err != nil {
			return nil, nil, err
		}
		fragments = ix.Uncovered()
	}
	if un := res.Unresolved(); len(un) > 0 && len(fragments) > 0 {
		want := make([]uint64, len(un))
		for j, i := range un {
			want[j] = ids[i]
		}
		fp := pairs{pos: make([]uint32, 0, len(un)), addr: make([]uint64, 0, len(un))} // at most one live row an id
		SearchRowIDs(t, fragments, want, un, func(p int32, a uint64) { fp.add(int(p), a) })
		pos, addr := fp.arrays()
		err = res.Fallback(pos, addr)
		pos.Release()
		addr.Release()
		if err != nil {
			return nil, nil, err
		}
	}
	return res.Addrs(), res.Found(), nil
}

// probePairs is the index probe as pairs, what IndexProbeExec emits: one
// (probe row, address) per index entry found, every entry of a key the
// index holds more than once (Multi, through ProbeAll), none for a NULL
// key, in probe row order.
func probePairs(ctx context.Context, ix KeyIndex, keys arrow.Array) (*pairs, error) {
	n := keys.Len()
	pr, err := ix.Probe(ctx, keys)
	if err != nil {
		return nil, err
	}
	if len(pr.Addrs) != n || len(pr.Found) != n {
		return nil, fmt.Errorf("%w: index answered %d of %d keys", ErrBadAnswer, len(pr.Found), n)
	}
	multi := slices.Clone(pr.Multi)
	slices.Sort(multi)
	pp := &pairs{pos: make([]uint32, 0, n), addr: make([]uint64, 0, n)}
	nulls := keys.NullN() > 0
	for i := range n {
		if nulls && keys.IsNull(i) {
			if len(multi) > 0 && multi[0] == i {
				multi = multi[1:]
			}
			continue
		}
		if len(multi) > 0 && multi[0] == i {
			multi = multi[1:]
			as, err := ix.ProbeAll(ctx, keys, i)
			if err != nil {
				return nil, err
			}
			for _, a := range as {
				pp.add(i, a)
			}
			continue
		}
		if pr.Found[i] {
			pp.add(i, pr.Addrs[i])
		}
	}
	return pp, nil
}

// translate maps the pairs' addresses through the history and drops the
// pairs whose row is no longer live (RowAddrRemapExec's RemapDrop).
func (p *pairs) translate(remap Remapper) error {
	live := make([]bool, len(p.addr))
	if err := remap.Translate(p.addr, p.addr, live); err != nil {
		return err
	}
	k := 0
	for i := range p.addr {
		if live[i] {
			p.pos[k], p.addr[k] = p.pos[i], p.addr[i]
			k++
		}
	}
	p.pos, p.addr = p.pos[:k], p.addr[:k]
	return nil
}
