package server

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestGetTablesListsViews: through the arrow-go Flight SQL client,
// GetTables names each view with table_type VIEW (its schema the view's
// columns, when asked), a table type filter picks tables or views, and
// GetTableTypes offers both.
func TestGetTablesListsViews(t *testing.T) {
	s, cl, _ := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT, s TEXT); CREATE VIEW v (key, doubled) AS SELECT k, k * 2 FROM t`, nil)
	require.NoError(t, err)

	list := func(cmd *flightsql.GetTablesOpts) (names, kinds []string, schemas []*arrow.Schema) {
		info, err := cl.GetTables(ctx, cmd)
		require.NoError(t, err)
		for _, b := range readInfo(t, cl, info) {
			for i := 0; i < int(b.NumRows()); i++ {
				names = append(names, b.Column(2).(*array.String).Value(i))
				kinds = append(kinds, b.Column(3).(*array.String).Value(i))
				if cmd.IncludeSchema {
					sch, err := flight.DeserializeSchema(b.Column(4).(*array.Binary).Value(i), memory.DefaultAllocator)
					require.NoError(t, err)
					schemas = append(schemas, sch)
				}
			}
		}
		return names, kinds, schemas
	}
	names, kinds, schemas := list(&flightsql.GetTablesOpts{IncludeSchema: true})
	require.Equal(t, []string{"t", "v"}, names)
	require.Equal(t, []string{"TABLE", "VIEW"}, kinds)
	require.Equal(t, []string{"key", "doubled"}, []string{schemas[1].Field(0).Name, schemas[1].Field(1).Name})
	require.Equal(t, arrow.PrimitiveTypes.Int64, schemas[1].Field(1).Type)

	names, kinds, _ = list(&flightsql.GetTablesOpts{TableTypes: []string{"VIEW"}})
	require.Equal(t, []string{"v"}, names)
	require.Equal(t, []string{"VIEW"}, kinds)
	names, _, _ = list(&flightsql.GetTablesOpts{TableTypes: []string{"TABLE"}})
	require.Equal(t, []string{"t"}, names)

	info, err := cl.GetTableTypes(ctx)
	require.NoError(t, err)
	var types []string
	for _, b := range readInfo(t, cl, info) {
		for i := 0; i < int(b.NumRows()); i++ {
			types = append(types, b.Column(0).(*array.String).Value(i))
		}
	}
	require.Equal(t, []string{"TABLE", "VIEW"}, types)
}
