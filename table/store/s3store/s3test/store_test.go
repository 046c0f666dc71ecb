package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// TestStoreContract runs the contract store.Local and store.Memory pass
// (table/store/store_test.go) against S3, under a prefix, so the three
// stores agree method by method.
func TestStoreContract(t *testing.T) {
	f := target(t)
	st := f.open(t, f.uri("db/t"), s3store.Options{})
	ctx := context.Background()

	_, err := st.Get(ctx, "a/b.bin")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, err, errkind.NotFound)
	_, err = st.Size(ctx, "a/b.bin")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = st.Open(ctx, "a/b.bin")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = st.GetRange(ctx, "a/b.bin", 0, 1)
	require.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, st.Put(ctx, "a/b.bin", []byte("hello world")))
	b, err := st.Get(ctx, "a/b.bin")
	require.NoError(t, err)
	require.Equal(t, "hello world", string(b))
	// The object lives under the prefix.
	if f.backend != nil {
		obj, err := f.backend.HeadObject(bucket, "db/t/a/b.bin")
		require.NoError(t, err)
		require.EqualValues(t, 11, obj.Size)
	}

	r, err := st.GetRange(ctx, "a/b.bin", 6, 5)
	require.NoError(t, err)
	require.Equal(t, "world", string(r))
	r, err = st.GetRange(ctx, "a/b.bin", 11, 0)
	require.NoError(t, err)
	require.Empty(t, r)
	for _, bad := range [][2]int64{{-1, 1}, {0, 12}, {12, 0}, {6, -1}, {10, 2}, {11, 1}, {20, 3}} {
		_, err = st.GetRange(ctx, "a/b.bin", bad[0], bad[1])
		require.ErrorIs(t, err, store.ErrInvalidArgument, "range %v", bad)
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
	k, err := rd.ReadAt(buf, 8) // io.ReaderAt: short read at the end is io.EOF
	require.Equal(t, 3, k)
	require.Equal(t, "rld", string(buf[:3]))
	require.Error(t, err)
	require.EqualValues(t, 11, rd.Size())
	require.NoError(t, rd.Close())

	require.NoError(t, st.Put(ctx, "a/b.bin", []byte("x")))
	b, _ = st.Get(ctx, "a/b.bin")
	require.Equal(t, "x", string(b))

	require.NoError(t, st.PutIfAbsent(ctx, "_versions/1", []byte("v1")))
	err = st.PutIfAbsent(ctx, "_versions/1", []byte("v1'"))
	require.ErrorIs(t, err, store.ErrExists)
	b, _ = st.Get(ctx, "_versions/1")
	require.Equal(t, "v1", string(b))

	require.NoError(t, st.Put(ctx, "_versions/2", nil))
	require.NoError(t, st.Put(ctx, "_versionsX", nil))
	ls, err := st.List(ctx, "_versions/")
	require.NoError(t, err)
	require.Equal(t, []string{"_versions/1", "_versions/2"}, ls)
	ls, err = st.List(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []string{"_versions/1", "_versions/2", "_versionsX", "a/b.bin"}, ls)
	ls, err = st.List(ctx, "nothing/")
	require.NoError(t, err)
	require.Empty(t, ls)

	require.NoError(t, st.Delete(ctx, "_versions/2"))
	require.NoError(t, st.Delete(ctx, "_versions/2"))
	_, err = st.Get(ctx, "_versions/2")
	require.ErrorIs(t, err, store.ErrNotFound)

	for _, bad := range []string{"", "/abs", "../up", "a/../../b", `a\b`} {
		require.ErrorIs(t, st.Put(ctx, bad, nil), store.ErrInvalidArgument, bad)
	}

	// A store at another prefix of the same bucket sees none of it.
	other := f.open(t, f.uri("db/u"), s3store.Options{})
	ls, err = other.List(ctx, "")
	require.NoError(t, err)
	require.Empty(t, ls)
}

func TestNewRefusesBadLocations(t *testing.T) {
	f := newFake(t, nil)
	ctx := context.Background()
	for _, bad := range []string{"s3://", "s3:/x", "s3:", "s3:///p", "./local", "gs://b/p", "s3://Bad_Bucket/p"} {
		_, err := s3store.New(ctx, bad, s3store.Options{})
		require.ErrorIs(t, err, store.ErrInvalidArgument, "%q", bad)
	}
	_, err := s3store.New(ctx, "s3://no-such-bucket/p", s3store.Options{MaxAttempts: 1})
	require.ErrorIs(t, err, s3store.ErrNoBucket)
	require.ErrorIs(t, err, errkind.NotFound)
	_ = f
}

// TestListPaginates: a listing longer than one page follows the
// continuation tokens and returns every key once, sorted.
func TestListPaginates(t *testing.T) {
	f := target(t)
	st := f.open(t, f.uri("p"), s3store.Options{ListPageSize: 7})
	ctx := context.Background()
	var want []string
	for i := range 50 {
		p := fmt.Sprintf("data/%03d.arrow", i)
		want = append(want, p)
		require.NoError(t, st.Put(ctx, p, []byte{byte(i)}))
	}
	require.NoError(t, st.Put(ctx, "other/x", nil))
	f.count.reset()
	got, err := st.List(ctx, "data/")
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, 8, f.count.reset()["LIST"], "50 keys in pages of 7")
}

// TestPutIfAbsentRace: 16 writers race for each of 10 version files;
// exactly one wins each, the rest get ErrExists, and the winner's bytes are
// what is stored. gofakes3 v1.2.0 evaluates If-None-Match under its backend
// lock, so this exercises the real conditional write, not a stub.
func TestPutIfAbsentRace(t *testing.T) {
	f := target(t)
	st := f.open(t, f.uri("race"), s3store.Options{})
	ctx := context.Background()
	const names, writers = 10, 16
	var wins [names]atomic.Int32
	var winner [names]atomic.Value
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range names {
				p := fmt.Sprintf("_versions/%020d.manifest", i)
				err := st.PutIfAbsent(ctx, p, []byte(fmt.Sprint(w)))
				switch {
				case err == nil:
					wins[i].Add(1)
					winner[i].Store(fmt.Sprint(w))
				case !errors.Is(err, store.ErrExists):
					t.Errorf("writer %d, %s: %v", w, p, err)
				}
			}
		}()
	}
	wg.Wait()
	for i := range names {
		require.EqualValues(t, 1, wins[i].Load(), "version %d", i)
		b, err := st.Get(ctx, fmt.Sprintf("_versions/%020d.manifest", i))
		require.NoError(t, err)
		require.Equal(t, winner[i].Load(), string(b))
	}
}

// object is a test object whose byte i is a function of i, so any range's
// expected bytes are computable independently of the store.
func object(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// TestReadRangesCoalesced checks ReadRanges against slicing the object, and
// pins the GETs it costs: ranges within the gap share one GET.
func TestReadRangesCoalesced(t *testing.T) {
	f := target(t)
	st := f.open(t, f.uri("rr"), s3store.Options{CoalesceGap: 1000, Parallelism: 3})
	ctx := context.Background()
	obj := object(100_000)
	require.NoError(t, st.Put(ctx, "f.bin", obj))
	ranges := []store.Range{
		{Off: 50_000, Len: 10}, {Off: 10, Len: 100}, {Off: 500, Len: 600}, // 10..1100: one group
		{Off: 50_500, Len: 1},                         // with 50_000: one group
		{Off: 99_990, Len: 10}, {Off: 70_000, Len: 0}, // a group; the empty range costs nothing
		{Off: 10, Len: 100}, // a duplicate
	}
	f.count.reset()
	got, err := st.ReadRanges(ctx, "f.bin", ranges)
	require.NoError(t, err)
	for i, r := range ranges {
		require.True(t, bytes.Equal(obj[r.Off:r.End()], got[i]), "range %d", i)
	}
	n := f.count.reset()
	require.Equal(t, 3, n["GET range"], "three coalesced groups")
	require.Equal(t, 1, n["HEAD"], "one HEAD pins the ETag")

	_, err = st.ReadRanges(ctx, "f.bin", []store.Range{{Off: 99_999, Len: 2}})
	require.ErrorIs(t, err, store.ErrInvalidArgument)
}

// TestCachedReader: with a cache, reads go in aligned blocks; a second read
// of the same bytes costs no GET, and a replaced object (new ETag) is never
// served from the old object's blocks.
func TestCachedReader(t *testing.T) {
	f := target(t)
	cache := s3store.NewCache(1 << 20)
	st := f.open(t, f.uri("c"), s3store.Options{Cache: cache, BlockSize: 4096})
	ctx := context.Background()
	obj := object(50_000)
	require.NoError(t, st.Put(ctx, "f.bin", obj))

	rd, err := st.Open(ctx, "f.bin")
	require.NoError(t, err)
	buf := make([]byte, 5000)
	_, err = rd.ReadAt(buf, 3000) // blocks 0 and 1 in one GET
	require.NoError(t, err)
	require.Equal(t, obj[3000:8000], buf)
	require.Equal(t, 1, f.count.reset()["GET range"])
	_, err = rd.ReadAt(buf[:100], 8000) // block 1, cached
	require.NoError(t, err)
	require.Equal(t, obj[8000:8100], buf[:100])
	require.Zero(t, f.count.reset()["GET range"])
	tail := make([]byte, 10)
	_, err = rd.ReadAt(tail, 49_990) // last, short block
	require.NoError(t, err)
	require.Equal(t, obj[49_990:], tail)
	require.Equal(t, 1, f.count.reset()["GET range"])

	// Another reader of the same object shares the blocks.
	rd2, err := st.Open(ctx, "f.bin")
	require.NoError(t, err)
	_, err = rd2.ReadAt(buf, 3000)
	require.NoError(t, err)
	n := f.count.reset()
	require.Zero(t, n["GET range"])
	require.Equal(t, 1, n["HEAD"])

	// Replace the object: the old reader fails typed (its ETag is gone),
	// a new reader reads the new bytes, not the cached old ones.
	obj2 := slices.Clone(obj)
	for i := range obj2 {
		obj2[i] ^= 0xff
	}
	require.NoError(t, st.Put(ctx, "f.bin", obj2))
	_, err = rd.ReadAt(buf, 20_000)
	require.ErrorIs(t, err, s3store.ErrChanged)
	require.ErrorIs(t, err, errkind.Conflict)
	rd3, err := st.Open(ctx, "f.bin")
	require.NoError(t, err)
	_, err = rd3.ReadAt(buf, 3000)
	require.NoError(t, err)
	require.Equal(t, obj2[3000:8000], buf)
}

// TestPathStyleLocalhost: for an endpoint named localhost the store must
// pick path-style addressing by itself (the SDK already does so for an IP
// address); with virtual hosts the request would go to
// stablerow-test.localhost, which gofakes3 does not serve as a bucket.
func TestPathStyleLocalhost(t *testing.T) {
	f := newFake(t, nil)
	t.Setenv("AWS_ENDPOINT_URL", strings.Replace(f.url, "127.0.0.1", "localhost", 1))
	st := f.open(t, f.uri("lh"), s3store.Options{MaxAttempts: 1})
	ctx := context.Background()
	require.NoError(t, st.Put(ctx, "x", []byte("1")))
	_, err := f.backend.HeadObject(bucket, "lh/x")
	require.NoError(t, err)
}

// TestReadRangesExact: with a cache, a Reader's ReadRanges fetches and
// caches exactly the ranges asked (a data file's tail and spans), not the
// aligned blocks ReadAt uses: it used to read whole blocks, up to two per
// range, which doubled the bytes of a take on S3. A repeat costs no GET.
func TestReadRangesExact(t *testing.T) {
	f := target(t)
	st := f.open(t, f.uri("x"), s3store.Options{Cache: s3store.NewCache(1 << 20), BlockSize: 4096, CoalesceGap: -1})
	ctx := context.Background()
	obj := object(50_000)
	require.NoError(t, st.Put(ctx, "f.bin", obj))
	rd, err := st.Open(ctx, "f.bin")
	require.NoError(t, err)
	mr := rd.(store.MultiRangeReader)
	ranges := []store.Range{{Off: 4000, Len: 200}, {Off: 30_000, Len: 10}}
	f.count.reset()
	for round := range 2 {
		got, err := mr.ReadRanges(ctx, ranges)
		require.NoError(t, err)
		for i, r := range ranges {
			require.Equal(t, obj[r.Off:r.End()], got[i])
		}
		n := f.count.reset()
		if round == 0 {
			require.Equal(t, 2, n["GET range"])
			require.Equal(t, 210, n["bytes"], "exactly the bytes asked")
		} else {
			require.Zero(t, n["GET range"], "served from the cache")
		}
	}
}
