package access

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
)

// Resolution turns one batch of keys into live addresses: the one place
// the take's steps are composed, whether they run as exec operators (the
// streaming TakeByKeyExec feeds it the (probe row, address) pairs its
// IndexProbeExec, RowAddrRemapExec and UnindexedFallbackScan children
// emit) or as plain calls (the bulk take, Resolver.resolve). Its state is
// the batch's answers; it is reused batch after batch.
//
//	        ┌───────┐ pairs, translated ┌─────────┐ second live row: ErrNotUnique
//	keys ──>│ probe │──────────────────>│ Indexed │── kept if KeyIndex.Valid
//	        └───────┘ (dead ones        └─────────┘   (covered or derived, live)
//	                   dropped)              │
//	                                         v non-NULL keys without an answer
//	                                   ┌────────────┐ pairs from   ┌──────────┐
//	                                   │ Unresolved │─────────────>│ Fallback │── kept as they are
//	                                   └────────────┘ Uncovered()  └──────────┘   (the search checks liveness)
//	                                                  fragments
//	                                   Addrs / Found: the answer per key
//
// An index answer counts only when Valid: an address in a fragment the
// index does not cover, or of a row no longer live, says nothing of where
// the key lives now (an update moves rows to a fragment the index does
// not cover), so the key goes to the fallback like a key the index does
// not hold. Two different live addresses for one key are ErrNotUnique,
// from either side.
type Resolution struct {
	keys       arrow.Array
	index      KeyIndex
	addrs      []uint64
	found      []bool
	unresolved []int32
	ok         []bool // Valid's answers for one batch of pairs
}

// ErrBadAnswer: a step answered a probe row the batch does not have.
var ErrBadAnswer = errkind.New(errkind.InvalidArgument, "access: answer out of the probe batch")

// Reset starts a batch: the keys to resolve (borrowed until the next
// Reset) through index (nil: every key goes to the fallback).
func (r *Resolution) Reset(keys arrow.Array, index KeyIndex) {
	n := keys.Len()
	r.keys, r.index = keys, index
	r.addrs = resize(r.addrs, n)
	r.found = resize(r.found, n)
}

// Addrs is the live address per key, meaningful where Found.
func (r *Resolution) Addrs() []uint64 { return r.addrs }

// Found says per key whether a live row was found.
func (r *Resolution) Found() []bool { return r.found }

// Hits is the number of keys with a live row.
func (r *Resolution) Hits() int {
	n := 0
	for _, f := range r.found {
		if f {
			n++
		}
	}
	return n
}

// Indexed records the index's answers, pos[i] answered addrs[i]
// (translated through the history when the index predates rewrites;
// NULL addresses skipped), keeping those the index's Valid passes.
func (r *Resolution) Indexed(pos *array.Uint32, addrs *array.Uint64) error {
	r.ok = resize(r.ok, addrs.Len())
	r.index.Valid(addrs.Uint64Values(), r.ok)
	return r.accept(pos, addrs, r.ok, "index "+r.index.String())
}

// Unresolved lists the non-NULL keys without an answer so far, in order:
// after Indexed, what the fallback searches. The list is valid until the
// next call.
func (r *Resolution) Unresolved() []int32 {
	r.unresolved = r.unresolved[:0]
	for i := range r.found {
		if !r.found[i] && !r.keys.IsNull(i) {
			r.unresolved = append(r.unresolved, int32(i))
		}
	}
	return r.unresolved
}

// Fallback records the fallback's answers, pos[i] is live at addrs[i].
func (r *Resolution) Fallback(pos *array.Uint32, addrs *array.Uint64) error {
	return r.accept(pos, addrs, nil, "unindexed fragments")
}

// accept records pos[i] -> addrs[i] where ok (nil: everywhere) and the
// address is not NULL.
func (r *Resolution) accept(pos *array.Uint32, addrs *array.Uint64, ok []bool, where string) error {
	n := len(r.found)
	as := addrs.Uint64Values()
	for i := 0; i < pos.Len(); i++ {
		if addrs.IsNull(i) || (ok != nil && !ok[i]) {
			continue
		}
		p := int(pos.Value(i))
		if p >= n {
			return fmt.Errorf("%w: probe row %d of %d", ErrBadAnswer, p, n)
		}
		if r.found[p] && r.addrs[p] != as[i] {
			return fmt.Errorf("%w: take: key %v has more than one live row in %s", ErrNotUnique, keyString(r.keys, p), where)
		}
		r.addrs[p], r.found[p] = as[i], true
	}
	return nil
}

func keyString(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	return a.ValueStr(i)
}

// resize returns v with length n, zeroed, reusing its storage.
func resize[T any](v []T, n int) []T {
	if cap(v) < n {
		return make([]T, n)
	}
	v = v[:n]
	clear(v)
	return v
}

// pairs builds (probe row, address) columns as the exec children emit
// them, for the steps the bulk take runs as plain calls.
type pairs struct {
	pos  []uint32
	addr []uint64
}

func (p *pairs) add(pos int, a uint64) {
	p.pos = append(p.pos, uint32(pos))
	p.addr = append(p.addr, a)
}

// arrays wraps the pairs as Arrow arrays without copying; they live as
// long as p's slices are not appended to.
func (p *pairs) arrays() (*array.Uint32, *array.Uint64) {
	return uint32Array(p.pos), uint64Array(p.addr)
}

func uint64Array(v []uint64) *array.Uint64 {
	d := array.NewData(arrow.PrimitiveTypes.Uint64, len(v), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Uint64Traits.CastToBytes(v))}, nil, 0, 0)
	defer d.Release()
	return array.NewUint64Data(d)
}

func uint32Array(v []uint32) *array.Uint32 {
	d := array.NewData(arrow.PrimitiveTypes.Uint32, len(v), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Uint32Traits.CastToBytes(v))}, nil, 0, 0)
	defer d.Release()
	return array.NewUint32Data(d)
}
