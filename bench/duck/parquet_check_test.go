package duck

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// TestParquetAgainstDuckDB: a Parquet file stablerow's COPY TO writes reads
// in DuckDB as the same values, and a file DuckDB writes reads in
// stablerow's read_parquet as the same values (narrow integers and float4
// widened, DECIMAL and DATE as numeric and date; a type with no engine type
// refused naming its column).
func TestParquetAgainstDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	duck, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	defer duck.Close()
	db := engine.OpenMemory(engine.Options{})

	// stablerow -> DuckDB.
	ours := filepath.Join(dir, "ours.parquet")
	_, err = db.Exec(ctx, `CREATE TABLE t (k BIGINT, f DOUBLE PRECISION, s TEXT, b BOOLEAN);
		INSERT INTO t VALUES (1, 1.5, 'plain', true), (9223372036854775807, -1.7976931348623157e308, 'ünïcödé 日本', false),
		 (-9223372036854775808, 5e-324, 'a"b,c', NULL), (NULL, NULL, NULL, NULL), (0, 'Infinity', '', true);
		COPY t TO '`+ours+`'`, nil)
	require.NoError(t, err)
	want := [][]string{
		{"1", "1.5", "plain", "true"},
		{"9223372036854775807", "-1.7976931348623157e+308", "ünïcödé 日本", "false"},
		{"-9223372036854775808", "5e-324", `a"b,c`, "NULL"},
		{"NULL", "NULL", "NULL", "NULL"},
		{"0", "+Inf", "", "true"},
	}
	rows, err := duck.QueryContext(ctx, fmt.Sprintf("SELECT k, f, s, b FROM read_parquet('%s')", ours))
	require.NoError(t, err)
	var got [][]string
	for rows.Next() {
		var k sql.NullInt64
		var f sql.NullFloat64
		var s sql.NullString
		var b sql.NullBool
		require.NoError(t, rows.Scan(&k, &f, &s, &b))
		got = append(got, []string{nz(k.Valid, k.Int64), nz(f.Valid, f.Float64), nz(s.Valid, s.String), nz(b.Valid, b.Bool)})
	}
	require.NoError(t, rows.Err())
	require.Equal(t, want, got)

	// DuckDB -> stablerow.
	theirs := filepath.Join(dir, "theirs.parquet")
	_, err = duck.ExecContext(ctx, fmt.Sprintf(`COPY (SELECT i::INTEGER AS i32, i::SMALLINT AS i16, (i / 4)::REAL AS f32, i::VARCHAR AS s,
		i %% 2 = 0 AS b FROM range(-3, 4) r(i) UNION ALL SELECT NULL, NULL, NULL, NULL, NULL) TO '%s' (FORMAT parquet)`, theirs))
	require.NoError(t, err)
	res, err := db.Exec(ctx, "SELECT i32, i16, f32, s, b FROM read_parquet('"+theirs+"') ORDER BY i32", nil)
	require.NoError(t, err)
	defer res.Release()
	var text []string
	for _, b := range res.Batches {
		for r := 0; r < int(b.NumRows()); r++ {
			row := ""
			for c := 0; c < int(b.NumCols()); c++ {
				row += b.Column(c).ValueStr(r) + " "
			}
			text = append(text, row)
		}
	}
	require.Equal(t, []string{
		"-3 -3 -0.75 -3 false ", "-2 -2 -0.5 -2 true ", "-1 -1 -0.25 -1 false ", "0 0 0 0 true ",
		"1 1 0.25 1 false ", "2 2 0.5 2 true ", "3 3 0.75 3 false ", "(null) (null) (null) (null) (null) ",
	}, text)

	// DECIMAL and DATE read as numeric and date with their values.
	dec := filepath.Join(dir, "dec.parquet")
	_, err = duck.ExecContext(ctx, fmt.Sprintf(`COPY (SELECT 1 AS k, 1.25::DECIMAL(9,2) AS price, DATE '2024-02-29' AS d) TO '%s' (FORMAT parquet)`, dec))
	require.NoError(t, err)
	dres, err := db.Exec(ctx, "SELECT price, d, price * 2 = 2.5 FROM read_parquet('"+dec+"')", nil)
	require.NoError(t, err)
	defer dres.Release()
	require.Len(t, dres.Batches, 1)
	b := dres.Batches[0]
	require.Equal(t, "1.25 2024-02-29 true", b.Column(0).ValueStr(0)+" "+b.Column(1).ValueStr(0)+" "+b.Column(2).ValueStr(0))

	// A time-zone timestamp has no engine type: refused naming its column.
	tz := filepath.Join(dir, "tz.parquet")
	_, err = duck.ExecContext(ctx, fmt.Sprintf(`COPY (SELECT 1 AS k, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS at) TO '%s' (FORMAT parquet)`, tz))
	require.NoError(t, err)
	_, err = db.Exec(ctx, "SELECT * FROM read_parquet('"+tz+"')", nil)
	require.True(t, errors.Is(err, errkind.Unsupported), "%v", err)
	require.Contains(t, err.Error(), `"at"`)
}

func nz(valid bool, v any) string {
	if !valid {
		return "NULL"
	}
	return fmt.Sprint(v)
}
