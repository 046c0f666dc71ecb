package access

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// FuzzCoverageValid checks Coverage.Valid and Addr, whose liveness test
// reads a dense per-snapshot bitmap for fragments with many deletions,
// against the manifest's own deletion vectors (table.IsLive) for
// arbitrary addresses, in range or not. Input: 4 bytes per address
// (fragment, offset in 0..1023 + junk).
func FuzzCoverageValid(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 7, 0, 1, 0, 199, 0, 2, 0, 255, 3})
	f.Add([]byte{3, 0, 1, 0, 9, 0, 0, 0, 0, 0, 200, 0})
	ctx := context.Background()
	mem := arrowtest.Mem(f)
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 200})
	if err != nil {
		f.Fatal(err)
	}
	tb = appendRows(f, tb, 0, 600)
	l := New(mem)
	if tb, err = l.CreateIndex(ctx, tb, "t", "rid", table.RowID); err != nil {
		f.Fatal(err)
	}
	tb = appendRows(f, tb, 600, 100)
	var del []uint64
	for id := uint64(0); id < 700; id += 3 { // > denseMinDeleted per fragment
		del = append(del, id)
	}
	if tb, _, err = tb.DeleteRowIDs(ctx, del); err != nil {
		f.Fatal(err)
	}
	r, err := l.Resolver(ctx, tb, Find(tb, table.RowID, true))
	if err != nil {
		f.Fatal(err)
	}
	c := r.Coverage()
	f.Fuzz(func(t *testing.T, data []byte) {
		var addrs []uint64
		for i := 0; i+3 < len(data); i += 4 {
			frag := uint32(data[i] % 6)
			off := uint32(binary.LittleEndian.Uint16(data[i+2:]) % 1024)
			addrs = append(addrs, uint64(rowid.NewAddress(frag, off)))
		}
		ok := make([]bool, len(addrs))
		c.Valid(addrs, ok)
		for i, a := range addrs {
			covered := tb.Index("rid").Fragments.Contains(rowid.Address(a).Fragment())
			want := covered && tb.IsLive(a)
			if ok[i] != want {
				t.Fatalf("Valid(%v) = %v, want %v", rowid.Address(a), ok[i], want)
			}
			st := c.Addr(a)
			switch {
			case !covered && st != NotCovered, covered && want && st != Covered, covered && !want && st != Deleted:
				t.Fatalf("Addr(%v) = %v (covered %v, live %v)", rowid.Address(a), st, covered, want)
			}
		}
	})
}
