package adbctest

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/server"
)

// TestParameterSchema: ADBC's GetParameterSchema after Prepare is the
// statement's parameters as the planner types them: the take's :ids a
// list of bigint, a parameter compared with a text column text, one
// nothing types text.
func TestParameterSchema(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	exec(t, cn, "CREATE TABLE named (k BIGINT, s TEXT)")
	for _, c := range []struct {
		sql  string
		want *arrow.Schema
	}{
		{seedQuery, arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}}, nil)},
		{`SELECT k FROM named WHERE s = $1 AND k > $2`, arrow.NewSchema([]arrow.Field{
			{Type: arrow.BinaryTypes.String, Nullable: true}, {Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)},
		{`SELECT k FROM named`, arrow.NewSchema(nil, nil)},
		// PostgreSQL 15's parameter types: a lone $1 is text (unknown
		// resolved to text); IS NULL takes the next use's type.
		{`SELECT $1`, arrow.NewSchema([]arrow.Field{{Type: arrow.BinaryTypes.String, Nullable: true}}, nil)},
		{`SELECT k FROM named WHERE $1 IS NULL OR k = $1`, arrow.NewSchema([]arrow.Field{{Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)},
	} {
		st, err := cn.NewStatement()
		require.NoError(t, err)
		require.NoError(t, st.SetSqlQuery(c.sql))
		require.NoError(t, st.Prepare(context.Background()))
		got, err := st.GetParameterSchema()
		require.NoError(t, err, c.sql)
		require.True(t, c.want.Equal(got), "%s: %s", c.sql, got)
		require.NoError(t, st.Close())
	}
}

// TestGetObjectsAll: GetObjects down to the columns (what a GUI's tree
// asks for) lists the tables and their columns.
func TestGetObjectsAll(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	exec(t, cn, "CREATE TABLE a (k BIGINT NOT NULL, d DATE, n NUMERIC(10,2))")
	rdr, err := cn.GetObjects(context.Background(), adbc.ObjectDepthAll, nil, nil, nil, nil, nil)
	require.NoError(t, err)
	objs := fmt.Sprint(rowsOf(t, rdr))
	for _, w := range []string{"a", "k", "d", "n"} {
		require.Contains(t, objs, w)
	}
}

// TestPartitionFromAdvertisedLocation: a partition whose endpoint names
// an address the client cannot reach (-advertise of a server behind NAT,
// seen from inside) still reads, through the reuse-connection location
// the server lists after it; with the server's own address (the
// default, TestPartitionedTake) ADBC dials that.
func TestPartitionFromAdvertisedLocation(t *testing.T) {
	ts := startServer(t, server.Options{MaxEndpoints: 3, Location: "grpc://127.0.0.1:1"})
	cn := mustConnect(t, ts.uri, nil)
	spreadTable(t, cn)
	ids := spreadIds(6000, 3)
	st := prepared(t, cn, takeQuery, int64Column(ids))
	_, parts, n, err := st.ExecutePartitions(context.Background())
	require.NoError(t, err)
	require.Equal(t, uint64(3), parts.NumPartitions)
	var all [][]any
	for _, p := range parts.PartitionIDs {
		rdr, err := cn.ReadPartition(context.Background(), p)
		require.NoError(t, err)
		all = append(all, rowsOf(t, rdr)...)
	}
	require.Equal(t, int(n), len(all))
	require.Equal(t, inProcess(t, ts.db, takeQuery, ids), byOrd(all))
}

// TestExecuteSchema: ADBC's ExecuteSchema of a prepared statement is the
// dataset schema its preparation returned, planned and not run: the
// schema its rows then come in; a prepared DELETE has a schema of no
// fields and deletes nothing until it is executed; ExecuteSchema of a
// statement not prepared asks the server (GetSchema) and agrees.
func TestExecuteSchema(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	ctx := context.Background()
	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.SetSqlQuery(seedQuery))
	require.NoError(t, st.Prepare(ctx))
	sc, err := st.(adbc.StatementExecuteSchema).ExecuteSchema(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"ord", "rowid", "k"}, fieldNames(sc))
	ids := int64Column(someIds(100, 2))
	require.NoError(t, st.Bind(ctx, ids))
	ids.Release()
	rdr, _, err := st.ExecuteQuery(ctx)
	require.NoError(t, err)
	require.True(t, sc.Equal(rdr.Schema()), "described %s\nran %s", sc, rdr.Schema())
	rowsOf(t, rdr)

	plain, err := cn.NewStatement()
	require.NoError(t, err)
	defer plain.Close()
	require.NoError(t, plain.SetSqlQuery(`SELECT k, s AS name FROM t WHERE k > 5`))
	psc, err := plain.(adbc.StatementExecuteSchema).ExecuteSchema(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"k", "name"}, fieldNames(psc))
	require.Equal(t, arrow.PrimitiveTypes.Int64, psc.Field(0).Type)
	require.Equal(t, arrow.BinaryTypes.String, psc.Field(1).Type)

	del, err := cn.NewStatement()
	require.NoError(t, err)
	defer del.Close()
	require.NoError(t, del.SetSqlQuery(`DELETE FROM t WHERE k >= 1000`))
	require.NoError(t, del.Prepare(ctx))
	dsc, err := del.(adbc.StatementExecuteSchema).ExecuteSchema(ctx)
	require.NoError(t, err)
	require.Zero(t, dsc.NumFields())
	count := func() any { return query(t, cn, `SELECT count(*) FROM t`)[0][0] }
	require.Equal(t, int64(nRows-nDeleted), count())
	n, err := del.ExecuteUpdate(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(nRows-100), n)
	require.Equal(t, int64(100-nDeleted), count())
}
