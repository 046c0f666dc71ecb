package btree

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/table/store"
)

// typed reports whether err is one of the decode errors.
func typed(err error) bool { return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrFormat) }

// corruptFixture builds a small index of every key type and returns the
// bytes of both files.
func corruptFixture(t *testing.T, kc keyCase) (lookup, pages []byte) {
	t.Helper()
	mem := newMem(t)
	st := store.NewMemory()
	r := rand.New(rand.NewPCG(11, 11))
	train(t, mem, st, "x/", kc, genEntries(r, kc, 200, 10), Options{PageRows: 16})
	ctx := context.Background()
	lb, err := st.Get(ctx, "x/"+lookupName)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := st.Get(ctx, "x/"+pagesName)
	if err != nil {
		t.Fatal(err)
	}
	return lb, pb
}

// exercise opens the index stored as (lookup, pages) and runs every search,
// returning the first error.
func exercise(t *testing.T, lookup, pages []byte) error {
	t.Helper()
	ctx := context.Background()
	st := store.NewMemory()
	_ = st.Put(ctx, "y/"+lookupName, lookup)
	_ = st.Put(ctx, "y/"+pagesName, pages)
	ix, err := Open(ctx, st, "y/", Options{Cache: NewPageCache(0)})
	if err != nil {
		return err
	}
	if _, err := ix.SearchRange(ctx, nil, nil, true, true); err != nil {
		return err
	}
	if _, err := ix.SearchIsNull(ctx); err != nil {
		return err
	}
	return nil
}

func TestCorruptLookup(t *testing.T) {
	for _, kc := range keyCases {
		t.Run(kc.name, func(t *testing.T) {
			lb, pb := corruptFixture(t, kc)
			if err := exercise(t, lb, pb); err != nil {
				t.Fatalf("intact index: %v", err)
			}
			for n := 0; n < len(lb); n++ {
				if err := exercise(t, lb[:n], pb); !typed(err) {
					t.Fatalf("lookup truncated to %d: %v", n, err)
				}
			}
			for i := 0; i < len(lb); i += 3 {
				bad := slices.Clone(lb)
				bad[i] ^= 1 << (i % 8)
				if err := exercise(t, bad, pb); !typed(err) {
					t.Fatalf("lookup bit flip at %d: %v", i, err)
				}
			}
		})
	}
}

func TestCorruptPages(t *testing.T) {
	for _, kc := range keyCases {
		t.Run(kc.name, func(t *testing.T) {
			lb, pb := corruptFixture(t, kc)
			for _, n := range []int{0, 3, headerSize, len(pb) / 2, len(pb) - 1} {
				if err := exercise(t, lb, pb[:n]); !typed(err) {
					t.Fatalf("pages truncated to %d: %v", n, err)
				}
			}
			for i := 0; i < len(pb); i += 2 {
				bad := slices.Clone(pb)
				bad[i] ^= 1 << (i % 8)
				if err := exercise(t, lb, bad); !typed(err) {
					t.Fatalf("pages bit flip at %d: %v", i, err)
				}
			}
		})
	}
}

func TestBadMagicAndVersion(t *testing.T) {
	lb, pb := corruptFixture(t, keyCases[0])
	for name, mutate := range map[string]func(l, p []byte){
		"lookup magic":          func(l, p []byte) { l[0] = 'X' },
		"lookup trailing magic": func(l, p []byte) { l[len(l)-1] = 'X' },
		"lookup version":        func(l, p []byte) { binary.LittleEndian.PutUint16(l[4:], FormatVersion+1) },
		"lookup file kind":      func(l, p []byte) { l[6] = filePages },
		"pages magic":           func(l, p []byte) { p[1] = 'X' },
		"pages version":         func(l, p []byte) { binary.LittleEndian.PutUint16(p[4:], 0) },
		"pages key kind":        func(l, p []byte) { p[7] = byte(kindString) },
	} {
		l, p := slices.Clone(lb), slices.Clone(pb)
		mutate(l, p)
		err := exercise(t, l, p)
		if name == "pages key kind" {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: %v, want ErrCorrupt", name, err)
			}
			continue
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// TestCorruptionNamesFile: a flipped byte in either index file is reported
// naming that file's path, as data file and manifest errors do (issue 26).
func TestCorruptionNamesFile(t *testing.T) {
	for _, kc := range keyCases {
		t.Run(kc.name, func(t *testing.T) {
			lb, pb := corruptFixture(t, kc)
			for _, c := range []struct {
				name string
				b    []byte
				run  func(bad []byte) error
			}{
				{"y/" + lookupName, lb, func(bad []byte) error { return exercise(t, bad, pb) }},
				{"y/" + pagesName, pb, func(bad []byte) error { return exercise(t, lb, bad) }},
			} {
				for i := 0; i < len(c.b); i += 7 {
					bad := slices.Clone(c.b)
					bad[i] ^= 0x20
					err := c.run(bad)
					if !typed(err) || !strings.Contains(err.Error(), c.name) {
						t.Fatalf("%s: byte %d flipped: %v (want a corruption error naming the file)", c.name, i, err)
					}
				}
			}
		})
	}
}
