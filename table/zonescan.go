package table

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// ZoneOp is the operator of a ZonePred.
type ZoneOp uint8

const (
	ZoneEq        ZoneOp = iota + 1 // column = Values[0]
	ZoneLt                          // column < Values[0]
	ZoneLe                          // column <= Values[0]
	ZoneGt                          // column > Values[0]
	ZoneGe                          // column >= Values[0]
	ZoneIn                          // column = any of Values
	ZoneIsNull                      // column IS NULL
	ZoneIsNotNull                   // column IS NOT NULL
)

var zoneOpNames = [...]string{ZoneEq: "=", ZoneLt: "<", ZoneLe: "<=", ZoneGt: ">", ZoneGe: ">=", ZoneIn: "IN", ZoneIsNull: "IS NULL", ZoneIsNotNull: "IS NOT NULL"}

// ZonePred is one conjunct a scan may skip batches by (ScanOptions.Where).
// Values are constants in the Go type of the column's zone kind, compared
// in the order the engine compares the column's values (zonemap.go):
// int64 for integer, bool (0, 1), date and timestamp columns, uint64 for
// unsigned ones, float64 for floats, decimal128.Num at the column's scale
// for decimals, string for strings (a char(n) column's values without
// their trailing blanks). A caller passes only predicates that hold
// exactly so for the column's values; a NULL constant is left out (a
// comparison with NULL is never true, so it proves nothing either way).
type ZonePred struct {
	Column string
	Op     ZoneOp
	Values []any
}

func (p ZonePred) String() string {
	if p.Op == ZoneIsNull || p.Op == ZoneIsNotNull {
		return fmt.Sprintf("%s %s", p.Column, zoneOpNames[p.Op])
	}
	if p.Op == ZoneIn {
		return fmt.Sprintf("%s IN (%d values)", p.Column, len(p.Values))
	}
	if int(p.Op) < len(zoneOpNames) && len(p.Values) == 1 {
		return fmt.Sprintf("%s %s %v", p.Column, zoneOpNames[p.Op], p.Values[0])
	}
	return fmt.Sprintf("%s op %d", p.Column, p.Op)
}

// ScanStats are a scan's own figures of what it read.
type ScanStats struct {
	BatchesRead    int64 // data file batches decoded
	BatchesSkipped int64 // batches the zone maps proved hold no matching row
	BytesRead      int64 // data file bytes of the batches decoded (the parts of the columns read, on a mapped file; whole spans from a store reader)
}

// zonePred is a ZonePred resolved against the schema.
type zonePred struct {
	col int
	ZonePred
}

// resolveZonePreds checks preds against the user schema: a known user
// column, an operator with its number of values, each of the column's
// zone kind. A mismatch is the caller's bug: ErrInvalidArgument.
func (t *Table) resolveZonePreds(preds []ZonePred) ([]zonePred, error) {
	out := make([]zonePred, 0, len(preds))
	us := t.m.Schema
	for _, p := range preds {
		idx := us.FieldIndices(p.Column)
		if len(idx) != 1 {
			return nil, errorf(ErrInvalidArgument, "scan: zone predicate on unknown column %q", p.Column)
		}
		k := kindOf(us.Field(idx[0]).Type)
		switch {
		case p.Op == ZoneIsNull || p.Op == ZoneIsNotNull:
			if len(p.Values) != 0 {
				return nil, errorf(ErrInvalidArgument, "scan: zone predicate %s with values", p)
			}
		case p.Op == ZoneIn:
			if len(p.Values) == 0 {
				return nil, errorf(ErrInvalidArgument, "scan: zone predicate IN without values")
			}
		case p.Op >= ZoneEq && p.Op <= ZoneGe:
			if len(p.Values) != 1 {
				return nil, errorf(ErrInvalidArgument, "scan: zone predicate %s wants one value", p)
			}
		default:
			return nil, errorf(ErrInvalidArgument, "scan: unknown zone operator %d", p.Op)
		}
		for _, v := range p.Values {
			if !zoneKindHolds(k, v) {
				return nil, errorf(ErrInvalidArgument, "scan: zone predicate on %q (%s): value %v of type %T", p.Column, us.Field(idx[0]).Type, v, v)
			}
		}
		out = append(out, zonePred{col: idx[0], ZonePred: p})
	}
	return out, nil
}

func zoneKindHolds(k zoneKind, v any) bool {
	switch v.(type) {
	case int64:
		return k == zoneInt
	case uint64:
		return k == zoneUint
	case float64:
		return k == zoneFloat
	case decimal128.Num:
		return k == zoneDecimal
	case string:
		return k == zoneString
	}
	return false
}

// mayMatch reports whether a row of a batch with zone z (of rows rows)
// can satisfy p: false only when the bounds prove none can, as
// brin_minmax_consistent decides for a block range. A comparison is
// never true on NULL, so an all-NULL batch matches only IS NULL; an
// absent bound (a string max past zoneStringBound bytes of 0xFF) bounds
// nothing.
func (p *zonePred) mayMatch(z *ColumnZone, rows uint64) bool {
	switch p.Op {
	case ZoneIsNull:
		return z.Nulls > 0
	case ZoneIsNotNull:
		return z.Nulls < rows
	}
	if z.Nulls >= rows {
		return false
	}
	switch p.Op {
	case ZoneIn:
		for _, v := range p.Values {
			if inBounds(z, v) {
				return true
			}
		}
		return false
	case ZoneEq:
		return inBounds(z, p.Values[0])
	case ZoneLt: // some value < c iff min < c
		return z.Min == nil || zoneCompare(z.Min, p.Values[0]) < 0
	case ZoneLe:
		return z.Min == nil || zoneCompare(z.Min, p.Values[0]) <= 0
	case ZoneGt: // some value > c iff max > c
		return z.Max == nil || zoneCompare(z.Max, p.Values[0]) > 0
	case ZoneGe:
		return z.Max == nil || zoneCompare(z.Max, p.Values[0]) >= 0
	}
	return true
}

// inBounds: min <= v <= max (an absent bound holds).
func inBounds(z *ColumnZone, v any) bool {
	return (z.Min == nil || zoneCompare(z.Min, v) <= 0) && (z.Max == nil || zoneCompare(z.Max, v) >= 0)
}

// pruneByZones cuts each span [start, end) of frags into the runs of
// batches that the predicates cannot rule out (a fragment without a zone
// map keeps its span), and counts the batches skipped. Spans stay in
// order, so the scan's output order is unchanged.
func (t *Table) pruneByZones(preds []zonePred, frags []*Fragment, spans [][2]uint64) ([]*Fragment, [][2]uint64, int64, error) {
	var outF []*Fragment
	var outS [][2]uint64
	var skipped int64
	types := userTypes(t.m.Schema)
	want := make([]bool, len(types))
	for _, p := range preds {
		want[p.col] = true
	}
	for i, f := range frags {
		sp := spans[i]
		if f.File.Zones == nil || sp[0] >= sp[1] {
			outF, outS = append(outF, f), append(outS, sp)
			continue
		}
		rows := batchRowCounts(f)
		zones, err := t.m.zones.columnZones(f, types, want)
		if err != nil {
			return nil, nil, 0, err
		}
		run := -1 // start of the current run of kept batches, or -1
		flush := func(b uint64) {
			if run >= 0 {
				outF = append(outF, f)
				outS = append(outS, [2]uint64{uint64(run) * f.BatchRows, min(b*f.BatchRows, sp[1])})
				run = -1
			}
		}
		first, last := sp[0]/f.BatchRows, (sp[1]-1)/f.BatchRows
		for b := first; b <= last; b++ {
			keep := true
			for k := range preds {
				if !preds[k].mayMatch(&zones[preds[k].col][b], rows[b]) {
					keep = false
					break
				}
			}
			if keep {
				if run < 0 {
					run = int(b)
				}
				continue
			}
			skipped++
			flush(b)
		}
		flush(last + 1)
	}
	return outF, outS, skipped, nil
}
