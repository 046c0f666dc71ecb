package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// sqlField is a string field declaring SQL type decl.
func sqlField(name, decl string) arrow.Field {
	return arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true,
		Metadata: arrow.NewMetadata([]string{table.SQLTypeKey}, []string{decl})}
}

// TestSchemaTypesRoundTrip: every SQL column type is stored natively and
// comes back from the manifest as it was declared: int16/int32, float32,
// decimal128(p,s), date32, timestamp[us], and strings with their declared
// varchar(n)/char(n).
func TestSchemaTypesRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	in := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int32},
		{Name: "c", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "e", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "f", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		sqlField("g", "varchar(5)"),
		sqlField("h", "char(3)"),
		{Name: "i", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	_, err := table.Create(ctx, st, in, table.Options{})
	require.NoError(t, err)
	tb, err := table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	got := tb.Schema()
	for i, want := range in.Fields() {
		f := got.Field(i)
		require.Equal(t, want.Name, f.Name)
		require.True(t, arrow.TypeEqual(want.Type, f.Type), "%s: %s != %s", f.Name, f.Type, want.Type)
		require.Equal(t, want.Nullable, f.Nullable)
		wd, wok := table.SQLType(want)
		gd, gok := table.SQLType(f)
		require.Equal(t, wok, gok, f.Name)
		require.Equal(t, wd, gd, f.Name)
	}
}

func TestSchemaTypesRefused(t *testing.T) {
	ctx := context.Background()
	for name, f := range map[string]arrow.Field{
		"declared on int":   {Name: "x", Type: arrow.PrimitiveTypes.Int32, Metadata: arrow.NewMetadata([]string{table.SQLTypeKey}, []string{"varchar(3)"})},
		"bad length":        sqlField("x", "varchar(0)"),
		"bad spelling":      sqlField("x", "varchar(3"),
		"precision 39":      {Name: "x", Type: &arrow.Decimal128Type{Precision: 39, Scale: 0}},
		"scale > precision": {Name: "x", Type: &arrow.Decimal128Type{Precision: 3, Scale: 4}},
		"timestamp ns":      {Name: "x", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
	} {
		_, err := table.Create(ctx, store.NewMemory(), arrow.NewSchema([]arrow.Field{f}, nil), table.Options{})
		require.Error(t, err, name)
		require.True(t, errors.Is(err, errkind.InvalidArgument) || errors.Is(err, table.ErrSchema), "%s: %v", name, err)
	}
}
