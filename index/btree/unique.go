package btree

import (
	"context"
	"errors"
)

// errStop ends a page walk early.
var errStop = errors.New("stop")

// HasDuplicate reports whether two entries have equal keys, neither NULL
// nor, in a composite key, holding a NULL column (NULLs are distinct, as
// in a PostgreSQL unique index). Entries are in key order, so equal keys
// are neighbours, within a page or across two.
func (ix *Index) HasDuplicate(ctx context.Context) (bool, error) {
	var prevU uint64
	var prevS string
	have, dup := false, false
	err := ix.forEachPage(ctx, func(_ int, pg *page) error {
		for i := 0; i < pg.n; i++ {
			switch pg.kind {
			case pageNull:
				return nil
			case pageInt:
				k := pg.ukeys.at(i)
				dup = have && k == prevU
				prevU, have = k, true
			case pageString:
				k := pg.skeys[i]
				if ix.lk.kind == kindComposite && hasNullPart(ix.lk.parts, k) {
					have = false
					continue
				}
				dup = have && k == prevS
				prevS, have = k, true
			}
			if dup {
				return errStop
			}
		}
		return ctx.Err()
	})
	if err == errStop {
		return true, nil
	}
	return false, err
}

// hasNullPart reports whether composite key k has a NULL column. A key
// that does not parse (never one this package wrote) counts as NULL, so
// it conflicts with nothing.
func hasNullPart(parts []part, k string) bool {
	for _, p := range parts {
		if len(k) == 0 || k[0] != markValue {
			return true
		}
		k = k[1:]
		switch p.kind {
		case kindString:
			// The value ends at the terminator 0x00 0x01 (complemented
			// for DESC: 0xff 0xfe); an escaped 0x00 is 0x00 0xff.
			zero, end := byte(0), byte(1)
			if p.Desc {
				zero, end = ^zero, ^end
			}
			i := 0
			for ; i+1 < len(k); i++ {
				if k[i] == zero {
					if k[i+1] == end {
						break
					}
					i++ // escaped zero
				}
			}
			if i+1 >= len(k) {
				return true
			}
			k = k[i+2:]
		case kindDecimal:
			if len(k) < 16 {
				return true
			}
			k = k[16:]
		default:
			if len(k) < 8 {
				return true
			}
			k = k[8:]
		}
	}
	return false
}
