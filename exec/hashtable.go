package exec

import (
	"hash/maphash"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// hashtable.go is the one owner of "hash a batch of keys, find or insert
// them", shared by the hash join's build side (keyIndex) and the group
// table (HashAggregateExec, SetOpExec).
//
// A key is a row over a fixed list of columns. Before hashing, a batch's
// key columns are normalized into keyCols, a column-wise form the table
// compares without encoding a row to bytes:
//
//	integers, dates, timestamps, booleans ─▶ one uint64 word per row
//	floats ─▶ one word, canonical (-0 is 0, every NaN one value: PostgreSQL's float equality)
//	decimal128 ─▶ two words, the unscaled integer (one column has one scale)
//	strings ─▶ the Arrow offsets and bytes, compared as bytes
//
// Hashes are computed a column at a time for the whole batch (one loop
// per type), combined per row. The table itself is open addressing with
// linear probing over a power-of-two slot array; a slot is one uint64,
// the hash's high 32 bits (a tag that rules out most unequal keys before
// any column is compared) and the entry + 1 (0 marks an empty slot). The
// entry is whatever the owner numbers keys by: a group id, or the first
// build row of a join key.

// keyKind is how a key column is normalized.
type keyKind uint8

const (
	kindWord   keyKind = iota // one uint64 per row
	kindDec                   // two: low and high 64 bits
	kindString                // offsets and bytes
)

// keyCol is one normalized key column, of a batch (a view over its Arrow
// column, words copied into reused scratch) or of a table's stored keys.
type keyCol struct {
	kind  keyKind
	w, w2 []uint64 // the value (decimal: low word), the decimal's high word
	off   []int32  // strings: value i is data[off[i]:off[i+1]]
	data  []byte
	null  []bool // nil: no row is NULL
	nbuf  []bool // a view's scratch for null
}

func (c *keyCol) isNull(i int) bool { return c.null != nil && c.null[i] }

// eq reports whether row i of c and row j of d (same kind) hold the same
// key value; NULL equals NULL (a group key; the join never stores one).
func (c *keyCol) eq(i int, d *keyCol, j int) bool {
	ni, nj := c.isNull(i), d.isNull(j)
	if ni || nj {
		return ni == nj
	}
	switch c.kind {
	case kindWord:
		return c.w[i] == d.w[j]
	case kindDec:
		return c.w[i] == d.w[j] && c.w2[i] == d.w2[j]
	default:
		return string(c.data[c.off[i]:c.off[i+1]]) == string(d.data[d.off[j]:d.off[j+1]])
	}
}

// keyCols is a key over several columns.
type keyCols struct {
	cols []keyCol
	// anyNull: some row has a NULL key column (a join skips those rows).
	anyNull bool
	// packed is the scratch of this batch's packed view, when a join
	// packs its key (packedkey.go).
	packed *keyCols
}

// eq reports whether row i of k and row j of s hold equal keys.
func (k *keyCols) eq(i int, s *keyCols, j int) bool {
	for c := range k.cols {
		a, b := &k.cols[c], &s.cols[c]
		if a.kind == kindWord && a.null == nil && b.null == nil {
			if a.w[i] != b.w[j] { // the common case, without keyCol.eq's call
				return false
			}
			continue
		}
		if !a.eq(i, b, j) {
			return false
		}
	}
	return true
}

// rowNull reports whether row i has a NULL in any key column.
func (k *keyCols) rowNull(i int) bool {
	if !k.anyNull {
		return false
	}
	for c := range k.cols {
		if k.cols[c].isNull(i) {
			return true
		}
	}
	return false
}

// keyKindOf is t's normalization; ok is false for a type no key takes
// (groupKeyOK is the list).
func keyKindOf(t arrow.DataType) (keyKind, bool) {
	if !groupKeyOK(t) {
		return 0, false
	}
	switch t.ID() {
	case arrow.DECIMAL128:
		return kindDec, true
	case arrow.STRING:
		return kindString, true
	}
	return kindWord, true
}

// normalize makes k the view of rows [0, rows) of arrs, reusing k's word
// and null scratch. arrs' types must satisfy groupKeyOK.
func (k *keyCols) normalize(arrs []arrow.Array, rows int) {
	if cap(k.cols) < len(arrs) {
		k.cols = make([]keyCol, len(arrs))
	}
	k.cols = k.cols[:len(arrs)]
	k.anyNull = false
	for i, a := range arrs {
		c := &k.cols[i]
		c.null = nil
		if a.NullN() > 0 {
			k.anyNull = true
			c.nbuf = growBools(c.nbuf, rows)
			c.null = c.nbuf
			for r := range rows {
				c.null[r] = a.IsNull(r)
			}
		}
		switch a := a.(type) {
		case *array.String:
			c.kind = kindString
			c.off, c.data = nil, nil
			if rows == 0 {
				break // an empty array may have no offsets at all (IPC)
			}
			c.off = a.ValueOffsets()[:rows+1]
			if bs := a.Data().Buffers(); len(bs) > 2 && bs[2] != nil {
				c.data = bs[2].Bytes()
			}
		case *array.Decimal128:
			c.kind = kindDec
			c.w, c.w2 = growWords(c.w, rows), growWords(c.w2, rows)
			for r, v := range a.Values()[:rows] {
				c.w[r], c.w2[r] = v.LowBits(), uint64(v.HighBits())
			}
		default:
			c.kind = kindWord
			c.w = growWords(c.w, rows)
			wordsOf(a, c.w)
		}
	}
}

// wordsOf writes a's values as key words into w (len(w) rows).
func wordsOf(a arrow.Array, w []uint64) {
	switch a := a.(type) {
	case *array.Int8:
		for r, v := range a.Int8Values()[:len(w)] {
			w[r] = uint64(int64(v))
		}
	case *array.Int16:
		for r, v := range a.Int16Values()[:len(w)] {
			w[r] = uint64(int64(v))
		}
	case *array.Int32:
		for r, v := range a.Int32Values()[:len(w)] {
			w[r] = uint64(int64(v))
		}
	case *array.Int64:
		for r, v := range a.Int64Values()[:len(w)] {
			w[r] = uint64(v)
		}
	case *array.Uint8:
		for r, v := range a.Uint8Values()[:len(w)] {
			w[r] = uint64(v)
		}
	case *array.Uint16:
		for r, v := range a.Uint16Values()[:len(w)] {
			w[r] = uint64(v)
		}
	case *array.Uint32:
		for r, v := range a.Uint32Values()[:len(w)] {
			w[r] = uint64(v)
		}
	case *array.Uint64:
		copy(w, a.Uint64Values()[:len(w)])
	case *array.Float32:
		for r, v := range a.Float32Values()[:len(w)] {
			w[r] = canonicalFloat(float64(v))
		}
	case *array.Float64:
		for r, v := range a.Float64Values()[:len(w)] {
			w[r] = canonicalFloat(v)
		}
	case *array.Date32:
		for r, v := range a.Date32Values()[:len(w)] {
			w[r] = uint64(int64(v))
		}
	case *array.Timestamp:
		for r, v := range a.TimestampValues()[:len(w)] {
			w[r] = uint64(int64(v))
		}
	case *array.Boolean:
		for r := range w {
			w[r] = 0
			if a.Value(r) {
				w[r] = 1
			}
		}
	}
}

// Hashing: a row's hash folds its columns in order, h = mix(h ^ v), from
// a fixed start; a NULL column folds in nullWord (its value words are
// ignored). The fold is wyhash's 128-bit multiply; strings go through
// hash/maphash first. The table's hashes are never persisted or shared
// with another process, so maphash's per-process seed is fine, and it is
// not the repartitioner's seed, so a partition's keys still spread over
// the whole table.
const (
	hashStart = 0x243f6a8885a308d3
	hashMul   = 0x9e3779b97f4a7c15
	nullWord  = 0x5bd1e9955bd1e995
)

var keyStringSeed = maphash.MakeSeed()

func mix(x uint64) uint64 {
	hi, lo := bits.Mul64(x^0xa0761d6478bd642f, hashMul)
	return hi ^ lo
}

// hash writes the hashes of k's rows [lo, hi) into out[0:hi-lo], grown
// to fit.
func (k *keyCols) hash(lo, hi int, out []uint64) []uint64 {
	out = growWords(out, hi-lo)
	for i := range out {
		out[i] = hashStart
	}
	for ci := range k.cols {
		c := &k.cols[ci]
		switch c.kind {
		case kindWord:
			for i, v := range c.w[lo:hi] {
				out[i] = mix(out[i] ^ v)
			}
		case kindDec:
			w2 := c.w2[lo:hi]
			for i, v := range c.w[lo:hi] {
				out[i] = mix(mix(out[i]^v) ^ w2[i])
			}
		default:
			for i := range out {
				s := c.data[c.off[lo+i]:c.off[lo+i+1]]
				out[i] = mix(out[i] ^ maphash.Bytes(keyStringSeed, s))
			}
		}
	}
	if k.anyNull {
		// A NULL column folds in nullWord, not its value words (which
		// hold anything): hash such rows again, one at a time.
		for i := range out {
			if k.rowNull(lo + i) {
				out[i] = k.hashRow(lo + i)
			}
		}
	}
	return out
}

// hashRow is one row's hash, the fold hash does for a batch.
func (k *keyCols) hashRow(r int) uint64 {
	h := uint64(hashStart)
	for ci := range k.cols {
		c := &k.cols[ci]
		switch {
		case c.isNull(r):
			h = mix(h ^ nullWord)
		case c.kind == kindWord:
			h = mix(h ^ c.w[r])
		case c.kind == kindDec:
			h = mix(mix(h^c.w[r]) ^ c.w2[r])
		default:
			h = mix(h ^ maphash.Bytes(keyStringSeed, c.data[c.off[r]:c.off[r+1]]))
		}
	}
	return h
}

// hashTable maps keys to entries (int32 ≥ 0): open addressing, linear
// probing, load at most 1/2. It holds no keys itself: the caller passes
// the stored keys (indexed by entry) to every call, so the join indexes
// its build rows in place and the group table keeps its own.
type hashTable struct {
	slots  []uint64 // tag<<32 | entry+1; 0 is empty
	mask   uint64
	n      int      // occupied slots
	hashes []uint64 // per entry, to rehash on growth (growable tables only)
	grow   bool
	sink   uint64 // touch's loads, kept
	// pass (TaskContext.passer; nil: none) counts the entries a rehash
	// moves: the last rehash of millions of groups is hundreds of
	// milliseconds with no batch boundary in it.
	pass func(int)
}

const tagMask = ^uint64(math.MaxUint32)

// newHashTable makes a table sized for n entries; grow lets it take more
// (it keeps each entry's hash to rehash them).
func newHashTable(n int, grow bool) *hashTable {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return &hashTable{slots: make([]uint64, size), mask: uint64(size - 1), grow: grow}
}

// bytes is the table's memory.
func (t *hashTable) bytes() int64 { return int64(8 * (len(t.slots) + cap(t.hashes))) }

// find returns the entry whose stored key (row entry of keys) equals row
// r of probe, hash h; -1 if none.
func (t *hashTable) find(h uint64, probe *keyCols, r int, keys *keyCols) int32 {
	tag := h & tagMask
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if s&tagMask == tag {
			if e := int32(uint32(s)) - 1; probe.eq(r, keys, int(e)) {
				return e
			}
		}
	}
}

// findWord is find for a key of one word column without NULLs (the
// common integer key): the stored keys are words, compared inline.
func (t *hashTable) findWord(h, v uint64, words []uint64) int32 {
	tag := h & tagMask
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if s&tagMask == tag {
			if e := int32(uint32(s)) - 1; words[e] == v {
				return e
			}
		}
	}
}

// Batches in stages. A probe of a table bigger than the caches is two
// dependent cache misses per row (the slot, then the stored key it
// names); row by row, each row waits for its own before the next row's
// start. Split into loops with no dependency between iterations, the CPU
// keeps many rows' loads in flight at once (memory-level parallelism):
//
//	stage 1: slot[r] = slots[hash[r] & mask]        (one load per row, all independent)
//	stage 2: key[r] = words[entry of slot[r]]       (independent loads)
//	stage 3: empty ─▶ -1; tag and key equal ─▶ the entry; else the
//	         row's full probe (findWord), its first slot now cached
//
// The answer is findWord's for every row: stage 3 falls back to it for
// every row the first slot does not settle.

// stagedMinSlots is the table size (1 MiB of slots) from which findWords
// probes in stages; below it the slots and keys stay in the caches.
const stagedMinSlots = 1 << 17

// findWords sets out[r] to findWord(hashes[r], v[r], words) for every
// row; scratch is reused and returned grown. Stage 2 has no branch on
// what the slot holds (an empty slot loads words[0], ignored), so a
// mispredicted branch never discards loads already in flight.
func (t *hashTable) findWords(hashes, v, words []uint64, out []int32, scratch []uint64) []uint64 {
	if len(t.slots) < stagedMinSlots {
		// A table this small stays cached: no misses to overlap, and
		// the stages would only add passes.
		for r, h := range hashes {
			out[r] = t.findWord(h, v[r], words)
		}
		return scratch
	}
	n := len(hashes)
	scratch = growWords(scratch, 2*n)
	slot, key := scratch[:n], scratch[n:2*n]
	slots, mask := t.slots, t.mask
	for r, h := range hashes {
		slot[r] = slots[h&mask]
	}
	if len(words) > 0 {
		for r, s := range slot {
			e := int(uint32(s))
			if e > 0 {
				e--
			}
			key[r] = words[e]
		}
	}
	for r, s := range slot {
		switch {
		case s == 0:
			out[r] = -1
		case s&tagMask == hashes[r]&tagMask && key[r] == v[r]:
			out[r] = int32(uint32(s)) - 1
		default: // another key's slot: probe on
			out[r] = t.findWord(hashes[r], v[r], words)
		}
	}
	return scratch
}

// findBatch is find for every row of probe (out[r], -1 for a row with a
// NULL key): the slots are loaded in a first pass (stage 1 above), the
// keys compared after.
func (t *hashTable) findBatch(hashes []uint64, probe *keyCols, keys *keyCols, out []int32, scratch []uint64) []uint64 {
	scratch = growWords(scratch, len(hashes))
	slots, mask := t.slots, t.mask
	for r, h := range hashes {
		scratch[r] = slots[h&mask]
	}
	for r, s := range scratch {
		if s == 0 || probe.rowNull(r) {
			out[r] = -1
			continue
		}
		out[r] = t.find(hashes[r], probe, r, keys)
	}
	return scratch
}

// touchChunk is how many rows an insert loop touches ahead: their slots'
// lines stay well inside L1/L2 until the inserts reach them.
const touchChunk = 256

// touch loads the first slot of every hash, so that a following row by
// row insert of them finds the slots cached (an insert depends on the
// ones before it, so it cannot itself be split into stages). The sum is
// kept so the loads are not dropped as dead code.
func (t *hashTable) touch(hashes []uint64) {
	slots, mask := t.slots, t.mask
	var x uint64
	for _, h := range hashes {
		x += slots[h&mask]
	}
	t.sink += x
}

// oneWord reports whether k is one word column (its keys compare as
// words; a NULL is checked apart).
func (k *keyCols) oneWord() bool { return len(k.cols) == 1 && k.cols[0].kind == kindWord }

// findOrInsert returns the entry of row r of probe (hash h) and true, or
// inserts entry e (which the caller then stores: keys must hold it before
// the next call) and returns e and false.
func (t *hashTable) findOrInsert(h uint64, probe *keyCols, r int, keys *keyCols, e int32) (int32, bool) {
	tag := h & tagMask
	i := h & t.mask
	for ; ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			break
		}
		if s&tagMask == tag {
			if f := int32(uint32(s)) - 1; probe.eq(r, keys, int(f)) {
				return f, true
			}
		}
	}
	t.insertAt(i, tag, h, e)
	return e, false
}

// findOrInsertWord is findOrInsert for a key of one word column whose
// probe row and stored keys hold no NULL: words compare inline.
func (t *hashTable) findOrInsertWord(h, v uint64, words []uint64, e int32) (int32, bool) {
	tag := h & tagMask
	i := h & t.mask
	for ; ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			break
		}
		if s&tagMask == tag {
			if f := int32(uint32(s)) - 1; words[f] == v {
				return f, true
			}
		}
	}
	t.insertAt(i, tag, h, e)
	return e, false
}

// insertAt stores entry e (hash h, tag its high bits) in the empty slot
// i a probe ended at, growing the table past half full.
func (t *hashTable) insertAt(i, tag, h uint64, e int32) {
	t.slots[i] = tag | uint64(uint32(e)+1)
	t.n++
	if t.grow {
		t.hashes = append(t.hashes, h)
		if 2*t.n > len(t.slots) {
			t.rehash()
		}
	}
}

// rehash doubles the slots; entries are numbered 0..n-1 in insertion
// order (the growable tables number them so).
func (t *hashTable) rehash() {
	size := 2 * len(t.slots)
	t.slots = make([]uint64, size)
	t.mask = uint64(size - 1)
	for e, h := range t.hashes {
		i := h & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = h&tagMask | uint64(uint32(e)+1)
		if t.pass != nil && e%passStride == passStride-1 {
			t.pass(passStride)
		}
	}
}

// keyStore is a growable keyCols: the group table's stored keys, one row
// per group, appended from batch views.
type keyStore struct{ keyCols }

func newKeyStore(types []arrow.DataType) *keyStore {
	s := &keyStore{keyCols{cols: make([]keyCol, len(types))}}
	for i, t := range types {
		k, _ := keyKindOf(t)
		s.cols[i].kind = k
		if k == kindString {
			s.cols[i].off = []int32{0}
		}
	}
	return s
}

// add appends row r of batch view b; n is the number of rows stored.
func (s *keyStore) add(b *keyCols, r, n int) {
	for ci := range s.cols {
		c, bc := &s.cols[ci], &b.cols[ci]
		null := bc.isNull(r)
		if null && c.null == nil {
			c.null = make([]bool, n, max(16, 2*n))
			s.anyNull = true
		}
		if c.null != nil {
			c.null = append(c.null, null)
		}
		switch c.kind {
		case kindWord:
			c.w = append(c.w, bc.w[r])
		case kindDec:
			c.w, c.w2 = append(c.w, bc.w[r]), append(c.w2, bc.w2[r])
		default:
			if !null {
				c.data = append(c.data, bc.data[bc.off[r]:bc.off[r+1]]...)
			}
			c.off = append(c.off, int32(len(c.data)))
		}
	}
}

// bytes is the stored keys' memory.
func (s *keyStore) bytes() int64 {
	var n int64
	for i := range s.cols {
		c := &s.cols[i]
		n += int64(8*(cap(c.w)+cap(c.w2)) + 4*cap(c.off) + cap(c.data) + cap(c.null))
	}
	return n
}

func growWords(w []uint64, n int) []uint64 {
	if cap(w) < n {
		return make([]uint64, n, n+n/4)
	}
	return w[:n]
}

func growBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}

func growInt32s(v []int32, n int) []int32 {
	if cap(v) < n {
		return make([]int32, n)
	}
	return v[:n]
}
