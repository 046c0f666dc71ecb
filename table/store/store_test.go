package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func stores(t *testing.T) map[string]Store {
	l, err := NewLocal(t.TempDir())
	require.NoError(t, err)
	return map[string]Store{"local": l, "memory": NewMemory()}
}

func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			_, err := st.Get(ctx, "a/b.bin")
			require.ErrorIs(t, err, ErrNotFound)

			require.NoError(t, st.Put(ctx, "a/b.bin", []byte("hello world")))
			b, err := st.Get(ctx, "a/b.bin")
			require.NoError(t, err)
			require.Equal(t, "hello world", string(b))

			r, err := st.GetRange(ctx, "a/b.bin", 6, 5)
			require.NoError(t, err)
			require.Equal(t, "world", string(r))
			r, err = st.GetRange(ctx, "a/b.bin", 11, 0)
			require.NoError(t, err)
			require.Empty(t, r)
			for _, bad := range [][2]int64{{-1, 1}, {0, 12}, {12, 0}, {6, -1}, {10, 2}} {
				_, err = st.GetRange(ctx, "a/b.bin", bad[0], bad[1])
				require.ErrorIs(t, err, ErrInvalidArgument, "range %v", bad)
			}
			n, err := st.Size(ctx, "a/b.bin")
			require.NoError(t, err)
			require.EqualValues(t, 11, n)

			rd, err := st.Open(ctx, "a/b.bin")
			require.NoError(t, err)
			buf := make([]byte, 5)
			_, err = rd.ReadAt(buf, 0)
			require.NoError(t, err)
			require.Equal(t, "hello", string(buf))
			require.EqualValues(t, 11, rd.Size())
			require.NoError(t, rd.Close())

			require.NoError(t, st.Put(ctx, "a/b.bin", []byte("x")))
			b, _ = st.Get(ctx, "a/b.bin")
			require.Equal(t, "x", string(b))

			require.NoError(t, st.PutIfAbsent(ctx, "_versions/1", []byte("v1")))
			require.ErrorIs(t, st.PutIfAbsent(ctx, "_versions/1", []byte("v1'")), ErrExists)
			b, _ = st.Get(ctx, "_versions/1")
			require.Equal(t, "v1", string(b))

			require.NoError(t, st.Put(ctx, "_versions/2", nil))
			require.NoError(t, st.Put(ctx, "_versionsX", nil))
			ls, err := st.List(ctx, "_versions/")
			require.NoError(t, err)
			require.Equal(t, []string{"_versions/1", "_versions/2"}, ls)
			ls, err = st.List(ctx, "")
			require.NoError(t, err)
			require.True(t, slices.IsSorted(ls))
			require.Len(t, ls, 4)
			ls, err = st.List(ctx, "nothing/")
			require.NoError(t, err)
			require.Empty(t, ls)

			require.NoError(t, st.Delete(ctx, "_versions/2"))
			require.NoError(t, st.Delete(ctx, "_versions/2"))
			_, err = st.Get(ctx, "_versions/2")
			require.ErrorIs(t, err, ErrNotFound)

			for _, bad := range []string{"", "/abs", "../up", "a/../../b", `a\b`} {
				require.ErrorIs(t, st.Put(ctx, bad, nil), ErrInvalidArgument, bad)
			}
		})
	}
}

// TestPutIfAbsentRace: many writers race for the same names; exactly one wins
// each name and the winner's bytes are what is stored.
func TestPutIfAbsentRace(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			const names, writers = 20, 8
			var wins [names]atomic.Int32
			var winner [names]atomic.Value
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < names; i++ {
						p := fmt.Sprintf("_versions/%03d", i)
						err := st.PutIfAbsent(ctx, p, []byte(fmt.Sprint(w)))
						if err == nil {
							wins[i].Add(1)
							winner[i].Store(fmt.Sprint(w))
						} else if !errors.Is(err, ErrExists) {
							t.Errorf("unexpected error %v", err)
						}
					}
				}()
			}
			wg.Wait()
			for i := 0; i < names; i++ {
				require.EqualValues(t, 1, wins[i].Load())
				b, err := st.Get(ctx, fmt.Sprintf("_versions/%03d", i))
				require.NoError(t, err)
				require.Equal(t, winner[i].Load(), string(b))
			}
			ls, _ := st.List(ctx, "")
			require.Len(t, ls, names, "no temp files are listed")
		})
	}
}

// TestMappingIdentity: a Mapping (and so its memo) stands for exactly one
// object's bytes. Mapping the same bytes again returns the same Mapping,
// with what was memoized; new bytes for the path (a memory store Put, even
// of equal bytes) are a new Mapping with an empty memo.
func TestMappingIdentity(t *testing.T) {
	ctx := context.Background()
	type key struct{}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, st.Put(ctx, "d/f.arrow", []byte("immutable bytes")))
			mp := st.(Mapper)
			m1, err := mp.Map(ctx, "d/f.arrow")
			require.NoError(t, err)
			require.Equal(t, "immutable bytes", string(m1.Data))
			require.Equal(t, 1, m1.Memo(key{}, func() any { return 1 }))
			m2, err := mp.Map(ctx, "d/f.arrow")
			require.NoError(t, err)
			require.Same(t, m1, m2)
			require.Equal(t, 1, m2.Memo(key{}, func() any { return 2 }), "memo kept")
			if name != "memory" {
				return // a local file is mapped once per process
			}
			require.NoError(t, st.Put(ctx, "d/f.arrow", []byte("immutable bytes")))
			m3, err := mp.Map(ctx, "d/f.arrow")
			require.NoError(t, err)
			require.NotSame(t, m1, m3)
			require.Equal(t, 3, m3.Memo(key{}, func() any { return 3 }), "new bytes, empty memo")
			require.Equal(t, "immutable bytes", string(m1.Data), "the old bytes stay as they were")
		})
	}
}
