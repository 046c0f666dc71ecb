package btree

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A composite index (format version 2, key kind 12) keys its entries by
// several columns, each ascending or descending with its NULLs first or
// last, as a PostgreSQL btree index (CREATE INDEX ON t (a, b DESC)). A
// key is one byte string that compares, as plain bytes, in the index's
// order, so pages, the lookup and every search treat it as a string key:
//
//	key  = part_1 | part_2 | ... | part_n
//	part = 0x00                      NULL, NULLS FIRST
//	     | 0x01 value                non-NULL
//	     | 0x02                      NULL, NULLS LAST
//	value (ascending)  numeric kinds: the 8-byte big-endian ordered uint64
//	                   of keys.go; numeric(p,s): its 16-byte key; text: the
//	                   bytes with 0x00 written 0x00 0xff, then 0x00 0x01
//	value (descending) the ascending bytes complemented
//
// Every value encoding is prefix-free (fixed width, or terminated with a
// pair that no escaped byte starts), so comparing two keys compares part
// 1, then on a tie part 2, and so on; complementing a prefix-free encoding
// reverses its order. The NULL marker is outside the complement: NULLS
// FIRST or LAST is a flag of its own, PostgreSQL's default being NULLS
// LAST for ASC and NULLS FIRST for DESC (the caller picks). A whole key is
// never NULL, so a composite index has no null pages.
const kindComposite keyKind = 12

// maxKeyParts bounds a composite key's columns (PostgreSQL's
// INDEX_MAX_KEYS is 32).
const maxKeyParts = 32

const (
	markNullFirst = 0x00
	markValue     = 0x01
	markNullLast  = 0x02

	partDesc       = 1 << 0
	partNullsFirst = 1 << 1
)

// KeyPart is one column of a composite key and its order.
type KeyPart struct {
	Column     string
	Desc       bool
	NullsFirst bool
}

// part is a KeyPart with the key kind of its column's values.
type part struct {
	KeyPart
	kind keyKind
}

func (p part) flags() uint8 {
	var f uint8
	if p.Desc {
		f |= partDesc
	}
	if p.NullsFirst {
		f |= partNullsFirst
	}
	return f
}

// partsOf checks a composite key's columns and types.
func partsOf(keys []KeyPart, types []arrow.DataType) ([]part, error) {
	if len(keys) == 0 || len(keys) > maxKeyParts || len(types) != len(keys) {
		return nil, fmt.Errorf("%w: composite key of %d columns and %d types (1 to %d)", ErrInvalidArgument, len(keys), len(types), maxKeyParts)
	}
	parts := make([]part, len(keys))
	for i, k := range keys {
		kind, err := kindOf(types[i])
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", k.Column, err)
		}
		parts[i] = part{KeyPart: k, kind: kind}
	}
	return parts, nil
}

// keyParts is the caller's view of parts.
func keyParts(parts []part) []KeyPart {
	if parts == nil {
		return nil
	}
	out := make([]KeyPart, len(parts))
	for i, p := range parts {
		out[i] = p.KeyPart
	}
	return out
}

// appendValue appends the ascending encoding of a non-NULL value already
// converted to its key domain (u for numeric kinds, s for string ones).
func appendValue(dst []byte, kind keyKind, u uint64, s string) []byte {
	switch {
	case kind == kindString:
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				dst = append(dst, 0, 0xff)
			} else {
				dst = append(dst, s[i])
			}
		}
		return append(dst, 0, 1)
	case kind == kindDecimal:
		return append(dst, s...) // 16 bytes, order-preserving already
	}
	return binary.BigEndian.AppendUint64(dst, u)
}

// appendPart appends one part of a key: its marker and its value bytes,
// complemented for a descending part.
func appendPart(dst []byte, p part, null bool, u uint64, s string) []byte {
	if null {
		if p.NullsFirst {
			return append(dst, markNullFirst)
		}
		return append(dst, markNullLast)
	}
	dst = append(dst, markValue)
	start := len(dst)
	dst = appendValue(dst, p.kind, u, s)
	if p.Desc {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

// compositeKeys encodes the rows of cols (one array per part, of the
// part's type) as composite keys.
func compositeKeys(parts []part, cols []arrow.Array) ([]string, error) {
	if len(cols) != len(parts) {
		return nil, fmt.Errorf("%w: %d key columns for a %d-column key", ErrKeyType, len(cols), len(parts))
	}
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	us := make([][]uint64, len(parts))
	ss := make([][]string, len(parts))
	valid := make([][]bool, len(parts))
	for j, p := range parts {
		if cols[j].Len() != n {
			return nil, fmt.Errorf("%w: key columns of %d and %d rows", ErrKeyType, n, cols[j].Len())
		}
		var err error
		if p.kind.stringy() {
			ss[j], valid[j], err = stringKeys(p.kind, nil, cols[j])
		} else {
			us[j], valid[j], err = numericKeys(p.kind, cols[j])
		}
		if err != nil {
			return nil, fmt.Errorf("key column %q: %w", p.Column, err)
		}
	}
	keys := make([]string, n)
	var buf []byte
	for i := range keys {
		buf = buf[:0]
		for j, p := range parts {
			null := valid[j] != nil && !valid[j][i]
			var u uint64
			var s string
			if !null {
				if ss[j] != nil {
					s = ss[j][i]
				} else {
					u = us[j][i]
				}
			}
			buf = appendPart(buf, p, null, u, s)
		}
		keys[i] = string(buf)
	}
	return keys, nil
}

// compositeProbeKeys converts an array of probe keys for a composite index: its
// keys already encoded (binary, as EncodeKeys returns them), or for a
// one-column key the values of that column (a take by key on it).
func compositeProbeKeys(parts []part, arr arrow.Array) (keys []string, valid []bool, err error) {
	if b, ok := arr.(*array.Binary); ok {
		keys = make([]string, b.Len())
		if b.NullN() > 0 {
			valid = make([]bool, b.Len())
		}
		for i := range keys {
			if valid != nil {
				if valid[i] = b.IsValid(i); !valid[i] {
					continue
				}
			}
			keys[i] = string(b.Value(i))
		}
		return keys, valid, nil
	}
	if len(parts) != 1 {
		return nil, nil, fmt.Errorf("%w: probe of a %d-column key with %s values", ErrKeyType, len(parts), arr.DataType())
	}
	if keys, err = compositeKeys(parts, []arrow.Array{arr}); err != nil {
		return nil, nil, err
	}
	// A NULL probe matches nothing (NULL = NULL is not true).
	if arr.NullN() > 0 {
		valid = make([]bool, arr.Len())
		for i := range valid {
			valid[i] = arr.IsValid(i)
		}
	}
	return keys, valid, nil
}

// EncodeKeys encodes rows of the key columns (one array per key column,
// in key order) as the composite index's binary keys, for Lookup and
// SearchIn. The caller releases the array.
func (ix *Index) EncodeKeys(cols []arrow.Array, mem memory.Allocator) (*array.Binary, error) {
	if ix.lk.kind != kindComposite {
		return nil, fmt.Errorf("%w: EncodeKeys on a %s index", ErrKeyType, ix.KeyType())
	}
	keys, err := compositeKeys(ix.lk.parts, cols)
	if err != nil {
		return nil, err
	}
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	for _, k := range keys {
		b.AppendString(k)
	}
	return b.NewBinaryArray(), nil
}

// Keys returns a composite index's key columns and their order (nil for a
// one-column index of an earlier format).
func (ix *Index) Keys() []KeyPart { return keyParts(ix.lk.parts) }

// Range bounds the values of one key column; a nil bound is unbounded.
// Lo and Hi take the Go values SearchRange takes for that column's type.
type Range struct {
	Lo, Hi         any
	LoIncl, HiIncl bool
}

// SearchPrefix returns the addresses of the entries whose first
// len(eq) key columns equal eq (no NULLs: NULL = x is never true) and,
// when rng is set, whose next key column lies in rng (NULLs excluded):
// PostgreSQL's btree scan over equality keys on a prefix of the index
// columns and inequality keys on the one after them (_bt_first's
// insertion-scankey prefix). A one-column index of an earlier format
// answers it with SearchEqual or SearchRange.
func (ix *Index) SearchPrefix(ctx context.Context, eq []any, rng *Range) (*roaring64.Bitmap, error) {
	if ix.lk.kind != kindComposite {
		switch {
		case len(eq) == 1 && rng == nil:
			return ix.SearchEqual(ctx, eq[0])
		case len(eq) == 0 && rng != nil:
			return ix.SearchRange(ctx, rng.Lo, rng.Hi, rng.LoIncl, rng.HiIncl)
		}
		return nil, fmt.Errorf("%w: prefix of %d columns on a one-column index", ErrInvalidArgument, len(eq)+btoi(rng != nil))
	}
	parts := ix.lk.parts
	if len(eq)+btoi(rng != nil) > len(parts) || len(eq)+btoi(rng != nil) == 0 {
		return nil, fmt.Errorf("%w: prefix of %d columns on a %d-column key", ErrInvalidArgument, len(eq)+btoi(rng != nil), len(parts))
	}
	var prefix []byte
	for i, v := range eq {
		if v == nil {
			return nil, fmt.Errorf("%w: NULL equality key", ErrInvalidArgument)
		}
		var err error
		if prefix, err = appendScalar(prefix, parts[i], v); err != nil {
			return nil, err
		}
	}
	out := roaring64.New()
	lo, hi, empty, err := prefixBounds(prefix, parts, len(eq), rng)
	if err != nil || empty {
		return out, err
	}
	return out, scanRange(ctx, ix, ix.sops(), lo, hi, out)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendScalar appends part p of a key holding the search value v.
func appendScalar(dst []byte, p part, v any) ([]byte, error) {
	u, s, err := scalarKey(p.kind, v)
	if err != nil {
		return nil, fmt.Errorf("key column %q: %w", p.Column, err)
	}
	return appendPart(dst, p, false, u, s), nil
}

// prefixBounds turns an equality prefix and a range on the next part into
// byte bounds: the keys starting with prefix whose next part is a non-NULL
// value in rng. For a descending part the value bytes are complemented, so
// rng's low end bounds the keys from above and its high end from below.
// empty says that nothing can match.
func prefixBounds(prefix []byte, parts []part, next int, rng *Range) (lo, hi *bound[string], empty bool, err error) {
	if rng == nil {
		lo = &bound[string]{string(prefix), true}
		if s, ok := successor(prefix); ok {
			hi = &bound[string]{s, false}
		}
		return lo, hi, false, nil
	}
	p := parts[next]
	// Non-NULL values of part p: [prefix|0x01, prefix|0x02).
	vlo := &bound[string]{string(append(slices.Clip(prefix), markValue)), true}
	vhi := &bound[string]{string(append(slices.Clip(prefix), markValue+1)), false}
	// The key bound of one end of rng: keys at or above the value's
	// encoding (all keys that start with it are above it), or above every
	// key that starts with it.
	at := func(v any) (string, string, bool, error) {
		b, err := appendScalar(slices.Clip(prefix), p, v)
		if err != nil {
			return "", "", false, err
		}
		s, ok := successor(b)
		return string(b), s, ok, nil
	}
	lowV, highV, lowIncl, highIncl := rng.Lo, rng.Hi, rng.LoIncl, rng.HiIncl
	if p.Desc {
		lowV, highV, lowIncl, highIncl = rng.Hi, rng.Lo, rng.HiIncl, rng.LoIncl
	}
	lo, hi = vlo, vhi
	if lowV != nil {
		b, s, ok, err := at(lowV)
		if err != nil {
			return nil, nil, false, err
		}
		switch {
		case lowIncl:
			lo = &bound[string]{b, true}
		case ok:
			lo = &bound[string]{s, true}
		default:
			return nil, nil, true, nil // above the greatest key: nothing
		}
	}
	if highV != nil {
		b, s, ok, err := at(highV)
		if err != nil {
			return nil, nil, false, err
		}
		switch {
		case !highIncl:
			hi = &bound[string]{b, false}
		case ok:
			hi = &bound[string]{s, false}
		}
	}
	if lo.v > hi.v || lo.v == hi.v && !(lo.incl && hi.incl) {
		return nil, nil, true, nil
	}
	return lo, hi, false, nil
}

// successor is the least byte string greater than every string that
// starts with b; ok is false when there is none (b is all 0xff).
func successor(b []byte) (string, bool) {
	s := slices.Clone(b)
	for len(s) > 0 && s[len(s)-1] == 0xff {
		s = s[:len(s)-1]
	}
	if len(s) == 0 {
		return "", false
	}
	s[len(s)-1]++
	return string(s), true
}

// CompositeKeys encodes rows of cols (one array per key column, of any
// key type) as composite keys under keys' orders, and reports the rows
// with a NULL column: the canonical form a unique check compares rows in,
// whatever the index's own file format.
func CompositeKeys(keys []KeyPart, cols []arrow.Array) (out []string, null []bool, err error) {
	types := make([]arrow.DataType, len(cols))
	for i, c := range cols {
		types[i] = c.DataType()
	}
	parts, err := partsOf(keys, types)
	if err != nil {
		return nil, nil, err
	}
	if out, err = compositeKeys(parts, cols); err != nil {
		return nil, nil, err
	}
	null = make([]bool, len(out))
	for _, c := range cols {
		if c.NullN() == 0 {
			continue
		}
		for i := range null {
			null[i] = null[i] || c.IsNull(i)
		}
	}
	return out, null, nil
}
