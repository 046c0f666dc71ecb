package s3test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	_ "github.com/stablerow/stablerow/engine/s3db" // engine opens s3:// (engine/remote.go)
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store/s3store"
)

const seedTake = `SELECT v.ord, t._rowid, t.k, t.s FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// openDB opens the database at loc with the test's request counter.
func (f *fake) openDB(t testing.TB, loc string, create bool, mem memory.Allocator) (*engine.DB, error) {
	t.Helper()
	return engine.Open(loc, engine.Options{Mem: mem, Create: create, S3: s3store.Options{
		HTTPClient: &http.Client{Transport: f.count}, RetryBaseDelay: time.Millisecond,
	}})
}

func execSQL(t testing.TB, db *engine.DB, sql string, params map[string]any) *engine.Result {
	t.Helper()
	res, err := db.Exec(context.Background(), sql, params)
	require.NoError(t, err, sql)
	return res
}

// TestEngineOnS3 drives a database at s3://bucket/prefix through the
// engine: an empty prefix is no database until Create marks it; tables
// are sub-prefixes found by a fresh Open; the seed take on a fresh
// process's view answers from the index; DROP TABLE removes every object.
func TestEngineOnS3(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := target(t)
	loc := f.uri("db")

	_, err := f.openDB(t, loc, false, mem)
	require.ErrorIs(t, err, engine.ErrNoDatabase, "an empty prefix is no database")
	db, err := f.openDB(t, loc, true, mem)
	require.NoError(t, err)
	require.Empty(t, db.Tables())
	db, err = f.openDB(t, loc, false, mem)
	require.NoError(t, err, "Create marked the prefix")

	const n = 20000
	execSQL(t, db, fmt.Sprintf(`CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, 'row' FROM generate_series(0, %d) AS g(g);
		CREATE INDEX rid ON t USING btree (_rowid)`, n-1), nil).Release()
	execSQL(t, db, "CREATE TABLE u (k BIGINT)", nil).Release()

	db2, err := f.openDB(t, loc, false, mem)
	require.NoError(t, err)
	require.Equal(t, []string{"t", "u"}, db2.Tables())
	for round, ids := range [][]int64{{7}, {7}, {19999, 3, 123456, 3, 10000}} {
		f.count.reset()
		res := execSQL(t, db2, seedTake, map[string]any{"ids": ids})
		got := f.count.reset()
		t.Logf("take of %d ids, round %d: %v\n%s", len(ids), round, got, res.Plan)
		switch round {
		case 0:
			// Cold: list the versions, read the manifest; open the index
			// (its lookup, its pages' size, its header) and read the one
			// page that holds the id; the data file's tail (footer) and the
			// one span (batch) that holds the row. No HEAD of the data file:
			// the manifest says its size and identity.
			require.Equal(t, map[string]int{"LIST": 1, "GET": 2, "HEAD": 1, "GET range": 4}, requests(got))
		case 1:
			// Warm: one listing to see that the version is still the
			// newest; the page and the data blocks come from the caches.
			require.Equal(t, map[string]int{"LIST": 1}, requests(got))
		}
		require.Contains(t, res.Plan, "TakeByKeyExec")
		var rows int
		for _, b := range res.Batches {
			for i := range int(b.NumRows()) {
				id := ids[rows]
				if id >= n {
					require.True(t, b.Column(1).IsNull(i))
				} else {
					require.EqualValues(t, id, b.Column(1).(*array.Uint64).Value(i))
					require.EqualValues(t, id, b.Column(2).(*array.Int64).Value(i))
					require.Equal(t, "row", b.Column(3).(*array.String).Value(i))
				}
				rows++
			}
		}
		require.Equal(t, len(ids), rows)
		res.Release()
	}

	execSQL(t, db2, "DROP TABLE t", nil).Release()
	db3, err := f.openDB(t, loc, false, mem)
	require.NoError(t, err)
	require.Equal(t, []string{"u"}, db3.Tables())
	st, err := engine.OpenStore(context.Background(), loc+"/t", engine.Options{})
	require.NoError(t, err)
	left, err := st.List(context.Background(), "")
	require.NoError(t, err)
	require.Empty(t, left, "DROP TABLE leaves no object")

	_, err = f.openDB(t, "s3://stablerow-no-such-bucket/db", true, mem)
	require.ErrorIs(t, err, engine.ErrNoDatabase)
	require.ErrorIs(t, err, s3store.ErrNoBucket)
	require.True(t, errors.Is(err, errkind.NotFound))
}

// requests keeps the request counts of a counter's tally.
func requests(n map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range n {
		if k != "bytes" && k != "max in flight" && v != 0 {
			out[k] = v
		}
	}
	return out
}
