package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// HashJoinExec is an equi-join: it builds a hash table on the right input and
// probes the left in order, so the left ordering is preserved (RIGHT and
// FULL append the unmatched right rows at the end, so they keep none).
// Output is left columns then right columns (left only for semi and anti
// joins); the side that may be NULL-extended is nullable. NULL keys never
// match. An optional residual predicate over left ++ right is tested on
// each key match: only pairs for which it is true match. The state machine
// is joinStream's (joinstream.go).
type HashJoinExec struct{ joinCore }

// joinKeyOK: the key types encodeKey knows, the group key types.
func joinKeyOK(t arrow.DataType) bool { return groupKeyOK(t) }

// NewHashJoinExec joins on leftKeys = rightKeys.
func NewHashJoinExec(left, right Node, leftKeys, rightKeys []int, typ JoinType) (*HashJoinExec, error) {
	return NewHashJoinExecResidual(left, right, leftKeys, rightKeys, typ, nil)
}

// NewHashJoinExecResidual joins on leftKeys = rightKeys and residual (over
// left ++ right; nil for none). JoinAntiNullAware takes one key and no
// residual.
func NewHashJoinExecResidual(left, right Node, leftKeys, rightKeys []int, typ JoinType, residual physexpr.Expr) (*HashJoinExec, error) {
	if len(leftKeys) == 0 || len(leftKeys) != len(rightKeys) {
		return nil, fmt.Errorf("%w: join needs equal, non-empty key lists", physexpr.ErrInvalidArgument)
	}
	if !typ.valid() {
		return nil, fmt.Errorf("%w: join type %d", physexpr.ErrInvalidArgument, typ)
	}
	if typ == JoinAntiNullAware && (len(leftKeys) != 1 || residual != nil) {
		return nil, fmt.Errorf("%w: a NULL-aware anti join takes one key and no residual", physexpr.ErrInvalidArgument)
	}
	ls, rs := left.Schema(), right.Schema()
	for i := range leftKeys {
		l, r := leftKeys[i], rightKeys[i]
		if l < 0 || l >= ls.NumFields() || r < 0 || r >= rs.NumFields() {
			return nil, fmt.Errorf("%w: join key %d out of range", physexpr.ErrInvalidArgument, i)
		}
		lt, rt := ls.Field(l).Type, rs.Field(r).Type
		if !arrow.TypeEqual(lt, rt) {
			return nil, fmt.Errorf("%w: join key %d types %s and %s differ", physexpr.ErrSchema, i, lt, rt)
		}
		if !joinKeyOK(lt) {
			return nil, fmt.Errorf("%w: join key type %s", physexpr.ErrInvalidArgument, lt)
		}
	}
	out, pair := joinSchemas(ls, rs, typ)
	bound, err := bindResidual(residual, pair)
	if err != nil {
		return nil, err
	}
	var full physexpr.Bound
	if typ == JoinMark {
		if full, err = fullCondition(ls.NumFields(), leftKeys, rightKeys, residual, pair); err != nil {
			return nil, err
		}
	}
	return &HashJoinExec{joinCore{left: left, right: right, lkeys: append([]int{}, leftKeys...), rkeys: append([]int{}, rightKeys...),
		typ: typ, residual: residual, bound: bound, full: full, schema: out, pair: pair}}, nil
}

// KeepOuterOrder marks h as a join whose output the planner takes to be
// in its left input's order (a SubPlan join: plan's subplans). Such a join
// never spills, since a grace join emits partition by partition
// (join_spill.go); over the memory limit it fails, as before.
func (h *HashJoinExec) KeepOuterOrder() { h.keepOrder = true }

func (h *HashJoinExec) Name() string           { return "HashJoinExec" }
func (h *HashJoinExec) Schema() *arrow.Schema  { return h.schema }
func (h *HashJoinExec) Children() []Node       { return []Node{h.left, h.right} }
func (h *HashJoinExec) Metrics() *Metrics      { return &h.metrics }
func (h *HashJoinExec) Properties() Properties { return joinOrdering(h.left, h.typ) }
func (h *HashJoinExec) String() string {
	on := make([]string, len(h.lkeys))
	for i := range h.lkeys {
		on[i] = fmt.Sprintf("(%s, %s)", h.left.Schema().Field(h.lkeys[i]).Name, h.right.Schema().Field(h.rkeys[i]).Name)
	}
	s := fmt.Sprintf("HashJoinExec: type=%s on=[%s]", h.typ, strings.Join(on, ", "))
	if h.perPart {
		s += fmt.Sprintf(", partitions=%d", h.OutputPartitions())
	}
	if h.residual != nil {
		s += " filter=" + h.residual.String()
	}
	return s
}

func (h *HashJoinExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return h.execute(tc), nil
}

// keyIndex is the build side's hash table: the first right row of each key
// and a chain of the rows with the same key, in right order. The table's
// entry for a key is its first build row, and the keys it compares against
// are the build rows' own (normalized once), so no key is stored twice.
//
// A key of several word columns whose ranges fit a word together is
// packed into one (packedkey.go): then keys is the packed column. A
// one-word key over a narrow range of values is indexed densely instead
// (denseindex.go): then dense is set and keys and table are not kept.
type keyIndex struct {
	keys  keyCols     // the build side's key columns, normalized; row = build row
	pack  *keyPacking // non-nil: keys and probes are packed into one word
	table *hashTable  // key -> first build row with it
	dense *denseIndex // non-nil: the index, table and keys unused
	next  []int32     // next build row with the same key; -1 ends
}

// keyIndexChunk is how many build rows are hashed at a time (the hash
// scratch's size).
const keyIndexChunk = 8192

// newKeyIndex indexes the n rows of the key columns cols; rows with a NULL
// key are left out (they match nothing).
func newKeyIndex(cols []arrow.Array, n int) *keyIndex {
	x := &keyIndex{next: make([]int32, n)}
	x.keys.normalize(cols, n)
	if denseJoinIndex {
		if x.pack = newKeyPacking(&x.keys, n); x.pack != nil {
			var packed keyCols
			x.pack.pack(&x.keys, n, &packed)
			x.keys = packed
		}
	}
	if denseJoinIndex && x.keys.oneWord() {
		if x.dense = newDenseIndex(&x.keys.cols[0], n, x.next); x.dense != nil {
			x.keys = keyCols{} // the bitmap holds the values
			return x
		}
	}
	x.table = newHashTable(n, false)
	tail := make([]int32, n)
	var hashes []uint64
	for lo := 0; lo < n; lo += keyIndexChunk {
		hi := min(n, lo+keyIndexChunk)
		hashes = x.keys.hash(lo, hi, hashes)
		for i, h := range hashes {
			if i%touchChunk == 0 {
				x.table.touch(hashes[i:min(len(hashes), i+touchChunk)])
			}
			r := lo + i
			x.next[r] = -1
			if x.keys.rowNull(r) {
				continue
			}
			if f, found := x.table.findOrInsert(h, &x.keys, r, &x.keys, int32(r)); found {
				x.next[tail[f]] = int32(r) // append keeps build order within a key
				tail[f] = int32(r)
			} else {
				tail[r] = int32(r)
			}
		}
	}
	return x
}

// probe sets heads[r] to the first build row whose key equals row r of p
// (rows [0, rows)), -1 for none or a NULL key; hashes and scratch are
// scratch (the caller's: a parallel join's streams share one keyIndex).
// It returns all three, grown.
func (x *keyIndex) probe(p *keyCols, rows int, hashes []uint64, heads []int32, scratch []uint64) ([]uint64, []int32, []uint64) {
	heads = growInt32s(heads, rows)
	if x.pack != nil {
		if p.packed == nil {
			p.packed = new(keyCols)
		}
		x.pack.pack(p, rows, p.packed)
		p = p.packed
	}
	if x.dense != nil {
		x.dense.probe(p.cols[0].w[:rows], heads)
		clearNullHeads(p, heads)
		return hashes, heads, scratch
	}
	hashes = p.hash(0, rows, hashes)
	if p.oneWord() {
		// One word column: compare inline (the build's NULL rows are
		// not in the table; the probe's are cleared after).
		scratch = x.table.findWords(hashes, p.cols[0].w, x.keys.cols[0].w, heads, scratch)
		clearNullHeads(p, heads)
		return hashes, heads, scratch
	}
	scratch = x.table.findBatch(hashes, p, &x.keys, heads, scratch)
	return hashes, heads, scratch
}

// clearNullHeads sets heads[r] to -1 for the rows of p with a NULL key
// (their words were looked up as whatever the column holds).
func clearNullHeads(p *keyCols, heads []int32) {
	if !p.anyNull {
		return
	}
	for r := range heads {
		if p.rowNull(r) {
			heads[r] = -1
		}
	}
}

// bytes is the index's memory beyond the build batch.
func (x *keyIndex) bytes() int64 {
	n := int64(4 * cap(x.next))
	if x.dense != nil {
		return n + x.dense.bytes()
	}
	n += x.table.bytes()
	for i := range x.keys.cols {
		c := &x.keys.cols[i]
		n += int64(8*(cap(c.w)+cap(c.w2)) + cap(c.nbuf))
	}
	return n
}

func emptyCols(sc *arrow.Schema, tc *TaskContext) []arrow.Array {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		cols[i] = array.MakeArrayOfNull(tc.Allocator(), f.Type, 0)
	}
	return cols
}
