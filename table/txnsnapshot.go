package table

import (
	"context"
	"errors"
	"slices"

	"github.com/stablerow/stablerow/table/store"
)

// OpenTables opens the newest visible version of each table (by name, in
// one database: opts.Txns is its transaction store) such that every
// transaction over several tables is in all of the snapshots it wrote or
// in none. Opening the tables one after another does not give that: a
// transaction whose commit point falls between two opens is in the
// second table's snapshot and not in the first's.
//
// The tables are read twice, newest visible versions p1 then p2, and
// pinned at p1. While some table t holds, in (pin(t), p2(t)], a committed
// claim of a transaction X that another pinned table u shows (pin(u) >=
// X's version in u), t's pin moves forward to X's version in t. This
// ends, pins only moving forward and up to p2; and it suffices: every X a
// pin shows committed before the first pass ended (it was shown at a
// first read, or its claim lies below such an X's, so it committed
// first), so before every second read, so X's claim in each table t lies
// at or below p2(t). Claims of committed transactions that share tables
// lie in the same order in each (they are taken in name order, and never
// above a pending claim), which is why pins only need to move forward.
//
// A table that cannot be opened is in errs, not in the snapshots; the
// others do not depend on it. known holds snapshots the caller has of
// some tables (by name, possibly old): one that is still the newest
// version is used as is, so an unchanged table costs one listing of its
// versions per pass and no manifest decode.
func OpenTables(ctx context.Context, stores map[string]store.Store, opts Options, known map[string]*Table) (tables map[string]*Table, errs map[string]error) {
	names := make([]string, 0, len(stores))
	for n := range stores {
		names = append(names, n)
	}
	slices.Sort(names)
	pin := map[string]*Manifest{}
	errs = map[string]error{}
	for _, n := range names {
		var had *Manifest
		if k := known[n]; k != nil && k.st == stores[n] {
			had = k.m
		}
		m, err := headKnown(ctx, stores[n], opts, had)
		if err != nil {
			errs[n] = err
			continue
		}
		pin[n] = m
	}
	second := map[string]uint64{}
	for _, n := range names {
		if pin[n] == nil {
			continue
		}
		m, err := headKnown(ctx, stores[n], opts, pin[n])
		if err != nil {
			second[n] = pin[n].Version // unreadable now: it stays at p1
			continue
		}
		second[n] = m.Version
	}
	records := map[string]*TxnRecord{}
	shown := func(self string, rec *TxnRecord) bool {
		for _, tt := range rec.Tables {
			if m := pin[tt.Name]; tt.Name != self && m != nil && m.Version >= tt.Version {
				return true
			}
		}
		return false
	}
	for moved := true; moved; {
		moved = false
		for _, n := range names {
			if pin[n] == nil {
				continue
			}
			for v := pin[n].Version + 1; v <= second[n]; v++ {
				m, err := readManifest(ctx, stores[n], v)
				if errors.Is(err, ErrNotFound) {
					continue // an aborted claim removed by Cleanup
				}
				if err != nil {
					errs[n] = err
					delete(pin, n)
					break
				}
				c := m.Txn.Claim
				if c == nil {
					continue
				}
				rec, ok := records[c.TxnID]
				if !ok {
					state, r, err := ReadTxn(ctx, opts.Txns, c.TxnID)
					if err != nil {
						errs[n] = err
						delete(pin, n)
						break
					}
					if state != TxnCommitted {
						r = nil
					}
					records[c.TxnID] = r
					rec = r
				}
				if rec == nil || !shown(n, rec) {
					continue
				}
				if state, err := resolveClaim(ctx, opts.Txns, m); err != nil || state != TxnCommitted {
					if err == nil {
						err = errorf(ErrCorrupt, "version %d claims table %q for transaction %s, whose record does not list it", v, n, c.TxnID)
					}
					errs[n] = err
					delete(pin, n)
					break
				}
				pin[n] = m
				moved = true
			}
		}
	}
	tables = make(map[string]*Table, len(pin))
	for n, m := range pin {
		if k := known[n]; k != nil && k.m == m {
			tables[n] = k
			continue
		}
		tables[n] = newTable(stores[n], m, opts)
	}
	return tables, errs
}

// headKnown is head for a reader that holds m (nil: none) of st: m
// itself when its version is still the newest.
func headKnown(ctx context.Context, st store.Store, opts Options, m *Manifest) (*Manifest, error) {
	if m != nil {
		top, err := LatestVersion(ctx, st)
		if err != nil {
			return nil, err
		}
		if top == m.Version {
			return m, nil
		}
	}
	_, m, err := head(ctx, st, opts, false)
	return m, err
}
