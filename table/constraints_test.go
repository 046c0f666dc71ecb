package table

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/store"
)

// TestConstraintsPersist: a table created with constraints records them
// in version 1 (format 9), every later version carries them, they read
// back after a reopen, and a table without them stays in the older
// format; a constraint section that decodes to a nameless CHECK is
// ErrCorrupt.
func TestConstraintsPersist(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	cons := Constraints{PrimaryKey: "t_pkey", Checks: []Check{{Name: "t_a_check", Expr: "a > 0"}, {Name: "two", Expr: "a < 10"}}}
	tb, err := CreateConstrained(ctx, st, schema, cons, Options{})
	require.NoError(t, err)
	require.Equal(t, uint16(constraintsManifestVersion), tb.m.format())
	b := arrowBatch(t, schema, 1)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, memory.DefaultAllocator)
	require.NoError(t, err)
	b.Release()
	re, err := Open(ctx, st, Options{})
	require.NoError(t, err)
	require.Equal(t, uint64(2), re.Version())
	require.Equal(t, cons, re.Constraints())

	plain, err := Create(ctx, store.NewMemory(), schema, Options{})
	require.NoError(t, err)
	require.Equal(t, uint16(manifestVersion), plain.m.format())

	bad := *re.m
	bad.Constraints = Constraints{Checks: []Check{{Name: "", Expr: "a > 0"}}}
	raw, err := bad.MarshalBinary()
	require.NoError(t, err)
	_, err = UnmarshalManifest(raw)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = CreateConstrained(ctx, store.NewMemory(), schema, bad.Constraints, Options{})
	require.ErrorIs(t, err, ErrInvalidArgument)
}

func arrowBatch(t *testing.T, schema *arrow.Schema, v int64) arrow.RecordBatch {
	t.Helper()
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	bld.Field(0).(*array.Int64Builder).Append(v)
	return bld.NewRecordBatch()
}

// TestChangeConstraintsConflicts: a constraints change and a write that
// adds rows, each committed after the other's base, conflict (the rows
// were checked against the older constraints, the constraint over the
// older rows); with no such write between, the change commits and later
// versions carry it.
func TestChangeConstraintsConflicts(t *testing.T) {
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	base, err := Create(ctx, store.NewMemory(), schema, Options{})
	require.NoError(t, err)
	add := func(c *Constraints) error {
		c.Checks = append(c.Checks, Check{Name: "pos", Expr: "a > 0"})
		return nil
	}
	b := arrowBatch(t, schema, 1)
	defer b.Release()
	_, err = base.AppendBatches(ctx, []arrow.RecordBatch{b}, memory.DefaultAllocator)
	require.NoError(t, err)
	_, err = base.ChangeConstraints(ctx, add) // base predates the append
	require.ErrorIs(t, err, ErrConflict)

	latest, err := base.Latest(ctx)
	require.NoError(t, err)
	changed, err := latest.ChangeConstraints(ctx, add)
	require.NoError(t, err)
	require.Equal(t, []Check{{Name: "pos", Expr: "a > 0"}}, changed.Constraints().Checks)
	_, err = latest.AppendBatches(ctx, []arrow.RecordBatch{b}, memory.DefaultAllocator) // latest predates the change
	require.ErrorIs(t, err, ErrConflict)
	after, err := changed.AppendBatches(ctx, []arrow.RecordBatch{b}, memory.DefaultAllocator)
	require.NoError(t, err)
	require.Equal(t, changed.Constraints(), after.Constraints())
	_, err = after.ChangeConstraints(ctx, add)
	require.ErrorIs(t, err, ErrInvalidArgument, "a second check of one name")
}
