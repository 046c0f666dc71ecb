package s3test

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
)

// TestUniqueIndexOnS3: a unique index holds against two database handles
// on one S3 prefix (two processes' views): writers that read the same
// version and append the same key both pass their first check, the
// second's put-if-absent of the next version fails, it rebases, is
// checked again and fails with the unique violation as a conflict
// (errkind.Conflict); racing statements insert the key once.
func TestUniqueIndexOnS3(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := target(t)
	loc := f.uri("uniq")
	db1, err := f.openDB(t, loc, true, mem)
	require.NoError(t, err)
	execSQL(t, db1, `CREATE TABLE t (k BIGINT, v TEXT);
		INSERT INTO t VALUES (1, 'a');
		CREATE UNIQUE INDEX uk ON t (k, v DESC)`, nil).Release()
	db2, err := f.openDB(t, loc, false, mem)
	require.NoError(t, err)

	t1, err := db1.Table(ctx, "t")
	require.NoError(t, err)
	t2, err := db2.Table(ctx, "t")
	require.NoError(t, err)
	require.Equal(t, t1.Version(), t2.Version())
	batch := func() arrow.RecordBatch {
		kb := array.NewInt64Builder(mem)
		defer kb.Release()
		vb := array.NewStringBuilder(mem)
		defer vb.Release()
		kb.Append(7)
		vb.Append("w")
		k, v := kb.NewArray(), vb.NewArray()
		defer k.Release()
		defer v.Release()
		return array.NewRecordBatch(t1.UserSchema(), []arrow.Array{k, v}, 1)
	}
	b1, b2 := batch(), batch()
	defer b1.Release()
	defer b2.Release()
	_, err = t1.AppendBatches(ctx, []arrow.RecordBatch{b1}, mem)
	require.NoError(t, err)
	_, err = t2.AppendBatches(ctx, []arrow.RecordBatch{b2}, mem)
	require.ErrorIs(t, err, engine.ErrUniqueViolation)
	require.ErrorIs(t, err, table.ErrConflict)
	require.ErrorIs(t, err, errkind.Conflict)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		db := []*engine.DB{db1, db2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := db.Exec(ctx, `INSERT INTO t VALUES (42, 'race')`, nil)
			if err == nil {
				res.Release()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, engine.ErrUniqueViolation)
		}
	}
	require.Equal(t, 1, ok)
	res := execSQL(t, db2, `SELECT count(*) FROM t WHERE k IN (7, 42)`, nil)
	defer res.Release()
	require.EqualValues(t, 2, res.Batches[0].Column(0).(*array.Int64).Value(0))
}
