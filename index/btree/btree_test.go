package btree

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/store"
)

// checkIndex compares every search kind and Lookup with the reference.
func checkIndex(t *testing.T, mem memory.Allocator, ix *Index, rf *ref, r *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	kc := rf.kc
	if got := ix.Stats().Rows; got != len(rf.entries) {
		t.Fatalf("Stats.Rows = %d, want %d", got, len(rf.entries))
	}
	same := func(what string, got, want []uint64) {
		t.Helper()
		if want = sortedCopy(want); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("%s: got %d addrs %v, want %d %v", what, len(got), head(got), len(want), head(want))
		}
	}
	for range 40 {
		k := probeKeys(r, kc, rf.entries, 1)[0]
		if k == nil {
			continue
		}
		got, err := ix.SearchEqual(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		same(fmt.Sprintf("SearchEqual(%v)", k), bitmapSlice(got), rf.rangeSet(k, k, true, true))
	}
	for range 40 {
		b := probeKeys(r, kc, rf.entries, 2)
		lo, hi := b[0], b[1]
		li, hiIncl := r.IntN(2) == 0, r.IntN(2) == 0
		got, err := ix.SearchRange(ctx, lo, hi, li, hiIncl)
		if err != nil {
			t.Fatal(err)
		}
		same(fmt.Sprintf("SearchRange(%v, %v, %v, %v)", lo, hi, li, hiIncl), bitmapSlice(got), rf.rangeSet(lo, hi, li, hiIncl))
	}
	{
		vals := probeKeys(r, kc, rf.entries, 25)
		arr := keyArray(mem, kc.dt, vals)
		got, err := ix.SearchIn(ctx, arr)
		arr.Release()
		if err != nil {
			t.Fatal(err)
		}
		var want []uint64
		for _, v := range vals {
			if v != nil {
				want = append(want, rf.rangeSet(v, v, true, true)...)
			}
		}
		same("SearchIn", bitmapSlice(got), want)
	}
	got, err := ix.SearchIsNull(ctx)
	if err != nil {
		t.Fatal(err)
	}
	same("SearchIsNull", bitmapSlice(got), rf.nullSet())

	keys := probeKeys(r, kc, rf.entries, 300)
	arr := keyArray(mem, kc.dt, keys)
	res, err := ix.Lookup(ctx, arr)
	arr.Release()
	if err != nil {
		t.Fatal(err)
	}
	var wantMulti []int
	for i, k := range keys {
		addr, found, multi := rf.lookup(k)
		if res.Found[i] != found || found && res.Addrs[i] != addr {
			t.Fatalf("Lookup(%v) at %d = (%d, %v), want (%d, %v)", k, i, res.Addrs[i], res.Found[i], addr, found)
		}
		if multi {
			wantMulti = append(wantMulti, i)
		}
	}
	if !slices.Equal(res.Multi, wantMulti) {
		t.Fatalf("Lookup Multi = %v, want %v", res.Multi, wantMulti)
	}
	// The same probe through a slice of a padded array (non-zero offset).
	padded := append(append(probeKeys(r, kc, rf.entries, 3), keys...), probeKeys(r, kc, rf.entries, 2)...)
	parr := keyArray(mem, kc.dt, padded)
	sl := array.NewSlice(parr, 3, int64(3+len(keys)))
	res2, err := ix.Lookup(ctx, sl)
	sl.Release()
	parr.Release()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res2.Found, res.Found) || !slices.Equal(res2.Addrs, res.Addrs) || !slices.Equal(res2.Multi, res.Multi) {
		t.Fatal("Lookup over a sliced array differs")
	}
	if kc.name == "uint64" {
		uk := make([]uint64, 0, len(keys))
		for _, k := range keys {
			if k != nil {
				uk = append(uk, k.(uint64))
			}
		}
		res, err := ix.LookupUint64(ctx, uk)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range uk {
			addr, found, _ := rf.lookup(k)
			if res.Found[i] != found || found && res.Addrs[i] != addr {
				t.Fatalf("LookupUint64(%d) = (%d, %v), want (%d, %v)", k, res.Addrs[i], res.Found[i], addr, found)
			}
		}
	}
}

func head(v []uint64) []uint64 { return v[:min(len(v), 8)] }

func TestSearchAgainstReference(t *testing.T) {
	for _, kc := range keyCases {
		for _, pr := range []int{1, 7, 64} {
			for _, sorted := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/rows=%d/sorted=%v", kc.name, pr, sorted), func(t *testing.T) {
					mem := newMem(t)
					r := rand.New(rand.NewPCG(uint64(pr), uint64(len(kc.name))))
					es := genEntries(r, kc, 300+r.IntN(700), 10)
					rf := &ref{kc, slices.Clone(es)}
					if sorted {
						sortRef(kc, es)
					}
					st := store.NewMemory()
					ix := train(t, mem, st, "ix/", kc, es, Options{PageRows: pr, Cache: NewPageCache(1 << 20)})
					checkIndex(t, mem, ix, rf, r)
					// Reopened from the store with a cold, tiny cache.
					ix2, err := Open(context.Background(), st, "ix/", Options{Cache: NewPageCache(300)})
					if err != nil {
						t.Fatal(err)
					}
					checkIndex(t, mem, ix2, rf, r)
					if m := ix2.Meta(); m.Column != "k" || !slices.Equal(m.FragmentIDs, []uint32{0, 2, 4}) || m.DatasetVersion != 7 {
						t.Fatalf("Meta = %+v", m)
					}
					// A numeric index reports decimal(38, 0): the file
					// does not record the column's precision and scale.
					if !arrow.TypeEqual(ix2.KeyType(), kc.dt) && !(kc.dt.ID() == arrow.DECIMAL128 && arrow.TypeEqual(ix2.KeyType(), &arrow.Decimal128Type{Precision: 38})) {
						t.Fatalf("KeyType = %s", ix2.KeyType())
					}
				})
			}
		}
	}
}

func TestEmptyAndAllNull(t *testing.T) {
	for _, kc := range keyCases {
		for _, nullPct := range []int{0, 100} {
			mem := newMem(t)
			r := rand.New(rand.NewPCG(1, 2))
			n := 0
			if nullPct == 100 {
				n = 20
			}
			es := genEntries(r, kc, n, nullPct)
			st := store.NewMemory()
			ix := train(t, mem, st, "e/", kc, es, Options{PageRows: 7})
			checkIndex(t, mem, ix, &ref{kc, es}, r)
		}
	}
}

func TestSortedFastPathDetection(t *testing.T) {
	mem := newMem(t)
	kc := keyCases[1]
	r := rand.New(rand.NewPCG(3, 4))
	es := genEntries(r, kc, 500, 5)
	sortRef(kc, es)
	for _, c := range []struct {
		name   string
		mutate func([]refEntry)
		sorted bool
	}{
		{"sorted", func([]refEntry) {}, true},
		{"swap-last", func(e []refEntry) { n := len(e); e[n-1], e[n-2] = e[n-2], e[n-1] }, false},
		{"equal-key-addr-order", func(e []refEntry) {
			for i := 1; i < len(e); i++ {
				if e[i].key != nil && e[i-1].key != nil && e[i].key == e[i-1].key {
					e[i], e[i-1] = e[i-1], e[i]
					return
				}
			}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(es)
			c.mutate(in)
			e := newEntries(kindUint64, nil)
			rr := entryReader(t, mem, kc.dt, in, 50)
			defer rr.Release()
			if err := e.addReader(context.Background(), rr); err != nil {
				t.Fatal(err)
			}
			if e.sorted != c.sorted {
				t.Fatalf("sorted = %v, want %v", e.sorted, c.sorted)
			}
			e.sort()
			for i := 1; i < e.len(); i++ {
				if e.ukeys[i] < e.ukeys[i-1] || e.ukeys[i] == e.ukeys[i-1] && e.addrs[i] < e.addrs[i-1] {
					t.Fatalf("entry %d out of order after sort", i)
				}
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	for _, kc := range keyCases {
		t.Run(kc.name, func(t *testing.T) {
			mem := newMem(t)
			r := rand.New(rand.NewPCG(5, uint64(len(kc.name))))
			es := genEntries(r, kc, 900, 10)
			// Old: fragments 0-2; new: fragments 3-4 (addresses are f<<32|o).
			var old, add []refEntry
			for _, e := range es {
				if e.addr>>32 < 3 {
					old = append(old, e)
				} else {
					add = append(add, e)
				}
			}
			st := store.NewMemory()
			ix := train(t, mem, st, "v1/", kc, old, Options{PageRows: 7})
			rr := entryReader(t, mem, kc.dt, add, 33)
			defer rr.Release()
			ix2, err := ix.Update(context.Background(), st, "v2/", rr, []uint32{3, 4}, 9, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkIndex(t, mem, ix2, &ref{kc, es}, r)
			if m := ix2.Meta(); !slices.Equal(m.FragmentIDs, []uint32{0, 2, 3, 4}) || m.DatasetVersion != 9 {
				t.Fatalf("Meta = %+v", m)
			}
			// The old index is untouched.
			checkIndex(t, mem, ix, &ref{kc, old}, r)
		})
	}
}

func TestRemap(t *testing.T) {
	for _, kc := range keyCases {
		t.Run(kc.name, func(t *testing.T) {
			mem := newMem(t)
			r := rand.New(rand.NewPCG(6, uint64(len(kc.name))))
			es := genEntries(r, kc, 1200, 10)
			st := store.NewMemory()
			ix := train(t, mem, st, "v1/", kc, es, Options{PageRows: 7})
			// Fragments 0 and 1 are compacted into 9 (deleting a third of
			// their rows, and reversing the order); the rest keep their address.
			dead := map[uint64]bool{}
			moved := map[uint64]uint64{}
			var next uint64 = 1 << 20
			for _, e := range es {
				if f := e.addr >> 32; f <= 1 {
					if r.IntN(3) == 0 {
						dead[e.addr] = true
						continue
					}
					moved[e.addr] = 9<<32 | next
					next--
				}
			}
			calls := 0
			translate := func(in, out []uint64, live []bool) error {
				calls++
				for i, a := range in {
					live[i] = !dead[a]
					out[i] = a
					if m, ok := moved[a]; ok {
						out[i] = m
					}
				}
				return nil
			}
			ix2, err := ix.Remap(context.Background(), st, "v2/", translate, []uint32{2, 3, 4, 9}, 11, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var want []refEntry
			for _, e := range es {
				if dead[e.addr] {
					continue
				}
				if m, ok := moved[e.addr]; ok {
					e.addr = m
				}
				want = append(want, e)
			}
			checkIndex(t, mem, ix2, &ref{kc, want}, r)
			// A fresh build from the expected entries gives the same lookup.
			fresh := train(t, mem, st, "fresh/", kc, want, Options{PageRows: 7})
			if a, b := ix2.lk, fresh.lk; !slices.Equal(a.pages, b.pages) || !slices.Equal(a.umin, b.umin) || !slices.Equal(a.umax, b.umax) || !slices.Equal(a.smin, b.smin) || !slices.Equal(a.smax, b.smax) {
				t.Fatal("remapped lookup differs from a fresh build")
			}
			if m := ix2.Meta(); !slices.Equal(m.FragmentIDs, []uint32{2, 3, 4, 9}) || m.DatasetVersion != 11 {
				t.Fatalf("Meta = %+v", m)
			}
			boom := errors.New("boom")
			if _, err := ix.Remap(context.Background(), st, "v3/", func([]uint64, []uint64, []bool) error { return boom }, nil, 12, Options{}); !errors.Is(err, boom) {
				t.Fatalf("translate error not passed on: %v", err)
			}
		})
	}
}

type fakeSource struct {
	t     testing.TB
	mem   memory.Allocator
	kc    keyCase
	es    []refEntry
	frags []uint32
}

func (s *fakeSource) Version() uint64       { return 3 }
func (s *fakeSource) FragmentIDs() []uint32 { return s.frags }
func (s *fakeSource) ScanColumns(_ context.Context, cols []string, frags []uint32, mem memory.Allocator) (array.RecordReader, error) {
	if !slices.Equal(cols, []string{"_rowid", "_rowaddr"}) || !slices.Equal(frags, s.frags) {
		return nil, fmt.Errorf("unexpected scan %v %v", cols, frags)
	}
	return entryReader(s.t, mem, s.kc.dt, s.es, 1000), nil
}

func TestTrainFromRowID(t *testing.T) {
	mem := newMem(t)
	kc := keyCases[1]
	// An append-only table: row ids 0..n-1 at consecutive addresses of
	// three fragments, except a block that was updated (moved to fragment 3).
	var es []refEntry
	id := uint64(0)
	for f := uint64(0); f < 3; f++ {
		for o := uint64(0); o < 1000; o++ {
			es = append(es, refEntry{id, f<<32 | o})
			id++
		}
	}
	for i := 1500; i < 1600; i++ {
		es[i].addr = 3<<32 | uint64(i-1500)
	}
	src := &fakeSource{t: t, mem: mem, kc: kc, es: es, frags: []uint32{0, 1, 2, 3}}
	st := store.NewMemory()
	ix, err := TrainFrom(context.Background(), st, "_indices/x/", src, "_rowid", Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	if m := ix.Meta(); m.Column != "_rowid" || m.DatasetVersion != 3 || len(m.FragmentIDs) != 4 {
		t.Fatalf("Meta = %+v", m)
	}
	checkIndex(t, mem, ix, &ref{kc, es}, rand.New(rand.NewPCG(1, 1)))
	if s := ix.Stats(); float64(s.DiskBytes)/float64(s.Rows) > 0.1 {
		t.Fatalf("append-only index takes %d bytes for %d rows", s.DiskBytes, s.Rows)
	}
}

func TestConcurrentLookups(t *testing.T) {
	mem := newMem(t)
	kc := keyCases[1]
	r := rand.New(rand.NewPCG(8, 8))
	es := genEntries(r, kc, 3000, 5)
	rf := &ref{kc, es}
	st := store.NewMemory()
	train(t, mem, st, "c/", kc, es, Options{PageRows: 7})
	ix, err := Open(context.Background(), st, "c/", Options{Cache: NewPageCache(4 << 10)})
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		addr  uint64
		found bool
	}
	want := map[uint64]answer{}
	for _, e := range es {
		if e.key != nil {
			k := e.key.(uint64)
			addr, found, _ := rf.lookup(k)
			want[k] = answer{addr, found}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 20 {
				var keys []uint64
				for _, k := range probeKeys(r, kc, es, 200) {
					if k != nil {
						keys = append(keys, k.(uint64))
					}
				}
				res, err := ix.LookupUint64(context.Background(), keys)
				if err != nil {
					errs <- err
					return
				}
				for i, k := range keys {
					if w := want[k]; res.Found[i] != w.found || w.found && res.Addrs[i] != w.addr {
						errs <- fmt.Errorf("key %d: got (%d, %v) want %+v", k, res.Addrs[i], res.Found[i], w)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestArgumentErrors(t *testing.T) {
	mem := newMem(t)
	ctx := context.Background()
	st := store.NewMemory()
	ix := train(t, mem, st, "a/", keyCases[0], genEntries(rand.New(rand.NewPCG(1, 1)), keyCases[0], 50, 0), Options{})
	if _, err := ix.SearchEqual(ctx, "x"); !errors.Is(err, ErrKeyType) {
		t.Fatalf("string on int64 index: %v", err)
	}
	if _, err := ix.LookupUint64(ctx, []uint64{1}); !errors.Is(err, ErrKeyType) {
		t.Fatalf("LookupUint64 on int64 index: %v", err)
	}
	arr := keyArray(mem, arrow.BinaryTypes.String, []any{"a"})
	defer arr.Release()
	if _, err := ix.Lookup(ctx, arr); !errors.Is(err, ErrKeyType) {
		t.Fatalf("Lookup with strings: %v", err)
	}
	if _, err := Train(ctx, st, "b/", arrow.FixedWidthTypes.Time32ms, nil, Meta{}, Options{}); !errors.Is(err, ErrKeyType) {
		t.Fatalf("time32 keys: %v", err)
	}
	rr := entryReader(t, mem, arrow.PrimitiveTypes.Int64, nil, 1)
	defer rr.Release()
	if _, err := Train(ctx, st, "b/", arrow.PrimitiveTypes.Int64, rr, Meta{}, Options{PageRows: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("PageRows -1: %v", err)
	}
	if _, err := Open(ctx, st, "missing/", Options{}); !errors.Is(err, store.ErrNotFound) || !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), "missing/"+lookupName) {
		t.Fatalf("missing index: %v (want not found and corrupt, naming the file)", err)
	}
	// Writing over an existing index is refused: files are immutable.
	rr2 := entryReader(t, mem, arrow.PrimitiveTypes.Int64, nil, 1)
	defer rr2.Release()
	if _, err := Train(ctx, st, "a/", arrow.PrimitiveTypes.Int64, rr2, Meta{}, Options{}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("overwrite: %v", err)
	}
	if ix2, err := Open(ctx, st, "a/", Options{}); err != nil || ix2.Stats().Rows != 50 {
		t.Fatalf("the existing index was damaged: %v", err)
	}
}
