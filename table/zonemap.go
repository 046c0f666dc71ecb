package table

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/stablerow/stablerow/value"
)

// Zone maps: per record batch of a data file and per user column, the
// null count and a lower and an upper bound of the non-null values, taken
// when the batch is written (fragmentWriter.writeBatch: every path that
// writes data files, Append, COPY, compaction, recluster and update
// rewrites, goes through it). A scan given a conjunction of simple
// predicates skips a batch whose bounds prove that no row can satisfy
// one of them (zonescan.go), as PostgreSQL's BRIN minmax opclass skips
// a block range (brin_minmax_consistent over the range's min, max,
// hasnulls and allnulls).
//
// They live in the manifest, in each fragment's DataFileInfo (Zones),
// so a scan decides which batches to read before it opens the data file.
// The blob has its own framing so that its decoder stands alone (and is
// fuzzed alone); the manifest's CRC covers it too:
//
//	"SRZM" | u16 format 1 | u16 flags 0 | uv batches | uv columns |
//	batches x columns x (uv nulls | u8 bounds | [min] | [max]) | u32 CRC32C of all before
//
// bounds is a bit set: 1 a min is present, 2 a max is present (no bounds
// when every value of the batch is NULL; a string column's max may be
// absent, below). A bound is encoded by its column's kind:
//
//	int (ints, bool, date, timestamp): zigzag varint of the int64 value
//	uint:    uvarint
//	float:   8 bytes, float64 bits (float32 widens exactly); -0 stored as 0
//	decimal: 16 bytes, low then high 64 bits of the unscaled value
//	string (string, binary): uv length | bytes, at most zoneStringBound bytes
//
// Order is the one the engine's comparisons use, PostgreSQL's: floats by
// float8_cmp_internal (NaN equal to NaN and greater than every other
// value, value.CompareFloat), strings bytewise (the C collation),
// character(n) without its trailing blanks (value.TrimBlanks; the bound
// of an old, blank-padded char(n) column is taken over the trimmed
// values, the form its scan hands the engine). A long string's min is
// its first zoneStringBound bytes (a prefix sorts no later than the
// string); its max is its first zoneStringBound bytes with the last byte
// that is not 0xFF incremented and what follows dropped (sorts after
// every string with that prefix), or no max when all are 0xFF.
//
// Files written before zone maps (manifest format versions before 5)
// have none; their batches are always read.
//
// Format 2 adds, after the zones and before the CRC, the file's
// distinct-count sketch of each column (sketch.go), which the optimizer
// merges over a table's fragments:
//
//	... zones ... | columns x (uv length | sketch) | u32 CRC32C of all before
//
// Format 1 blobs (written before sketches) still read, without
// sketches: the estimator then falls back to its fixed guesses, as
// PostgreSQL's does for a table never analysed. ANALYZE rewrites them.

// zoneMagic and zoneFormat frame a zone map blob.
const (
	zoneMagic = "SRZM"
	// zoneFormat is the format written, with sketches; zoneFormatNoSketch
	// is the one before them, still read.
	zoneFormat         = 2
	zoneFormatNoSketch = 1
	// zoneStringBound is the most bytes a string bound keeps.
	zoneStringBound = 32
)

// zoneKind is how a column's bounds are held and compared.
type zoneKind uint8

const (
	zoneInt zoneKind = iota + 1
	zoneUint
	zoneFloat
	zoneDecimal
	zoneString
)

// kindOf is the zone kind of a stored column type (typeCodes); every
// stored type has one.
func kindOf(t arrow.DataType) zoneKind {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP:
		return zoneInt
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return zoneUint
	case arrow.FLOAT32, arrow.FLOAT64:
		return zoneFloat
	case arrow.DECIMAL128:
		return zoneDecimal
	case arrow.STRING, arrow.BINARY:
		return zoneString
	}
	return 0
}

// ColumnZone is one column's statistics in one batch. Min and Max are nil
// when absent, else the kind's Go type: int64, uint64, float64,
// decimal128.Num or string.
type ColumnZone struct {
	Nulls    uint64
	Min, Max any
}

// ZoneMap is a data file's zone map: Batches[i][c] is column c of batch i.
type ZoneMap struct {
	Batches [][]ColumnZone
	// Sketches[c] is column c's distinct-count sketch over the file; nil
	// in a format 1 blob, and after a decode that wanted some columns'
	// zones only (a scan's pruning, which never reads them).
	Sketches []*Sketch
}

// zoneCompare orders two bounds of one kind (both non-nil, same Go type).
func zoneCompare(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmpOrdered(x, y)
	case uint64:
		return cmpOrdered(x, b.(uint64))
	case float64:
		return value.CompareFloat(x, b.(float64))
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	case string:
		return strings.Compare(x, b.(string))
	}
	panic("table: zone bound of unknown type") // callers check types first
}

func cmpOrdered[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// zoneBuilder gathers one batch's statistics per column.
type zoneBuilder struct {
	kinds []zoneKind
	trim  []bool // char(n) columns: bounds over the values without trailing blanks
}

func newZoneBuilder(s *arrow.Schema) *zoneBuilder {
	zb := &zoneBuilder{kinds: make([]zoneKind, s.NumFields()), trim: make([]bool, s.NumFields())}
	for i, f := range s.Fields() {
		zb.kinds[i] = kindOf(f.Type)
		if decl, ok := SQLType(f); ok && strings.HasPrefix(decl, "char(") {
			zb.trim[i] = true
		}
	}
	return zb
}

// batch computes the zones of b's columns.
func (zb *zoneBuilder) batch(b arrow.RecordBatch) []ColumnZone {
	out := make([]ColumnZone, b.NumCols())
	for c := range out {
		out[c] = zb.column(b.Column(c), zb.trim[c])
	}
	return out
}

func (zb *zoneBuilder) column(a arrow.Array, trim bool) ColumnZone {
	z := ColumnZone{Nulls: uint64(a.NullN())}
	if a.NullN() == a.Len() {
		return z
	}
	var lo, hi any
	see := func(v any) {
		if lo == nil || zoneCompare(v, lo) < 0 {
			lo = v
		}
		if hi == nil || zoneCompare(v, hi) > 0 {
			hi = v
		}
	}
	switch x := a.(type) {
	case *array.Boolean:
		for i := 0; i < x.Len(); i++ {
			if x.IsValid(i) {
				v := int64(0)
				if x.Value(i) {
					v = 1
				}
				see(v)
			}
		}
	case *array.Int8:
		minMaxInts(x, x.Value, see)
	case *array.Int16:
		minMaxInts(x, x.Value, see)
	case *array.Int32:
		minMaxInts(x, x.Value, see)
	case *array.Int64:
		minMaxInts(x, x.Value, see)
	case *array.Date32:
		minMaxInts(x, x.Value, see)
	case *array.Timestamp:
		minMaxInts(x, x.Value, see)
	case *array.Uint8:
		minMaxUints(x, x.Value, see)
	case *array.Uint16:
		minMaxUints(x, x.Value, see)
	case *array.Uint32:
		minMaxUints(x, x.Value, see)
	case *array.Uint64:
		minMaxUints(x, x.Value, see)
	case *array.Float32:
		for i := 0; i < x.Len(); i++ {
			if x.IsValid(i) {
				see(normFloat(float64(x.Value(i))))
			}
		}
	case *array.Float64:
		for i := 0; i < x.Len(); i++ {
			if x.IsValid(i) {
				see(normFloat(x.Value(i)))
			}
		}
	case *array.Decimal128:
		for i := 0; i < x.Len(); i++ {
			if x.IsValid(i) {
				see(x.Value(i))
			}
		}
	case *array.String:
		minMaxStrings(x.Len(), x.IsValid, x.Value, trim, see)
	case *array.Binary:
		minMaxStrings(x.Len(), x.IsValid, func(i int) string { return string(x.Value(i)) }, false, see)
	default:
		return z // no bounds: every batch may match
	}
	z.Min, z.Max = lo, hi
	if s, ok := lo.(string); ok {
		z.Min, z.Max = stringLowerBound(s), stringUpperBound(hi.(string))
	}
	return z
}

// normFloat stores -0 as 0 (they compare equal) so equal bounds encode alike.
func normFloat(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

// minMaxInts sees the least and greatest valid values of an integer-like
// column as int64, minMaxUints as uint64 (the zone's two encodings).
func minMaxInts[T int8 | int16 | int32 | int64 | arrow.Date32 | arrow.Timestamp](a arrow.Array, v func(int) T, see func(any)) {
	if lo, hi, ok := minMax(a, v); ok {
		see(int64(lo))
		see(int64(hi))
	}
}

func minMaxUints[T uint8 | uint16 | uint32 | uint64](a arrow.Array, v func(int) T, see func(any)) {
	if lo, hi, ok := minMax(a, v); ok {
		see(uint64(lo))
		see(uint64(hi))
	}
}

// minMax is the least and greatest of a's valid values; ok is false when
// every value is NULL.
func minMax[T cmp.Ordered](a arrow.Array, v func(int) T) (lo, hi T, ok bool) {
	for i := 0; i < a.Len(); i++ {
		if a.IsValid(i) {
			x := v(i)
			if !ok || x < lo {
				lo = x
			}
			if !ok || x > hi {
				hi = x
			}
			ok = true
		}
	}
	return lo, hi, ok
}

func minMaxStrings(n int, valid func(int) bool, v func(int) string, trim bool, see func(any)) {
	first := true
	var lo, hi string
	for i := 0; i < n; i++ {
		if valid(i) {
			x := v(i)
			if trim {
				x = value.TrimBlanks(x)
			}
			if first || x < lo {
				lo = x
			}
			if first || x > hi {
				hi = x
			}
			first = false
		}
	}
	if !first {
		// Cloned: the batch's buffers are not ours to keep.
		see(strings.Clone(lo))
		see(strings.Clone(hi))
	}
}

// stringLowerBound is s cut to zoneStringBound bytes: a prefix sorts no
// later than s.
func stringLowerBound(s string) string {
	if len(s) <= zoneStringBound {
		return s
	}
	return strings.Clone(s[:zoneStringBound])
}

// stringUpperBound is a string of at most zoneStringBound bytes sorting no
// earlier than s and every string below it, or nil when there is none
// (the first zoneStringBound bytes are all 0xFF).
func stringUpperBound(s string) any {
	if len(s) <= zoneStringBound {
		return s
	}
	b := []byte(s[:zoneStringBound])
	for len(b) > 0 && b[len(b)-1] == 0xFF {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil
	}
	b[len(b)-1]++
	return string(b)
}

// encodeZoneMap frames zm for the manifest.
func encodeZoneMap(zm *ZoneMap, kinds []zoneKind) []byte {
	e := &encoder{}
	e.b = append(e.b, zoneMagic...)
	e.b = binary.LittleEndian.AppendUint16(e.b, zoneFormat)
	e.b = binary.LittleEndian.AppendUint16(e.b, 0)
	e.uv(uint64(len(zm.Batches)))
	e.uv(uint64(len(kinds)))
	for _, cols := range zm.Batches {
		for c, z := range cols {
			e.uv(z.Nulls)
			var bits byte
			if z.Min != nil {
				bits |= 1
			}
			if z.Max != nil {
				bits |= 2
			}
			e.b = append(e.b, bits)
			for _, v := range []any{z.Min, z.Max} {
				if v != nil {
					encodeBound(e, kinds[c], v)
				}
			}
		}
	}
	for c := range kinds {
		sk := &Sketch{}
		if c < len(zm.Sketches) && zm.Sketches[c] != nil {
			sk = zm.Sketches[c]
		}
		e.bytes(sk.encode())
	}
	return binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
}

func encodeBound(e *encoder, k zoneKind, v any) {
	switch k {
	case zoneInt:
		e.b = binary.AppendVarint(e.b, v.(int64))
	case zoneUint:
		e.uv(v.(uint64))
	case zoneFloat:
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v.(float64)))
	case zoneDecimal:
		n := v.(decimal128.Num)
		e.b = binary.LittleEndian.AppendUint64(e.b, n.LowBits())
		e.b = binary.LittleEndian.AppendUint64(e.b, uint64(n.HighBits()))
	case zoneString:
		e.str(v.(string))
	}
}

// zoneHeader is the fixed part before the counts.
const zoneHeader = 4 + 2 + 2

// DecodeZoneMap reads a zone map blob of a data file whose user columns
// have types, whose batches hold rows[i] rows each. Everything is checked
// before it is believed: magic, format, flags, CRC, the counts against
// the file's, every length against the bytes left, no trailing bytes,
// null counts against the rows, bounds present exactly when a non-null
// value is (a string max may be absent), string bounds' lengths, min <=
// max. Damage is ErrCorrupt, never a panic.
func DecodeZoneMap(b []byte, types []arrow.DataType, rows []uint64) (*ZoneMap, error) {
	return decodeZoneMap(b, types, rows, nil)
}

// decodeZoneMap is DecodeZoneMap that materializes the bounds of the
// columns in want only (every column when want is nil). The others are
// walked, and their lengths and counts checked, but their bounds are
// skipped without an allocation: a scan needs the zones of the columns
// its predicates name, and boxing every bound of a wide table costs more
// than a selective scan saves (16 columns of 733 batches, TPC-H lineitem
// at SF 1: 30K allocations, about 2.8 ms, for every scan). The zones of
// the other columns are left zero and must not be read.
func decodeZoneMap(b []byte, types []arrow.DataType, rows []uint64, want []bool) (*ZoneMap, error) {
	return decodeZones(b, types, rows, want, want == nil)
}

// decodeZones is decodeZoneMap that keeps the sketches when sketches is
// set, whatever want says (want all false and sketches set: the
// sketches alone, as the optimizer's distinct counts read them).
func decodeZones(b []byte, types []arrow.DataType, rows []uint64, want []bool, sketches bool) (*ZoneMap, error) {
	if len(b) < zoneHeader+4 {
		return nil, errorf(ErrCorrupt, "zone map: %d bytes is too short", len(b))
	}
	if !bytes.Equal(b[:4], []byte(zoneMagic)) {
		return nil, errorf(ErrCorrupt, "zone map: bad magic %q", b[:4])
	}
	format := binary.LittleEndian.Uint16(b[4:])
	if format != zoneFormat && format != zoneFormatNoSketch {
		return nil, errorf(ErrCorrupt, "zone map: unsupported format %d", format)
	}
	if fl := binary.LittleEndian.Uint16(b[6:]); fl != 0 {
		return nil, errorf(ErrCorrupt, "zone map: unknown flags %#x", fl)
	}
	crcAt := len(b) - 4
	if got, want := crc32.Checksum(b[:crcAt], castagnoli), binary.LittleEndian.Uint32(b[crcAt:]); got != want {
		return nil, errorf(ErrCorrupt, "zone map: checksum mismatch (%08x != %08x)", got, want)
	}
	d := &decoder{b: b[zoneHeader:crcAt]}
	nb, nc := d.uv("zone map batch count"), d.uv("zone map column count")
	if d.err != nil {
		return nil, d.err
	}
	if nb != uint64(len(rows)) || nc != uint64(len(types)) {
		return nil, errorf(ErrCorrupt, "zone map: %d batches of %d columns, the file has %d of %d", nb, nc, len(rows), len(types))
	}
	kinds := make([]zoneKind, len(types))
	for c, t := range types {
		if kinds[c] = kindOf(t); kinds[c] == 0 {
			return nil, errorf(ErrCorrupt, "zone map: column %d has type %s", c, t)
		}
	}
	// Each column zone takes at least 2 bytes: bound the allocation by
	// the input before making it.
	if nb*nc > uint64(len(d.b))/2 {
		return nil, errorf(ErrCorrupt, "zone map: %d zones in %d bytes", nb*nc, len(d.b))
	}
	// With no column wanted (a check, not a use) nothing is kept.
	zm := &ZoneMap{}
	var scratch ColumnZone
	if want == nil || slices.Contains(want, true) {
		zm.Batches = make([][]ColumnZone, nb)
		all := make([]ColumnZone, nb*nc)
		for i := range zm.Batches {
			zm.Batches[i] = all[uint64(i)*nc : uint64(i+1)*nc : uint64(i+1)*nc]
		}
	}
	for i := range nb {
		for c := range nc {
			z := &scratch
			if zm.Batches != nil {
				z = &zm.Batches[i][c]
			}
			z.Nulls = d.uv("zone null count")
			bits := d.fixed("zone bounds", 1)
			if d.err != nil {
				return nil, d.err
			}
			if want != nil && !want[c] {
				if err := skipZone(d, z.Nulls, bits[0], kinds[c], rows[i]); err != "" {
					return nil, errorf(ErrCorrupt, "zone map: batch %d column %d: %s", i, c, err)
				}
				if d.err != nil {
					return nil, d.err
				}
				z.Nulls = 0
				continue
			}
			if bits[0]&1 != 0 {
				z.Min = decodeBound(d, kinds[c])
			}
			if bits[0]&2 != 0 {
				z.Max = decodeBound(d, kinds[c])
			}
			if d.err != nil {
				return nil, d.err
			}
			if err := checkZone(z, bits[0], kinds[c], rows[i]); err != "" {
				return nil, errorf(ErrCorrupt, "zone map: batch %d column %d: %s", i, c, err)
			}
		}
	}
	if format >= zoneFormat {
		// A scan's pruning (some column wanted, no sketch) skips the
		// sketches: the CRC above already vouched for their bytes. A
		// check (no column wanted) decodes and drops them.
		prune := !sketches && want != nil && slices.Contains(want, true)
		if !prune {
			zm.Sketches = make([]*Sketch, nc)
		}
		for c := range nc {
			p := d.bytes("zone map sketch")
			if d.err != nil {
				return nil, d.err
			}
			if prune {
				continue
			}
			sk, err := DecodeSketch(p)
			if err != nil {
				return nil, errorf(ErrCorrupt, "zone map: column %d: %w", c, err)
			}
			zm.Sketches[c] = sk
		}
		if !sketches {
			zm.Sketches = nil
		}
	}
	if len(d.b) != 0 {
		return nil, errorf(ErrCorrupt, "zone map: %d trailing bytes", len(d.b))
	}
	return zm, nil
}

func decodeBound(d *decoder, k zoneKind) any {
	switch k {
	case zoneInt:
		if d.err != nil {
			return nil
		}
		x, n := binary.Varint(d.b)
		if n <= 0 {
			d.fail("zone bound")
			return nil
		}
		d.b = d.b[n:]
		return x
	case zoneUint:
		return d.uv("zone bound")
	case zoneFloat:
		p := d.fixed("zone bound", 8)
		if p == nil {
			return nil
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	case zoneDecimal:
		p := d.fixed("zone bound", 16)
		if p == nil {
			return nil
		}
		return decimal128.New(int64(binary.LittleEndian.Uint64(p[8:])), binary.LittleEndian.Uint64(p))
	case zoneString:
		return d.str("zone bound")
	}
	d.fail("zone bound kind")
	return nil
}

// skipZone steps over the bounds of a zone that is not materialized,
// checking what can be checked without them: the bits, the null count
// against the rows, bounds present exactly when a non-null value is, and
// a string bound's length.
func skipZone(d *decoder, nulls uint64, bits byte, k zoneKind, rows uint64) string {
	switch {
	case bits > 3:
		return "unknown bound bits"
	case nulls > rows:
		return "more nulls than rows"
	case nulls == rows && bits != 0:
		return "bounds on an all-null batch"
	case nulls < rows && bits&1 == 0:
		return "no min for non-null values"
	case nulls < rows && bits&2 == 0 && k != zoneString:
		return "no max for non-null values"
	}
	for _, bit := range []byte{1, 2} {
		if bits&bit == 0 {
			continue
		}
		switch k {
		case zoneInt:
			if d.err == nil {
				if _, n := binary.Varint(d.b); n <= 0 {
					d.fail("zone bound")
				} else {
					d.b = d.b[n:]
				}
			}
		case zoneUint:
			d.uv("zone bound")
		case zoneFloat:
			d.fixed("zone bound", 8)
		case zoneDecimal:
			d.fixed("zone bound", 16)
		case zoneString:
			if p := d.bytes("zone bound"); len(p) > zoneStringBound {
				return "string bound too long"
			}
		default:
			d.fail("zone bound kind")
		}
	}
	return "" // a truncated bound is d.err, the caller's to return
}

// checkZone is what a zone must hold to be believed (the writer's rules).
func checkZone(z *ColumnZone, bits byte, k zoneKind, rows uint64) string {
	switch {
	case bits > 3:
		return "unknown bound bits"
	case z.Nulls > rows:
		return "more nulls than rows"
	case z.Nulls == rows && bits != 0:
		return "bounds on an all-null batch"
	case z.Nulls < rows && z.Min == nil:
		return "no min for non-null values"
	case z.Nulls < rows && z.Max == nil && k != zoneString:
		return "no max for non-null values"
	}
	if k == zoneString && z.Min != nil {
		if len(z.Min.(string)) > zoneStringBound || (z.Max != nil && len(z.Max.(string)) > zoneStringBound) {
			return "string bound too long"
		}
	}
	if k == zoneFloat {
		for _, v := range []any{z.Min, z.Max} {
			if f, ok := v.(float64); ok && f == 0 && math.Signbit(f) {
				return "negative zero bound"
			}
		}
	}
	if z.Min != nil && z.Max != nil && zoneCompare(z.Min, z.Max) > 0 {
		return "min above max"
	}
	return ""
}

// batchRowCounts lists the rows of each batch of f.
func batchRowCounts(f *Fragment) []uint64 {
	n := batchCount(f.PhysicalRows, f.BatchRows)
	out := make([]uint64, n)
	for i := range out {
		out[i] = min(f.BatchRows, f.PhysicalRows-uint64(i)*f.BatchRows)
	}
	return out
}

// userTypes lists the types of the schema's fields.
func userTypes(s *arrow.Schema) []arrow.DataType {
	out := make([]arrow.DataType, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Type
	}
	return out
}
