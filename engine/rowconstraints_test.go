package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestNotNullViolation: every write path (INSERT VALUES, INSERT ...
// SELECT, an omitted target column, UPDATE, COPY) refuses a NULL in a NOT
// NULL column with PostgreSQL's ExecConstraints text (23502), typed; an
// INSERT of no rows that omits the column succeeds, as in PostgreSQL; the
// table is unchanged by the failures.
func TestNotNullViolation(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE nn (a INT NOT NULL, b INT); INSERT INTO nn VALUES (1, 1)`, nil)
	csv := filepath.Join(t.TempDir(), "n.csv")
	require.NoError(t, os.WriteFile(csv, []byte("2,2\n,3\n"), 0o644))
	const want = `null value in column "a" of relation "nn" violates not-null constraint`
	for _, q := range []string{
		`INSERT INTO nn VALUES (NULL, 2)`,
		`INSERT INTO nn VALUES (2, 2), (NULL, 3)`,
		`INSERT INTO nn SELECT NULL::int, 2`,
		`INSERT INTO nn (b) VALUES (2)`,
		`UPDATE nn SET a = NULL`,
		`COPY nn FROM '` + csv + `' (FORMAT csv)`,
	} {
		err := execErr(db, q)
		require.ErrorIs(t, err, engine.ErrNotNullViolation, q)
		require.ErrorIs(t, err, errkind.InvalidArgument, q)
		// COPY names its file before the message, as PostgreSQL's
		// CONTEXT line does.
		require.True(t, strings.HasSuffix(errkind.Message(err, false), want), "%s: %v", q, err)
	}
	run(t, db, `INSERT INTO nn (b) SELECT 1 WHERE false`, nil)
	require.Equal(t, [][]any{{int32(1), int32(1)}}, run(t, db, `SELECT a, b FROM nn`, nil))
}
