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

// TestCheckConstraints: CHECK constraints are stored with the table
// (they hold after the database is opened again) and tested on every
// row INSERT, INSERT ... SELECT, UPDATE and COPY write, inside a transaction
// too, with PostgreSQL's rule (a row fails only when the expression is
// FALSE; NULL passes) and message (23514, the first check by name);
// a failed statement writes nothing; ON CONFLICT DO NOTHING tests the
// row before its arbiter, as ExecInsert does; COPY FROM tests each row
// read from the file.
func TestCheckConstraints(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
	require.NoError(t, err)
	run(t, db, `CREATE TABLE c1 (a INT CHECK (a > 0), b INT CHECK (b > a), c INT PRIMARY KEY, CHECK (c > 0), CHECK (a + c > 0),
		CONSTRAINT named CHECK (b < 100))`, nil)
	db, err = engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
	require.NoError(t, err)
	run(t, db, `INSERT INTO c1 VALUES (1, 2, 3), (NULL, NULL, 4)`, nil)
	violates := func(q, name string) {
		t.Helper()
		err := execErr(db, q)
		require.ErrorIs(t, err, engine.ErrCheckViolation, q)
		require.ErrorIs(t, err, errkind.InvalidArgument, q)
		// A script's error names its statement first.
		require.True(t, strings.HasSuffix(errkind.Message(err, false), `new row for relation "c1" violates check constraint "`+name+`"`), "%s: %v", q, err)
	}
	violates(`INSERT INTO c1 VALUES (0, 2, 5)`, "c1_a_check")
	violates(`INSERT INTO c1 VALUES (1, 0, 5)`, "c1_check")
	violates(`INSERT INTO c1 VALUES (1, 2, 6), (1, 2, -3)`, "c1_c_check") // also c1_check1: by name, c1_c_check first
	violates(`INSERT INTO c1 VALUES (1, 200, 5)`, "named")
	violates(`INSERT INTO c1 (c) SELECT -1`, "c1_c_check")
	violates(`UPDATE c1 SET b = a - 1 WHERE c = 3`, "c1_check")
	violates(`INSERT INTO c1 VALUES (0, 2, 3) ON CONFLICT DO NOTHING`, "c1_a_check")
	run(t, db, `INSERT INTO c1 VALUES (5, 6, 3) ON CONFLICT DO NOTHING; UPDATE c1 SET b = 50 WHERE c = 3`, nil)
	violates(`BEGIN; INSERT INTO c1 VALUES (7, 8, 9); UPDATE c1 SET a = -7 WHERE c = 9`, "c1_a_check")
	run(t, db, `ROLLBACK`, nil)
	run(t, db, `BEGIN; INSERT INTO c1 VALUES (7, 8, 9); UPDATE c1 SET a = 8, b = 9 WHERE c = 9; COMMIT`, nil)

	// COPY: the checks run over each batch read from the file.
	csv := filepath.Join(t.TempDir(), "c.csv")
	require.NoError(t, os.WriteFile(csv, []byte("1,2,10\n,,11\n3,1,12\n"), 0o644))
	violates(`COPY c1 FROM '`+csv+`' (FORMAT csv)`, "c1_check")
	require.NoError(t, os.WriteFile(csv, []byte("1,2,10\n,,11\n"), 0o644))
	run(t, db, `COPY c1 FROM '`+csv+`' (FORMAT csv)`, nil)

	require.Equal(t, [][]any{{int32(1), int32(50), int32(3)}, {nil, nil, int32(4)}, {int32(8), int32(9), int32(9)},
		{int32(1), int32(2), int32(10)}, {nil, nil, int32(11)}},
		run(t, db, `SELECT a, b, c FROM c1 ORDER BY c`, nil))
}

// TestAlterTableCheck: ALTER TABLE ... ADD CHECK validates the rows the
// table holds (PostgreSQL's message, nothing committed on failure),
// names an unnamed check past the table's, and is enforced from then
// on; DROP CONSTRAINT removes it ([IF EXISTS]; an unknown name is
// ErrUnknownConstraint); both are refused inside a transaction block.
func TestAlterTableCheck(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE al (a INT, b INT); INSERT INTO al VALUES (1, 1), (-1, 2), (NULL, 3)`, nil)
	err := execErr(db, `ALTER TABLE al ADD CONSTRAINT pos CHECK (a > 0)`)
	require.ErrorIs(t, err, engine.ErrCheckViolation)
	require.Equal(t, `check constraint "pos" of relation "al" is violated by some row`, errkind.Message(err, false))
	run(t, db, `INSERT INTO al VALUES (-2, 4)`, nil) // pos was not added
	run(t, db, `ALTER TABLE al ADD CHECK (b > 0); ALTER TABLE al ADD CHECK (b > 0)`, nil)
	err = execErr(db, `INSERT INTO al VALUES (5, -1)`)
	require.ErrorIs(t, err, engine.ErrCheckViolation)
	require.Equal(t, `new row for relation "al" violates check constraint "al_b_check"`, errkind.Message(err, false))
	run(t, db, `ALTER TABLE al DROP CONSTRAINT al_b_check; ALTER TABLE al DROP CONSTRAINT IF EXISTS nope`, nil)
	err = execErr(db, `INSERT INTO al VALUES (5, -1)`)
	require.Equal(t, `new row for relation "al" violates check constraint "al_b_check1"`, errkind.Message(err, false))
	require.ErrorIs(t, execErr(db, `ALTER TABLE al DROP CONSTRAINT nope`), engine.ErrUnknownConstraint)
	require.ErrorIs(t, execErr(db, `BEGIN; ALTER TABLE al DROP CONSTRAINT al_b_check1`), engine.ErrInTransaction)
	run(t, db, `ROLLBACK; ALTER TABLE al DROP CONSTRAINT al_b_check1; INSERT INTO al VALUES (5, -1)`, nil)
	require.Equal(t, [][]any{{int64(5)}}, run(t, db, `SELECT count(*) FROM al`, nil))
}
