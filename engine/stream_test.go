package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// peakAlloc records the most bytes its allocator held at once.
type peakAlloc struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	peak int
}

func (p *peakAlloc) note() {
	p.mu.Lock()
	p.peak = max(p.peak, p.CurrentAlloc())
	p.mu.Unlock()
}

func (p *peakAlloc) Allocate(n int) []byte {
	b := p.CheckedAllocator.Allocate(n)
	p.note()
	return b
}

func (p *peakAlloc) Reallocate(n int, b []byte) []byte {
	b = p.CheckedAllocator.Reallocate(n, b)
	p.note()
	return b
}

// TestQueryStreams: reading a 2M-row query through Rows holds a batch at a
// time (the whole result is 16 MB of int64), and every batch is released.
func TestQueryStreams(t *testing.T) {
	mem := &peakAlloc{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	defer mem.AssertSize(t, 0)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	rows, err := db.Query(context.Background(), "SELECT g FROM generate_series(1, 2000000) AS g(g)", nil)
	require.NoError(t, err)
	var n int64
	for rows.Next() {
		n += rows.Batch().NumRows()
	}
	require.NoError(t, rows.Close())
	require.Equal(t, int64(2_000_000), n)
	t.Logf("peak %d bytes", mem.peak)
	require.Less(t, mem.peak, 2<<20, "peak %d bytes: the result was held, not streamed", mem.peak)
}

// TestInsertSelectStreams: INSERT ... SELECT writes fragments as the source
// batches arrive; it used to collect the whole source first (2M rows of
// int64 = 16 MB held before the first fragment was written).
func TestInsertSelectStreams(t *testing.T) {
	mem := &peakAlloc{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	_, err := db.Exec(ctx, "CREATE TABLE u (k BIGINT NOT NULL, s TEXT)", nil)
	require.NoError(t, err)
	mem.peak = 0
	res, err := db.Exec(ctx, "INSERT INTO u (k) SELECT g FROM generate_series(1, 2000000) AS g(g)", nil)
	require.NoError(t, err)
	require.Equal(t, int64(2_000_000), res.RowsAffected)
	res.Release()
	t.Logf("peak %d bytes", mem.peak)
	require.Less(t, mem.peak, 2<<20, "peak %d bytes: the source was held, not streamed", mem.peak)
	got := run(t, db, "SELECT count(*), count(s) FROM u", nil)
	require.Equal(t, [][]any{{int64(2_000_000), int64(0)}}, got)
}

// TestRowsCloseEarly: closing Rows before the end stops the query and
// frees everything.
func TestRowsCloseEarly(t *testing.T) {
	mem := exectest.Mem(t)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	rows, err := db.Query(context.Background(), "SELECT g, g * 2 AS h FROM generate_series(1, 100000) AS g(g) ORDER BY g DESC", nil)
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.Equal(t, int32(100000), exectestFirst(t, rows)) // generate_series(integer, integer) is integer
	require.NoError(t, rows.Close())
	require.NoError(t, rows.Close())
	require.False(t, rows.Next())
}

func exectestFirst(t *testing.T, rows *engine.Rows) any {
	r, err := exectest.Rows(rows.Batch())
	require.NoError(t, err)
	return r[0][0]
}
