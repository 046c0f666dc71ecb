package fragreuse

import (
	"context"
	"errors"
	"fmt"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// DeletedAddr is the address Translate writes for a row that is not live.
// No fragment has id 2^32-1 (the table never hands it out), so it cannot be
// mistaken for a row.
const DeletedAddr = ^uint64(0)

// step translates the addresses of one transition's sources.
type step interface {
	// source returns the index of fragment id among the sources, or -1.
	source(id uint32) int
	// translate rewrites out[i] for the positions i = sel[k] (all live,
	// in source src[k] of this step), clearing live[i] for deleted rows.
	translate(out []uint64, live []bool, sel, src []int32, st *stats) error
	memoryBytes() int
	close() error
}

// History is a chain of transitions, oldest first. It is safe for
// concurrent use by readers; Close releases the rowmap files.
type History struct {
	since uint64
	steps []step
}

// Open builds the history an index built at version since needs: the
// transitions of ts committed after it. Rowmaps are opened from st (one
// tail read each).
func Open(ctx context.Context, st store.Store, ts []table.Transition, since uint64) (*History, error) {
	h := &History{since: since}
	for i := range ts {
		tr := &ts[i]
		if tr.Version <= since {
			continue
		}
		var s step
		var err error
		switch tr.Kind {
		case table.TransitionOrdered:
			s, err = newOrdered(tr)
		case table.TransitionStablePartition:
			s, err = openPartition(ctx, st, tr)
		default:
			err = errorf(ErrCorrupt, "transition of version %d has unknown kind %s", tr.Version, tr.Kind)
		}
		if err != nil {
			h.Close()
			return nil, err
		}
		h.steps = append(h.steps, s)
	}
	return h, nil
}

// ForIndex is Open for the index ix of snapshot t: the transitions of t's
// history committed after ix was built. Whether a translated address is
// the index's to answer (its derived coverage, liveness) is not decided
// here: package access owns that.
func ForIndex(ctx context.Context, t *table.Table, ix *table.IndexMeta) (*History, error) {
	if ix == nil {
		return nil, errorf(ErrInvalidArgument, "no index")
	}
	ts, err := t.History()
	if err != nil {
		return nil, fmt.Errorf("fragreuse: %w", err)
	}
	return Open(ctx, t.Store(), ts, ix.DatasetVersion)
}

// Len is the number of transitions in the chain.
func (h *History) Len() int { return len(h.steps) }

// Since is the version the chain starts after.
func (h *History) Since() uint64 { return h.since }

// MemoryBytes estimates the resident size of the chain: per-fragment
// tables, source deletion vectors and rowmap counts. It grows with
// fragments and deletions, not with rows.
func (h *History) MemoryBytes() int {
	n := 0
	for _, s := range h.steps {
		n += s.memoryBytes()
	}
	return n
}

// Close releases the rowmap readers.
func (h *History) Close() error {
	var errs []error
	for _, s := range h.steps {
		errs = append(errs, s.close())
	}
	h.steps = nil
	return errors.Join(errs...)
}

// Translate maps every addrs[i] to out[i], its address after the whole
// chain, and live[i] to whether the row survived it (deleted rows get
// DeletedAddr). out may be addrs itself. An address inside a source
// fragment but past its rows is ErrInvalidArgument.
func (h *History) Translate(addrs []uint64, out []uint64, live []bool) error {
	return h.translate(addrs, out, live, nil)
}

// TranslateCounted is Translate that also reports how the addresses were
// translated, through count (RowAddrRemapExec's metrics): rows swept
// versus looked up one by one through ordered steps (ordered_swept,
// ordered_point) and rowmaps (rowmap_swept, rowmap_point), and rowmap
// blocks read (rowmap_blocks).
func (h *History) TranslateCounted(addrs []uint64, out []uint64, live []bool, count func(name string, n int64)) error {
	var st stats
	err := h.translate(addrs, out, live, &st)
	for _, c := range []struct {
		name string
		n    int64
	}{{"ordered_swept", st.orderedSwept}, {"ordered_point", st.orderedPoint}, {"rowmap_swept", st.rowmapSwept},
		{"rowmap_point", st.rowmapPoint}, {"rowmap_blocks", st.rowmapBlocks}} {
		if c.n > 0 {
			count(c.name, c.n)
		}
	}
	return err
}

// stats counts how a translation went (see TranslateCounted); a nil
// *stats counts nothing.
type stats struct {
	orderedSwept, orderedPoint int64
	rowmapSwept, rowmapPoint   int64
	rowmapBlocks               int64
}

func (h *History) translate(addrs []uint64, out []uint64, live []bool, st *stats) error {
	if len(out) < len(addrs) || len(live) < len(addrs) {
		return errorf(ErrInvalidArgument, "translate %d addresses into %d slots and %d flags", len(addrs), len(out), len(live))
	}
	copy(out, addrs)
	for i := range addrs {
		live[i] = true
	}
	var sel, src []int32
	for _, s := range h.steps {
		sel, src = sel[:0], src[:0]
		// Addresses come in runs of one fragment: look each run up once.
		last, lastSrc, have := uint32(0), -1, false
		for i := range addrs {
			if !live[i] {
				continue
			}
			if f := rowid.Address(out[i]).Fragment(); !have || f != last {
				last, lastSrc, have = f, s.source(f), true
			}
			if lastSrc >= 0 {
				sel = append(sel, int32(i))
				src = append(src, int32(lastSrc))
			}
		}
		if len(sel) == 0 {
			continue
		}
		if err := s.translate(out, live, sel, src, st); err != nil {
			return err
		}
	}
	return nil
}

// sourceTable is the per-fragment part every step shares.
type sourceTable struct {
	version uint64
	index   map[uint32]int
	phys    []uint64
}

func newSourceTable(tr *table.Transition) (sourceTable, error) {
	st := sourceTable{version: tr.Version, index: make(map[uint32]int, len(tr.Sources)), phys: make([]uint64, len(tr.Sources))}
	for i, s := range tr.Sources {
		if _, dup := st.index[s.Fragment]; dup {
			return st, errorf(ErrCorrupt, "version %d lists source %d twice", tr.Version, s.Fragment)
		}
		st.index[s.Fragment] = i
		st.phys[i] = s.PhysicalRows
	}
	return st, nil
}

func (st *sourceTable) source(id uint32) int {
	if i, ok := st.index[id]; ok {
		return i
	}
	return -1
}

// offset returns the offset of addr, which lies in source s, checking it.
func (st *sourceTable) offset(addr uint64, s int32) (uint32, error) {
	a := rowid.Address(addr)
	if uint64(a.Offset()) >= st.phys[s] {
		return 0, errorf(ErrInvalidArgument, "address %s is past the %d rows fragment %d had when version %d rewrote it", a, st.phys[s], a.Fragment(), st.version)
	}
	return a.Offset(), nil
}

func (st *sourceTable) memoryBytes() int { return len(st.index)*48 + len(st.phys)*8 }
