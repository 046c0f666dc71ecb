package engine_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestUnnestOnlyParams: which parameters a statement uses only as the
// list of UNNEST in FROM (so the server may stream or spill them), and
// how many UNNESTs read each.
func TestUnnestOnlyParams(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL)`, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		sql  string
		want map[int]int
	}{
		{`SELECT count(*) FROM UNNEST($1) AS u(id)`, map[int]int{1: 1}},
		{`INSERT INTO t SELECT id * 2 FROM UNNEST($1) WITH ORDINALITY AS u(id, ord)`, map[int]int{1: 1}},
		{`DELETE FROM t WHERE k IN (SELECT u FROM UNNEST($1) AS x(u))`, map[int]int{1: 1}},
		{`UPDATE t SET k = k + 1 WHERE k IN (SELECT u FROM UNNEST($1) AS x(u))`, map[int]int{1: 1}},
		{`SELECT id FROM UNNEST($1) AS u(id) WHERE id > $2`, map[int]int{1: 1}},
		{`SELECT a.id FROM UNNEST($1) AS a(id) JOIN UNNEST($1) AS b(id) ON a.id = b.id`, map[int]int{1: 2}},
		{`SELECT $1::bigint + 1`, map[int]int{}},
		{`EXPLAIN SELECT * FROM UNNEST($1) AS u(id)`, map[int]int{}},
	} {
		got, err := db.UnnestOnlyParams(ctx, c.sql, nil)
		require.NoError(t, err, c.sql)
		require.Equal(t, c.want, got, c.sql)
	}
	_, err = db.UnnestOnlyParams(ctx, `SELECT * FROM nosuch`, nil)
	require.Error(t, err)
}

// onceSource is an exec.ListSource of int64 arrays that can be opened
// once, as an upload streaming into a statement; after its arrays it
// fails with fail (nil: the list ends).
type onceSource struct {
	arrays []arrow.Array
	fail   error
	opened bool
}

func (s *onceSource) ElemType() arrow.DataType { return arrow.PrimitiveTypes.Int64 }
func (s *onceSource) Open(context.Context) (exec.ListReader, error) {
	if s.opened {
		return nil, errors.New("opened twice")
	}
	s.opened = true
	return s, nil
}
func (s *onceSource) Close() error { return nil }
func (s *onceSource) Next(context.Context) (arrow.Array, error) {
	if len(s.arrays) == 0 {
		if s.fail != nil {
			return nil, s.fail
		}
		return nil, io.EOF
	}
	a := s.arrays[0]
	s.arrays = s.arrays[1:]
	return a, nil
}

func ids(mem memory.Allocator, lo, hi int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := lo; i < hi; i++ {
		b.Append(i)
	}
	return b.NewArray()
}

// TestStreamedParamInsert: INSERT ... SELECT FROM UNNEST($1) with $1 bound
// as a stream inserts every value of every array, and commits once: a
// stream that fails midway (a cancelled upload) commits nothing.
func TestStreamedParamInsert(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1000})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, o BIGINT)`, nil)
	require.NoError(t, err)
	const ins = `INSERT INTO t SELECT id * 2, ord FROM UNNEST($1) WITH ORDINALITY AS u(id, ord)`
	src := &onceSource{arrays: []arrow.Array{ids(mem, 0, 2500), ids(mem, 2500, 2500), ids(mem, 2500, 4000)}}
	_, err = db.Exec(ctx, ins, engine.PositionalParams([]any{src}))
	require.NoError(t, err)
	got := run(t, db, `SELECT count(*), sum(k), sum(o), max(o) FROM t`, nil)
	// k = 2 * id for id in [0, 4000): sum 2 * 3999 * 4000 / 2; ord 1..4000.
	require.Equal(t, [][]any{{int64(4000), int64(3999 * 4000), int64(4000 * 4001 / 2), int64(4000)}}, got)

	cut := errors.New("upload cancelled")
	bad := &onceSource{arrays: []arrow.Array{ids(mem, 0, 3000)}, fail: cut}
	_, err = db.Exec(ctx, ins, engine.PositionalParams([]any{bad}))
	require.ErrorIs(t, err, cut)
	got = run(t, db, `SELECT count(*) FROM t`, nil)
	require.Equal(t, [][]any{{int64(4000)}}, got, "a failed stream commits nothing")

	// DELETE and UPDATE with the ids in an IN (SELECT ... FROM UNNEST($1))
	// read the stream once too.
	del := &onceSource{arrays: []arrow.Array{ids(mem, 0, 1000), ids(mem, 1000, 2000)}}
	_, err = db.Exec(ctx, `DELETE FROM t WHERE k IN (SELECT u * 2 FROM UNNEST($1) AS x(u))`, engine.PositionalParams([]any{del}))
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(2000)}}, run(t, db, `SELECT count(*) FROM t`, nil))
	upd := &onceSource{arrays: []arrow.Array{ids(mem, 2000, 2010)}}
	_, err = db.Exec(ctx, `UPDATE t SET o = 0 WHERE k IN (SELECT u * 2 FROM UNNEST($1) AS x(u))`, engine.PositionalParams([]any{upd}))
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(10)}}, run(t, db, `SELECT count(*) FROM t WHERE o = 0`, nil))
	keep := &onceSource{arrays: []arrow.Array{ids(mem, 2000, 3000)}}
	_, err = db.Exec(ctx, `DELETE FROM t WHERE k NOT IN (SELECT u * 2 FROM UNNEST($1) AS x(u))`, engine.PositionalParams([]any{keep}))
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1000)}}, run(t, db, `SELECT count(*) FROM t`, nil))
}
